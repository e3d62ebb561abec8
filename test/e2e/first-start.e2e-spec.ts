import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@agent-memory/testing';

/**
 * The first five minutes of `npm start` (README.md; docs/configuration.md, `LOG_FORMAT`): a handful of
 * human lines at start, the last one "ready in X s" with a `localhost` URL (passkeys refuse an IP
 * address), one short line per request with no credential; with `LOG_FORMAT=json`, JSON lines only.
 */

const REPO_ROOT = resolve(__dirname, '..', '..');
const MAIN = join(REPO_ROOT, 'apps', 'standalone', 'src', 'main.ts');
const SECRET = 'amk_live_FIRSTSTARTSECRETFIRSTSTARTSECRETFIRST';
/** At most this many lines from the start to "ready" (the issue: ~70 before). */
const MAX_BOOT_LINES = 15;

interface Started {
  child: ChildProcess;
  /** stdout so far, split in lines. */
  lines: () => string[];
  stderr: () => string;
}

/** Spawns `npm start`'s entry with `env` and resolves once a stdout line says "(standalone) ready in"; rejects with the output if it exits first. */
async function startMain(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += String(c)));
  const started: Started = { child, lines: () => out.split('\n').filter((l) => l.length > 0), stderr: () => err };
  await new Promise<void>((ok, fail) => {
    child.stdout.on('data', (c: Buffer) => {
      out += String(c);
      if (out.includes('(standalone) ready in')) ok();
    });
    child.once('exit', (code) => fail(new Error(`exited with ${code} before ready:\n${out}\n${err}`)));
  });
  return started;
}

/** Waits until a stdout line contains `needle` (the access line is written after the response). */
async function lineWith(s: Started, needle: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = s.lines().find((l) => l.includes(needle));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no line with ${needle}:\n${s.lines().join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stop(s: Started): Promise<void> {
  if (s.child.exitCode !== null) return;
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

/** A request with a credential (refused: the key is unknown) and a liveness probe. */
async function requests(port: number): Promise<void> {
  const refused = await fetch(`http://127.0.0.1:${port}/api/v1/records`, { headers: { authorization: `Bearer ${SECRET}` } });
  expect(refused.status).toBe(401);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
}

describe('npm start: the first five minutes', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-first-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('pretty: a handful of human lines to "ready" with a localhost URL, one short access line per request, no credential, no probe', async () => {
    const port = await freePort();
    const s = await startMain({ DATA_DIR: dataDir, PORT: String(port), LOG_FORMAT: 'pretty' });
    try {
      const boot = s.lines();
      expect(boot.length).toBeLessThan(MAX_BOOT_LINES);
      expect(boot.filter((l) => l.startsWith('{'))).toEqual([]);
      expect(boot[0]).toContain(`First start: creating the embedded database in ${dataDir} (`);
      expect(boot.at(-1)).toMatch(new RegExp(`INFO: agent-memory \\(standalone\\) ready in \\d+\\.\\d s: http://localhost:${port} {2}· {2}Dashboard http://localhost:${port}/dashboard {2}· {2}API docs http://localhost:${port}/docs`));
      // the dashboard is there, and 127.0.0.1 is sent to the localhost URL the line names
      const dashboard = await fetch(`http://127.0.0.1:${port}/dashboard/`, { redirect: 'manual' });
      expect([dashboard.status, dashboard.headers.get('location')]).toEqual([302, `http://localhost:${port}/dashboard/`]);
      await requests(port);
      expect(await lineWith(s, '/api/v1/records')).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/api\/v1\/records 401 \d+ ms {2}req \S+$/);
      await new Promise((r) => setTimeout(r, 200));
      const all = s.lines().join('\n');
      expect(all).not.toContain('/healthz');
      expect(all).not.toMatch(/SECRET|Bearer|authorization/i);
    } finally {
      await stop(s);
    }
  }, 180_000);

  it('json (warm start): every line is one JSON object, the access line keeps req/res with the credential redacted', async () => {
    const port = await freePort();
    const s = await startMain({ DATA_DIR: dataDir, PORT: String(port), LOG_FORMAT: 'json' });
    try {
      const boot = s.lines().map((l) => JSON.parse(l) as { msg: string; url?: string });
      expect(boot.length).toBeLessThan(MAX_BOOT_LINES);
      expect(boot[0].msg).toBe(`Opening the data directory ${dataDir} …`);
      expect(boot.at(-1)).toMatchObject({ mode: 'standalone', url: `http://localhost:${port}`, dashboard: `http://localhost:${port}/dashboard` });
      await requests(port);
      const access = JSON.parse(await lineWith(s, '/api/v1/records')) as Record<string, unknown>;
      expect(access).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/api/v1/records', headers: { authorization: '[redacted]' } }, res: { statusCode: 401 } });
      expect(typeof access.responseTime).toBe('number');
      const all = s.lines();
      for (const line of all) expect(() => JSON.parse(line) as unknown).not.toThrow();
      expect(all.join('\n')).not.toContain(SECRET);
      expect(all.join('\n')).not.toContain('/healthz');
    } finally {
      await stop(s);
    }
  }, 180_000);
});
