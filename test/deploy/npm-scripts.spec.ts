/**
 * The root package.json's start scripts (README.md, docs/dashboard.md "Opening it"): both run modes build
 * the dashboard (tools/build-dashboard.js) and generate the Prisma clients before starting, so that the
 * gateway never serves a dashboard older than its sources.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helm';

const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The commands of a script, split on `&&`, trimmed. */
const steps = (name: string): string[] => (scripts[name] ?? '').split('&&').map((s) => s.trim());

describe('the start scripts', () => {
  it('npm start: prestart generates the Prisma clients and builds the dashboard', () => {
    expect(steps('prestart')).toEqual(['node tools/prisma-generate.js', 'node tools/build-dashboard.js']);
    expect(scripts.start).toContain('apps/standalone/src/main.ts');
  });

  it('npm run start:cluster does the same before it starts the processes', () => {
    const cluster = steps('start:cluster');
    expect(cluster.slice(0, 2)).toEqual(['node tools/prisma-generate.js', 'node tools/build-dashboard.js']);
    expect(cluster[cluster.length - 1]).toContain('apps/cluster/src/start-cluster.ts');
  });
});
