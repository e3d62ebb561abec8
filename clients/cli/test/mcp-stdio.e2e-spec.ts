import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import { call, checkListedTools, exerciseTools, freshAgent } from './mcp.fixture';

// `agent-memory mcp` over stdio (clients/cli/README.md, "MCP"): the MCP SDK's own Client spawns the real
// CLI entry (bin/agent-memory.js, from source) with the agent key in the environment, as an MCP host does.

const BIN = join(__dirname, '..', 'bin', 'agent-memory.js');
let server: TestServer;
let home: string;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startStandaloneServer({ env: { RATE_LIMITS: 'off' } });
  home = mkdtempSync(join(tmpdir(), 'agent-memory-mcp-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close({ removeData: true });
  rmSync(home, { recursive: true, force: true });
});

/** The environment an MCP host gives the command: PATH, a HOME without a config file, and the AGENT_MEMORY_* settings. */
function hostEnv(settings: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, AGENT_MEMORY_CONFIG: join(home, 'config.json'), AGENT_MEMORY_CLI_FROM_SOURCE: '1', ...settings };
}

async function spawnMcp(settings: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-stdio-e2e', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: hostEnv(settings), stderr: 'pipe' }));
  clients.push(client);
  return client;
}

it('lists the seven tools and runs each one as the agent of AGENT_MEMORY_API_KEY', async () => {
  const { agentKey, recordId } = await freshAgent(server.url);
  const client = await spawnMcp({ AGENT_MEMORY_URL: server.url, AGENT_MEMORY_API_KEY: agentKey });
  expect(client.getServerVersion()).toMatchObject({ name: 'agent-memory' });
  await checkListedTools(client);
  await exerciseTools(client, recordId);
}, 180_000);

it('uses AGENT_MEMORY_RECORD as the default record, so record_id may be left out', async () => {
  const { agentKey, recordId } = await freshAgent(server.url);
  const client = await spawnMcp({ AGENT_MEMORY_URL: server.url, AGENT_MEMORY_API_KEY: agentKey, AGENT_MEMORY_RECORD: recordId });
  const { tools } = await client.listTools();
  const remember = tools.find((t) => t.name === 'remember')!;
  expect(remember.inputSchema.required).toEqual(['content']);
  expect(remember.inputSchema.properties!.record_id).toMatchObject({ default: recordId });
  const stored = await call(client, 'remember', { content: 'Our standup is at 10:15 every weekday.', path: 'team/standup' });
  expect(stored).toMatchObject({ isError: false, structured: { path: 'team/standup' } });
  const read = await call(client, 'context', {});
  expect(Object.values(read.structured!).flat().map((m: any) => m.path)).toEqual(['team/standup']);
}, 180_000);

it('exits with CONFIG_ERROR, and nothing on stdout, when no agent key is configured', () => {
  const run = spawnSync(process.execPath, [BIN, 'mcp'], { env: hostEnv({ AGENT_MEMORY_URL: server.url }), input: '', encoding: 'utf8', timeout: 60_000 });
  expect(run.status).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain('AGENT_MEMORY_API_KEY');
}, 90_000);
