import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentMemory } from '@agent-memory/client';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import { CliHarness, startProxy } from './cli.fixture';

// export and import end to end: the real bin against a real standalone server; a proxy in front of it
// holds a page (to kill an export mid-run) or answers one write 429 with Retry-After.
let server: TestServer;
let cli: CliHarness;
let sdk: AgentMemory;
let source: string;

const MEMORIES = [
  { content: 'The deploy key rotates every Monday at 09:00 UTC.', type: 'fact', path: 'ops/deploy-key' },
  { content: 'Alice leads the payments team.', type: 'relationship', path: 'people/alice' },
  { content: 'I am the release assistant of the platform team.', type: 'identity', path: 'me' },
  { content: 'Yesterday the release was rolled back after a failed migration.', type: 'episode' },
  { content: 'To roll back, run deploy --previous on the gateway host.', type: 'skill', path: 'runbooks/rollback' },
  { content: 'Ünïcödé and emoji 🚀 survive the round trip.', type: 'fact', path: 'tests/unicode' },
] as const;
const FILES = [
  { path: 'docs/plan.md', content: '# Plan\n\n1. export\n2. import\n' },
  { path: 'docs/empty.txt', content: '' },
  { path: 'data/config.json', content: '{"a":1,"b":[true,null]}' },
];

type Snapshot = { memories: { path: string; type: string; content: string }[]; files: { path: string; content: string }[] };
let sourceSnapshot: Snapshot;

/** A record's memories (path, type, content) and files (path, content), sorted: what an import must reproduce. */
async function snapshot(recordId: string, client = sdk): Promise<Snapshot> {
  const memories = (await client.memories.list(recordId, { pageSize: 200 }).toArray()).map((m) => ({ path: m.path, type: m.type, content: m.content }));
  const files = [];
  for (const info of await client.files.list(recordId).toArray()) files.push({ path: info.path, content: (await client.files.read(recordId, info.path)).content });
  const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
  return { memories: memories.sort(byPath), files: files.sort(byPath) };
}

/**
 * Another agent in its own profile, and an SDK client of it: the tests that write a lot import into
 * another agent's record, so that no test waits for the per-agent limit of 100 requests a minute.
 */
async function otherAgent(profile: string): Promise<AgentMemory> {
  await cli.json(['init', '--profile', profile, '--base-url', server.url, '--name', profile, '--environment', 'test']);
  const config = JSON.parse(readFileSync(join(cli.configDir, 'agent-memory', 'config.json'), 'utf8'));
  return new AgentMemory({ baseUrl: server.url, apiKey: config.profiles[profile].apiKey });
}

const usageEntries = async () => (await sdk.billing.usagePage({ limit: 1 })).total;
const dataLines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').slice(1);

beforeAll(async () => {
  execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'tools', 'build-cli.js')], { stdio: 'inherit' });
  server = await startStandaloneServer();
  cli = new CliHarness();
  const agent = await cli.json(['init', '--base-url', server.url, '--name', 'transfer', '--environment', 'test']);
  source = agent.recordId;
  const config = JSON.parse(readFileSync(agent.configPath, 'utf8'));
  sdk = new AgentMemory({ baseUrl: server.url, apiKey: config.profiles.default.apiKey });
  for (const m of MEMORIES) await sdk.memories.remember(source, m);
  for (const f of FILES) await sdk.files.write(source, f);
  sourceSnapshot = await snapshot(source);
}, 120_000);
afterAll(async () => {
  cli?.cleanup();
  await server?.close({ removeData: true });
});

