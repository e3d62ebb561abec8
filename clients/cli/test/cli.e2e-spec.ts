import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalPaymentSettlement, startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import { BIN, CliHarness } from './cli.fixture';

// The CLI end to end: the real bin (the bundle the root postinstall builds, rebuilt here so that it is
// current) as a child process, against a real standalone server, with a temporary HOME.
let server: TestServer;
const settlement = new LocalPaymentSettlement();
let cli: CliHarness;
let agent: { agentId: string; recordId: string; configPath: string };

beforeAll(async () => {
  execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'tools', 'build-cli.js')], { stdio: 'inherit' });
  server = await startStandaloneServer({ paymentSettlement: settlement });
  cli = new CliHarness();
  agent = await cli.json(['init', '--base-url', server.url, '--name', 'cli e2e', '--environment', 'test']);
}, 120_000);
afterAll(async () => {
  cli?.cleanup();
  await server?.close({ removeData: true });
});

describe('agent-memory init and profiles', () => {
  it('creates an agent, keeps its key in a config file of mode 0600 in a directory of mode 0700, and prints the wallet key once with its warning', async () => {
    expect(agent.agentId).toMatch(/^agt_/);
    expect(agent.recordId).toMatch(/^rec_/);
    expect(agent.configPath).toBe(join(cli.configDir, 'agent-memory', 'config.json'));
    expect(statSync(agent.configPath).mode & 0o777).toBe(0o600);
    expect(statSync(join(cli.configDir, 'agent-memory')).mode & 0o777).toBe(0o700);
    const config = JSON.parse(readFileSync(agent.configPath, 'utf8'));
    expect(config.defaultProfile).toBe('default');
    expect(config.profiles.default).toMatchObject({ baseUrl: server.url, agentId: agent.agentId, recordId: agent.recordId, environment: 'test' });
    expect(config.profiles.default.apiKey).toMatch(/^amk_test_/);
    expect(config.profiles.default.walletPrivateKey).toBeUndefined();

    const text = await cli.run(['init', '--profile', 'second', '--base-url', server.url, '--name', 'second']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Wallet private key: 0x[0-9a-f]{64}/);
    expect(text.stdout).toContain('shown once');
    expect(text.stdout).toContain('shell history');
    expect(text.stdout).not.toContain('amk_');
    const profiles = await cli.json(['profiles', 'ls']);
    expect(profiles.profiles.map((p: { name: string }) => p.name).sort()).toEqual(['default', 'second']);
    expect(profiles.defaultProfile).toBe('default');
    expect(JSON.stringify(profiles)).not.toContain('amk_');
  });

  it('refuses to replace the agent of a profile without --force (exit 2, nothing changed)', async () => {
    const before = readFileSync(agent.configPath, 'utf8');
    const result = await cli.run(['init', '--base-url', server.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('already has agent');
    expect(readFileSync(agent.configPath, 'utf8')).toBe(before);
  });
});

describe('agent-memory remember, recall, context, forget', () => {
  it('remembers with a type and path, recalls as JSON and as a table, shows the context, forgets', async () => {
    const m1 = await cli.json(['remember', 'The deploy key rotates every Monday at 09:00 UTC.', '--type', 'fact', '--path', 'ops/deploy-key']);
    expect(m1).toMatchObject({ path: 'ops/deploy-key', type: 'fact', recordId: agent.recordId });
    await cli.json(['remember', 'Alice is the on-call engineer for the payments team.', '--type', 'relationship', '--path', 'people/alice']);
    const fromStdin = await cli.json(['remember', '-', '--type', 'skill'], { input: 'To restart the API, run systemctl restart api on the gateway host.' });
    expect(fromStdin.path).toMatch(/^skill\/mem_/);

    const recalled = await cli.json(['recall', 'when does the deploy key rotate?', '--limit', '3']);
    expect(recalled.memories[0]).toMatchObject({ path: 'ops/deploy-key', type: 'fact' });
    expect(recalled.count).toBe(recalled.memories.length);
    const typed = await cli.json(['recall', 'who is on call', '--types', 'relationship']);
    expect(typed.memories.map((m: { type: string }) => m.type)).toEqual(['relationship']);

    const table = await cli.run(['recall', 'when does the deploy key rotate?', '--limit', '3']);
    expect(table.code).toBe(0);
    for (const head of ['#', 'similarity', 'type', 'path', 'summary']) expect(table.stdout).toContain(head);
    expect(table.stdout).toMatch(/│ 1 +│ [01]\.\d{3} +│ fact +│ ops\/deploy-key/);

    const context = await cli.json(['context']);
    expect(context.fact.map((m: { path: string }) => m.path)).toContain('ops/deploy-key');
    expect(context.fact.find((m: { path: string }) => m.path === 'ops/deploy-key').content).toBe('The deploy key rotates every Monday at 09:00 UTC.');
    const contextText = await cli.run(['context']);
    expect(contextText.stdout).toMatch(/relationship \(1\)\n {2}people\/alice: /);

    expect(await cli.json(['forget', '--path', 'people/alice'])).toMatchObject({ deleted: true, path: 'people/alice' });
    const after = await cli.json(['context']);
    expect(after.relationship).toEqual([]);
  });

  it('reports a service error with its code, status and request id, exit code 1 (and the envelope with --json)', async () => {
    const text = await cli.run(['forget', '--path', 'no/such/memory']);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^error: NOT_FOUND \(status 404, request id [^)]+\): /m);
    const json = await cli.run(['forget', '--path', 'no/such/memory', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: false, error: { code: 'NOT_FOUND', status: 404 } });
    const tooLong = await cli.run(['recall', 'x'.repeat(1001)]);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain('VALIDATION_ERROR');
  });

  it('refuses bad usage before any request: both forget targets, an unknown type, a bad limit (exit != 0, clear message)', async () => {
    const both = await cli.run(['forget', '--path', 'a', '--id', 'mem_x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exactly one of --path or --id');
    const type = await cli.run(['remember', 'x', '--type', 'note']);
    expect(type.code).toBe(2);
    expect(type.stderr).toContain("Allowed choices are identity, fact, relationship, episode, skill");
    const limit = await cli.run(['recall', 'x', '--limit', '51']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit: must be a whole number from 1 to 50');
  });

  it('says how to get a key when there is none, and names an unreachable service', async () => {
    const noKey = await cli.run(['recall', 'x'], { env: { AGENT_MEMORY_CONFIG: join(cli.home, 'none.json') } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no agent key for profile "default": run `agent-memory init`');
    const down = await cli.run(['recall', 'x', '--base-url', 'http://127.0.0.1:9']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^error: NETWORK_ERROR/m);
  });
});

describe('agent-memory records and files', () => {
  it('creates a record and makes it the default, lists, writes and reads files, deletes the record', async () => {
    const record = await cli.json(['records', 'create', 'notes', '--tags', 'a,b', '--use']);
    expect(record).toMatchObject({ name: 'notes', tags: ['a', 'b'] });
    const listed = await cli.json(['records', 'ls']);
    expect(listed.records.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining([record.id, agent.recordId]));
    const table = await cli.run(['records', 'ls']);
    expect(table.stdout).toMatch(new RegExp(`│ \\* +│ ${record.id} +│ notes`));

    const local = join(cli.home, 'plan.md');
    writeFileSync(local, '# Plan\n\nShip the CLI. ünïcode ✓\n');
    expect(await cli.json(['files', 'put', 'docs/plan.md', local])).toMatchObject({ path: 'docs/plan.md', recordId: record.id, contentHash: expect.stringMatching(/^sha256:/) });
    await cli.json(['files', 'put', 'docs/inline.txt', '--content', 'inline']);
    await cli.json(['files', 'put', 'docs/stdin.txt', '-'], { input: 'from stdin' });
    const got = await cli.run(['files', 'get', 'docs/plan.md']);
    expect(got.stdout).toBe('# Plan\n\nShip the CLI. ünïcode ✓\n');
    expect((await cli.json(['files', 'get', 'docs/stdin.txt'])).content).toBe('from stdin');
    const out = join(cli.home, 'out.txt');
    await cli.json(['files', 'get', 'docs/inline.txt', '-o', out]);
    expect(readFileSync(out, 'utf8')).toBe('inline');
    // the record of the profile is the default; --record picks another
    expect((await cli.run(['files', 'get', 'docs/plan.md', '--record', agent.recordId])).stderr).toContain('NOT_FOUND');

    expect(await cli.json(['records', 'rm', record.id])).toMatchObject({ deleted: true, deletedRecordIds: [record.id] });
    const config = JSON.parse(readFileSync(agent.configPath, 'utf8'));
    expect(config.profiles.default.recordId).toBeUndefined();
    const noRecord = await cli.run(['recall', 'x']);
    expect(noRecord.code).toBe(2);
    expect(noRecord.stderr).toContain('no record');
    await cli.json(['records', 'use', agent.recordId]);
  });

  it('pays a live top-up from the agent\'s wallet: the saved key, or AGENT_MEMORY_WALLET_PRIVATE_KEY; none is a clear error', async () => {
    const live = await cli.json(['init', '--profile', 'live', '--base-url', server.url, '--name', 'live', '--save-wallet-key']);
    expect(live.walletPrivateKeySaved).toBe(true);
    const paid = await cli.json(['pay', '1.50', '--profile', 'live']);
    expect(paid).toMatchObject({ creditedMicroUsd: 1_500_000, balanceMicroUsd: 1_500_000 });
    expect(settlement.settled.at(-1)?.authorization).toMatchObject({ from: live.walletAddress, value: '1500000' });
    expect((await cli.json(['balance', '--profile', 'live'])).balanceMicroUsd).toBe(1_500_000);

    const other = await cli.json(['init', '--profile', 'unsaved', '--base-url', server.url, '--name', 'unsaved']);
    const refused = await cli.run(['pay', '1', '--profile', 'unsaved']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('AGENT_MEMORY_WALLET_PRIVATE_KEY');
    const fromEnv = await cli.json(['pay', '0.25', '--profile', 'unsaved'], { env: { AGENT_MEMORY_WALLET_PRIVATE_KEY: other.walletPrivateKey } });
    expect(fromEnv).toMatchObject({ creditedMicroUsd: 250_000 });
  });

  it('shows the balance and adds sandbox credit to a test agent', async () => {
    const before = await cli.json(['balance']);
    const paid = await cli.json(['pay', '5']);
    expect(paid.balanceMicroUsd).toBe(before.balanceMicroUsd + 5_000_000);
  });
});

describe('the bin', () => {
  // A bundle this suite built and names with AGENT_MEMORY_CLI_BUNDLE: whether dist/main.js is current
  // depends on every source's mtime, which any edit during the run changes (the bin then, rightly, runs
  // the source), so the start-up test must not depend on it.
  let ownBundleDir: string;
  let ownBundle: string;
  beforeAll(() => {
    ownBundleDir = mkdtempSync(join(__dirname, '..', 'dist', '.e2e-'));
    ownBundle = join(ownBundleDir, 'main.js');
    execFileSync(process.execPath, [join(__dirname, '..', '..', '..', 'tools', 'build-cli.js'), '--out', ownBundle], { stdio: 'inherit' });
  }, 120_000);
  afterAll(() => rmSync(ownBundleDir, { recursive: true, force: true }));

  it('starts --help without loading the SDK, zod, viem or the table and progress libraries (start-up time)', () => {
    const trace = join(cli.home, 'trace-modules.js');
    writeFileSync(trace, "process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(require.cache))));\n");
    const run = spawnSync(process.execPath, [BIN, '--help'], { env: cli.env({ NODE_OPTIONS: `--require ${trace}`, AGENT_MEMORY_CLI_BUNDLE: ownBundle }), encoding: 'utf8' });
    expect(run.status).toBe(0);
    const loaded = JSON.parse(run.stderr) as string[];
    expect(loaded).toContain(ownBundle);
    for (const heavy of ['zod', 'viem', 'mppx', 'cli-table3', 'cli-progress', '@swc-node']) {
      expect(loaded.filter((path) => path.includes(`${join('node_modules', heavy)}${'/'}`))).toEqual([]);
    }
  });

  it('runs from the TypeScript source when asked (the fallback of a missing or stale bundle)', () => {
    const help = execFileSync(process.execPath, [BIN, '--help'], { env: { ...cli.env(), AGENT_MEMORY_CLI_FROM_SOURCE: '1' }, encoding: 'utf8' });
    expect(help).toContain('Usage: agent-memory');
    expect(help).toContain('import [options] <file>');
  });

  it('without a bundle and without @swc-node/register (npm install --omit=dev) says how to build, exit 2', () => {
    // the bin and bundle-state.js alone in a tree with no bundle and no node_modules
    const bare = join(cli.home, 'bare', 'clients', 'cli', 'bin');
    mkdirSync(bare, { recursive: true });
    for (const file of ['agent-memory.js', 'bundle-state.js']) copyFileSync(join(__dirname, '..', 'bin', file), join(bare, file));
    const run = spawnSync(process.execPath, [join(bare, 'agent-memory.js'), '--help'], { env: cli.env(), cwd: cli.home, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('@swc-node/register');
    expect(run.stderr).toContain(join('tools', 'build-cli.js'));
    expect(run.stderr).not.toContain('MODULE_NOT_FOUND');
  });
});
