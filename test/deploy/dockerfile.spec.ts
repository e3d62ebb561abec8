/**
 * Dockerfile and .dockerignore checked as text (no Docker engine here, so the image is not built):
 * multi-stage, npm install with ONNXRUNTIME_NODE_INSTALL=skip and the Prisma clients generated, a slim
 * runtime running as a numeric non-root user, the cluster entrypoint, the dashboard built in the image.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helm';

/** One Dockerfile instruction: keyword (upper case) and its argument text, continuation lines joined. */
interface Instruction {
  keyword: string;
  args: string;
}

/** Parses a Dockerfile into instructions (comments and blank lines dropped, `\` continuations joined). */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (pending && line.startsWith('#')) continue;
    pending += (pending ? ' ' : '') + line.replace(/\\$/, '').trim();
    if (line.endsWith('\\')) continue;
    const m = /^(\S+)\s*(.*)$/.exec(pending)!;
    out.push({ keyword: m[1].toUpperCase(), args: m[2] });
    pending = '';
  }
  return out;
}

/** Splits instructions into stages at each FROM; `ARG`s before the first FROM are global. */
function stages(instructions: Instruction[]) {
  const globalArgs: Record<string, string> = {};
  const result: { from: string; name?: string; body: Instruction[] }[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const [image, as, name] = ins.args.split(/\s+/);
      const resolved = image.replace(/^\$\{(\w+)\}$/, (_, k: string) => globalArgs[k] ?? '');
      result.push({ from: resolved, name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else if (result.length === 0 && ins.keyword === 'ARG') {
      const [k, v] = ins.args.split('=');
      globalArgs[k] = v ?? '';
    } else if (result.length > 0) {
      result[result.length - 1].body.push(ins);
    }
  }
  return result;
}

const instructions = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const all = stages(instructions);
const runtime = all[all.length - 1];
const last = (keyword: string) => runtime.body.filter((i) => i.keyword === keyword).at(-1);
const dockerignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

describe('Dockerfile', () => {
  it('is multi-stage and ends on node:22-bookworm-slim (Node 22 LTS)', () => {
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(runtime.from).toBe('node:22-bookworm-slim');
    const names = new Set(all.map((s) => s.name).filter(Boolean));
    for (const s of all) {
      for (const copy of s.body.filter((i) => i.keyword === 'COPY')) {
        const from = /--from=(\S+)/.exec(copy.args)?.[1];
        if (from) expect(names).toContain(from);
      }
    }
  });

  it('installs dependencies with npm install (not npm ci), skipping the onnxruntime download, and generates the Prisma clients', () => {
    const deps = all.find((s) => s.name === 'deps')!;
    expect(deps).toBeDefined();
    expect(deps.body.some((i) => i.keyword === 'ENV' && /ONNXRUNTIME_NODE_INSTALL=skip/.test(i.args))).toBe(true);
    const runs = deps.body.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' && ');
    expect(runs).toMatch(/npm install\b/);
    expect(runs).toContain('node tools/prisma-generate.js');
    expect(instructions.some((i) => i.keyword === 'RUN' && /npm ci\b/.test(i.args))).toBe(false);
  });

  it('runs as a numeric non-root user', () => {
    const user = last('USER')!;
    expect(user).toBeDefined();
    const [uid, gid] = user.args.split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    if (gid !== undefined) expect(gid).toMatch(/^\d+$/);
    // nothing after USER switches back
    expect(runtime.body.slice(runtime.body.indexOf(user) + 1).some((i) => i.keyword === 'USER')).toBe(false);
  });

  it('enters the cluster launcher with @swc-node/register; gateway by default; exposes 8080 and 9090', () => {
    expect(JSON.parse(last('ENTRYPOINT')!.args)).toEqual(['node', '-r', '@swc-node/register', 'apps/cluster/src/main.ts']);
    expect(JSON.parse(last('CMD')!.args)).toEqual(['gateway']);
    expect(last('EXPOSE')!.args.split(/\s+/).sort()).toEqual(['8080', '9090']);
  });

  it('builds the dashboard from the sources in the build stage, fails without its index.html, and ships it (docs/dashboard.md)', () => {
    const build = all.find((s) => s.name === 'build')!;
    const runs = build.body.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' && ');
    // after the sources are copied: the deps layer has no dashboard sources
    expect(build.body.findIndex((i) => i.keyword === 'COPY' && i.args === '. .')).toBeLessThan(build.body.findIndex((i) => i.keyword === 'RUN' && i.args.includes('build-dashboard')));
    expect(runs).toMatch(/node tools\/build-dashboard\.js && test -f clients\/dashboard\/dist\/index\.html/);
    // the Vite toolchain goes only after the build
    expect(runs.indexOf('node_modules/vite ')).toBeGreaterThan(runs.indexOf('build-dashboard'));
    expect(runtime.body.some((i) => i.keyword === 'COPY' && i.args === '--from=build /app/ /app/')).toBe(true);
    // a local dist is never copied in (the image builds its own); the dashboard's sources are
    expect(dockerignore).toContain('**/dist');
    expect(dockerignore.some((ig) => ig === 'clients' || ig.startsWith('clients/dashboard'))).toBe(false);
  });

  it('keeps dependencies, secrets and local data out of the build context, but not the sources', () => {
    for (const p of ['.git', '**/node_modules', '**/generated', 'data', '.env']) expect(dockerignore).toContain(p);
    for (const p of ['apps', 'libs', 'services', 'tools', 'package.json', 'package-lock.json', 'tsconfig.base.json']) {
      expect(dockerignore.some((ig) => ig === p || ig === `${p}/` || ig === `/${p}`)).toBe(false);
    }
  });
});