describe('agent-memory export and import', () => {
  const exported = () => join(cli.home, 'record.jsonl');

  it('exports a record as JSON Lines and imports it into a new record: same memories, types, paths and files', async () => {
    const result = await cli.json(['export', '-o', exported()]);
    expect(result).toMatchObject({ recordId: source, memories: MEMORIES.length, files: FILES.length });
    expect(existsSync(`${exported()}.checkpoint`)).toBe(false);
    const lines = readFileSync(exported(), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ kind: 'header', format: 'agent-memory-export', version: 1, recordId: source, recordName: 'transfer' });
    expect(lines.filter((l) => l.kind === 'memory')).toHaveLength(MEMORIES.length);
    expect(lines.filter((l) => l.kind === 'file')).toHaveLength(FILES.length);

    const run = await cli.run(['import', exported(), '--create-record', 'copy', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('30 writes a minute per record');
    const imported = JSON.parse(run.stdout);
    expect(imported).toMatchObject({ written: MEMORIES.length + FILES.length, memories: MEMORIES.length, files: FILES.length, alreadyComplete: false });
    expect(imported.recordId).not.toBe(source);
    expect(await snapshot(imported.recordId)).toEqual(sourceSnapshot);
  });

  it('a rerun of a finished import does nothing (its checkpoint); --restart is a new run that writes again what was forgotten since', async () => {
    const checkpoint = JSON.parse(readFileSync(`${exported()}.import-checkpoint`, 'utf8'));
    expect(checkpoint).toMatchObject({ complete: true, runId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const target = checkpoint.recordId as string;
    const charged = await usageEntries();

    const again = await cli.json(['import', exported(), '--create-record']);
    expect(again).toMatchObject({ recordId: target, written: 0, alreadyComplete: true });
    expect(await usageEntries()).toBe(charged);

    // the user forgets a memory within the 24 h of the first run's idempotency keys: a restart must
    // write it again, not replay the first run's answer
    await sdk.memories.forget(target, { path: 'ops/deploy-key' });
    const restart = await cli.json(['import', exported(), '--record', target, '--restart']);
    expect(restart).toMatchObject({ recordId: target, written: MEMORIES.length + FILES.length });
    expect(JSON.parse(readFileSync(`${exported()}.import-checkpoint`, 'utf8')).runId).not.toBe(checkpoint.runId);
    expect(await snapshot(target)).toEqual(sourceSnapshot);
  });

  it('an interrupted export continues where it stopped, without fetching again what it wrote', async () => {
    const output = join(cli.home, 'interrupted.jsonl');
    let memoryPages = 0;
    const holding = await startProxy(server.url, (req) => (req.url?.includes('/memories') && ++memoryPages === 2 ? 'hold' : 'forward'));
    const child = cli.spawn(['export', '-o', output, '--page-size', '2', '--base-url', holding.url]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    while (memoryPages < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;
    await holding.close();
    expect(JSON.parse(readFileSync(`${output}.checkpoint`, 'utf8'))).toMatchObject({ phase: 'memories', memories: 2 });
    expect(dataLines(output)).toHaveLength(2);

    const forwarding = await startProxy(server.url);
    const resumed = await cli.run(['export', '-o', output, '--page-size', '2', '--base-url', forwarding.url, '--json']);
    await forwarding.close();
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('Resuming the export');
    const memoryRequests = forwarding.seen.filter((line) => line.includes('/memories'));
    expect(memoryRequests[0]).toContain('cursor=');
    expect(memoryRequests).toHaveLength(Math.ceil(MEMORIES.length / 2) - 1);
    expect(existsSync(`${output}.checkpoint`)).toBe(false);
    expect(dataLines(output)).toEqual(dataLines(exported()));
  });

  it('an interrupted import continues after the last write it made, into the same new record', async () => {
    const input = join(cli.home, 'interrupted-import.jsonl');
    writeFileSync(input, readFileSync(exported()));
    let writes = 0;
    const other = await otherAgent('resumer');
    const holding = await startProxy(server.url, (req) => (req.method === 'POST' && /\/(remember|write)$/.test(req.url ?? '') && ++writes === 3 ? 'hold' : 'forward'));
    const child = cli.spawn(['import', input, '--create-record', 'resumed', '--profile', 'resumer', '--base-url', holding.url]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    while (writes < 3) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;
    await holding.close();
    const checkpoint = JSON.parse(readFileSync(`${input}.import-checkpoint`, 'utf8'));
    expect(checkpoint).toMatchObject({ linesDone: 3, itemsDone: 2, complete: false });

    const forwarding = await startProxy(server.url);
    const resumed = await cli.run(['import', input, '--create-record', '--profile', 'resumer', '--base-url', forwarding.url, '--json']);
    await forwarding.close();
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`Resuming the import into ${checkpoint.recordId} after line 3`);
    expect(forwarding.seen.filter((line) => line.startsWith('POST /api/v1/records'))).toHaveLength(MEMORIES.length + FILES.length - 2);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ recordId: checkpoint.recordId, written: MEMORIES.length + FILES.length - 2 });
    expect(await snapshot(checkpoint.recordId, other)).toEqual(sourceSnapshot);
  });

  it('waits out a 429 for its Retry-After and goes on with the same idempotency key', async () => {
    let remembers = 0;
    const proxy = await startProxy(server.url, (req) => {
      if (req.method === 'POST' && req.url?.endsWith('/remember') && ++remembers === 2) {
        return { status: 429, headers: { 'retry-after': '1' }, body: { success: false, error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: 30 writes per minute per record' } } };
      }
      return 'forward';
    });
    const other = await otherAgent('limited');
    const input = join(cli.home, 'limited.jsonl');
    writeFileSync(input, readFileSync(exported()));
    const started = Date.now();
    const run = await cli.run(['import', input, '--create-record', 'limited', '--profile', 'limited', '--base-url', proxy.url, '--json']);
    await proxy.close();
    expect(run.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(run.stderr).toContain('rate limited: waiting 1 s (Retry-After)');
    expect(remembers).toBe(MEMORIES.length + 1);
    const keys = proxy.bodies.filter((b) => b.request.endsWith('/remember')).map((b) => JSON.parse(b.body) as { path: string; idempotency_key: string });
    expect(keys[2]).toEqual(keys[1]);
    expect(new Set(keys.map((k) => k.idempotency_key)).size).toBe(MEMORIES.length);
    const { recordId } = JSON.parse(run.stdout);
    expect(await snapshot(recordId, other)).toEqual(sourceSnapshot);
  });

  it('refuses an input with a bad line before writing anything (its line number, exit 1)', async () => {
    const input = join(cli.home, 'bad.jsonl');
    const lines = readFileSync(exported(), 'utf8').trim().split('\n');
    lines[2] = JSON.stringify({ kind: 'memory', path: '../escape', type: 'fact', content: 'x' });
    writeFileSync(input, `${lines.join('\n')}\n`);
    const charged = await usageEntries();
    const run = await cli.run(['import', input, '--record', source]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: INVALID_INPUT: line 3: path: /m);
    expect(await usageEntries()).toBe(charged);
  });

  it('an export stopped in the files phase resumes after the last file it wrote, by path: a file added meanwhile shifts nothing', async () => {
    const init = await cli.json(['init', '--profile', 'files', '--base-url', server.url, '--name', 'files', '--environment', 'test']);
    const config = JSON.parse(readFileSync(join(cli.configDir, 'agent-memory', 'config.json'), 'utf8'));
    const owner = new AgentMemory({ baseUrl: server.url, apiKey: config.profiles.files.apiKey });
    for (const f of FILES) await owner.files.write(init.recordId, f);
    const output = join(cli.home, 'files-interrupted.jsonl');
    let reads = 0;
    const holding = await startProxy(server.url, (req) => (req.url?.includes('/read?') && ++reads === 2 ? 'hold' : 'forward'));
    const child = cli.spawn(['export', '-o', output, '--profile', 'files', '--base-url', holding.url]);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    while (reads < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;
    await holding.close();
    const firstPath = [...FILES].map((f) => f.path).sort()[0];
    expect(JSON.parse(readFileSync(`${output}.checkpoint`, 'utf8'))).toMatchObject({ version: 2, phase: 'files', files: 1, lastFilePath: firstPath });

    // an output shorter than its checkpoint says is refused, not appended to
    const damaged = join(cli.home, 'files-damaged.jsonl');
    writeFileSync(damaged, readFileSync(output).subarray(0, 10));
    writeFileSync(`${damaged}.checkpoint`, readFileSync(`${output}.checkpoint`));
    const refused = await cli.run(['export', '-o', damaged, '--profile', 'files']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('shorter than the');
    expect(readFileSync(damaged, 'utf8')).toHaveLength(10);

    // a file that sorts before the resume point appears meanwhile: by position, the first file would be written twice
    await owner.files.write(init.recordId, { path: 'a/added-meanwhile.md', content: 'new' });
    const resumed = await cli.run(['export', '-o', output, '--profile', 'files', '--json']);
    expect(resumed.code).toBe(0);
    const files = dataLines(output).map((l) => JSON.parse(l)).filter((l) => l.kind === 'file');
    expect(files.map((f) => f.path)).toEqual([...FILES].map((f) => f.path).sort());
    for (const f of files) expect(f.contentHash).toBe(`sha256:${createHash('sha256').update(f.content, 'utf8').digest('hex')}`);
  }, 120_000);
});
