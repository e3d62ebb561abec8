import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '@agent-memory/shared';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';
import { MAX_MCP_BODY_BYTES, serveMcpHttp, type McpHttpServer } from '../src/mcp/http';
import { sdkMemoryApi } from '../src/mcp/sdk-memory-api';
import { MemoryTools } from '../src/mcp/tools';
import { call, checkListedTools, exerciseTools, freshAgent } from './mcp.fixture';

// `agent-memory mcp --http` (clients/cli/README.md, "MCP"): the MCP SDK's own Client over Streamable HTTP
// against the MCP server in front of a real standalone server; each request acts as the agent of its Bearer key.

let server: TestServer;
let mcp: McpHttpServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startStandaloneServer({ env: { RATE_LIMITS: 'off' } });
  mcp = await serveMcpHttp({ port: 0, toolsFor: (apiKey) => new MemoryTools(sdkMemoryApi({ baseUrl: server.url, apiKey })) });
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await mcp?.close();
  await server?.close({ removeData: true });
});

async function connect(agentKey: string): Promise<Client> {
  const client = new Client({ name: 'mcp-http-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { authorization: `Bearer ${agentKey}` } } }));
  clients.push(client);
  return client;
}

it('binds 127.0.0.1 and serves /mcp', () => {
  expect(mcp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
});

it('lists the seven tools with input schemas', async () => {
  const client = await connect((await freshAgent(server.url)).agentKey);
  expect(client.getServerVersion()).toMatchObject({ name: 'agent-memory' });
  await checkListedTools(client);
});

it('remembers, recalls, gives context, writes and reads files, lists records, refuses bad input, forgets', async () => {
  const { agentKey, recordId } = await freshAgent(server.url);
  await exerciseTools(await connect(agentKey), recordId);
}, 120_000);

it("isolates agents: agent B's session sees none of agent A's records or memories", async () => {
  const a = await freshAgent(server.url);
  const b = await freshAgent(server.url);
  const [clientA, clientB] = await Promise.all([connect(a.agentKey), connect(b.agentKey)]);
  expect((await call(clientA, 'remember', { record_id: a.recordId, content: 'Agent A keeps the launch codes in the blue binder.', path: 'secret' })).isError).toBe(false);

  const listedByB = await call(clientB, 'list_records', {});
  expect(listedByB.structured!.records.map((r: any) => r.id)).toEqual([b.recordId]);
  for (const [name, args] of [
    ['recall', { record_id: a.recordId, query: 'launch codes' }],
    ['context', { record_id: a.recordId }],
    ['forget', { record_id: a.recordId, path: 'secret' }],
  ] as const) {
    const refused = await call(clientB, name, args);
    expect(refused).toMatchObject({ isError: true, structured: { error: { code: 'NOT_FOUND' } } });
  }
  const ownRecall = await call(clientB, 'recall', { record_id: b.recordId, query: 'launch codes' });
  expect(ownRecall.structured!.memories).toEqual([]);
  // A's memory survived B's forget attempt, and A's session still acts as A
  const stillThere = await call(clientA, 'recall', { record_id: a.recordId, query: 'launch codes' });
  expect(stillThere.structured!.memories.map((m: any) => m.path)).toEqual(['secret']);
}, 120_000);

it('carries the largest file (1 MB) both ways, refuses one byte more, and answers an unknown tool with InvalidParams', async () => {
  const { agentKey, recordId } = await freshAgent(server.url);
  const client = await connect(agentKey);
  const largest = 'a'.repeat(LIMITS.fileContentBytes.max - 2) + '\u00e9';
  expect((await call(client, 'write_file', { record_id: recordId, path: 'big.txt', content: largest })).isError).toBe(false);
  const read = await call(client, 'read_file', { record_id: recordId, path: 'big.txt' });
  expect(read.text === largest).toBe(true);
  const over = await call(client, 'write_file', { record_id: recordId, path: 'big.txt', content: `${largest}a` });
  expect(over).toMatchObject({ isError: true, structured: { error: { code: 'VALIDATION_ERROR' } } });
  const unknown = client.callTool({ name: 'no_such_tool', arguments: {} });
  await expect(unknown).rejects.toBeInstanceOf(McpError);
  await expect(unknown).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
}, 120_000);

describe('the real command: agent-memory mcp --http', () => {
  const bin = join(__dirname, '..', 'bin', 'agent-memory.js');
  const env = { PATH: process.env.PATH ?? '', HOME: tmpdir(), AGENT_MEMORY_CONFIG: join(tmpdir(), 'agent-memory-mcp-none.json'), AGENT_MEMORY_CLI_FROM_SOURCE: '1' };

  it('prints its URL on stderr, serves each caller as its own agent, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--http', '0'], { env: { ...env, AGENT_MEMORY_URL: server.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const deadline = Date.now() + 60_000;
      while (!/http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toMatch(/^agent-memory MCP server \(Streamable HTTP\) at http:\/\/127\.0\.0\.1:\d+\/mcp, for the service at /);
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)![0];
      const { agentKey, recordId } = await freshAgent(server.url);
      const client = new Client({ name: 'mcp-cli-http-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${agentKey}` } } }));
      expect((await call(client, 'list_records', {})).structured!.records.map((r: any) => r.id)).toEqual([recordId]);
      await client.close();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  }, 90_000);

  it('refuses --record with --http (a record belongs to one agent) as a usage error', async () => {
    // Asynchronous on purpose: spawnSync would block this process's event loop for the CLI's whole run, and
    // a keep-alive socket of the fetches around it that the server closed meanwhile (its 5 s idle timeout)
    // would then be reused before the client noticed: ECONNRESET in the next test.
    const run = await promisify(execFile)(process.execPath, [bin, 'mcp', '--http', '0', '--record', 'rec_abc'], { env, encoding: 'utf8', timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--record applies to stdio only');
  }, 90_000);
});

describe('the HTTP edge', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (headers: Record<string, string>, body: unknown = initialize, path = '/mcp') =>
    fetch(new URL(path, mcp.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  /** POSTs initialize with this Host header (fetch always sends the URL's host). */
  const statusWithHost = (host: string, headers: Record<string, string>) =>
    new Promise<number | undefined>((resolve, reject) => {
      const req = request(mcp.url, { method: 'POST', headers: { ...headers, host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(JSON.stringify(initialize));
    });

  it('answers 401 with a Bearer challenge without an agent key', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('Bearer') } });
  });

  it('refuses a foreign Host or Origin (DNS rebinding) before anything else', async () => {
    const { agentKey } = await freshAgent(server.url);
    const auth = { authorization: `Bearer ${agentKey}` };
    expect(await statusWithHost('evil.example:80', auth)).toBe(403);
    expect(await statusWithHost(`localhost:${new URL(mcp.url).port}`, auth)).toBe(200);
    const foreignOrigin = await post({ ...auth, origin: 'http://evil.example' });
    expect(foreignOrigin.status).toBe(403);
    expect(await foreignOrigin.json()).toMatchObject({ error: { message: 'Invalid Origin: http://evil.example' } });
    expect((await post({ ...auth, origin: `http://localhost:${new URL(mcp.url).port}` })).status).toBe(200);
  });

  it('takes POST at /mcp only, and JSON bodies only', async () => {
    const { agentKey } = await freshAgent(server.url);
    const auth = { authorization: `Bearer ${agentKey}` };
    expect((await fetch(mcp.url, { headers: auth })).status).toBe(405);
    expect((await post(auth, initialize, '/other')).status).toBe(404);
    const notJson = await fetch(mcp.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('answers an unknown agent key as a tool error UNAUTHORIZED, not a crash', async () => {
    const client = await connect(`amk_test_${'unknown'.repeat(6)}x`);
    const result = await call(client, 'list_records', {});
    expect(result).toMatchObject({ isError: true, structured: { error: { code: 'UNAUTHORIZED' } } });
  });

  /** Sends headers (and `body`, if any) without ending the request; answers the status, or 'closed' when the socket closed without one. */
  const partialRequest = (url: string, headers: Record<string, string>, body = '') =>
    new Promise<{ status: number | 'closed'; headers: Record<string, unknown>; req: ReturnType<typeof request> }>((resolve) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers, req });
      });
      req.on('error', () => resolve({ status: 'closed', headers: {}, req }));
      req.flushHeaders();
      if (body) req.write(body);
    });

  it('refuses a Bearer value that is not an agent key with 401 before reading the body', async () => {
    const started = Date.now();
    const answer = await partialRequest(mcp.url, { authorization: `Bearer ${'x'.repeat(64)}`, 'content-length': String(MAX_MCP_BODY_BYTES) }, '{');
    answer.req.destroy();
    expect(answer.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a Content-Length over the limit with 413 before reading the body', async () => {
    const { agentKey } = await freshAgent(server.url);
    const answer = await partialRequest(mcp.url, { authorization: `Bearer ${agentKey}`, 'content-length': String(MAX_MCP_BODY_BYTES + 1) }, '{');
    answer.req.destroy();
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
  });

  it('answers 503 with Retry-After beyond the requests in flight it allows, and 408 to a request never finished', async () => {
    const small = await serveMcpHttp({ port: 0, maxInFlight: 1, requestTimeoutMs: 1500, toolsFor: (apiKey) => new MemoryTools(sdkMemoryApi({ baseUrl: server.url, apiKey })) });
    try {
      const { agentKey } = await freshAgent(server.url);
      const auth = { authorization: `Bearer ${agentKey}` };
      // the first request sends half its body and stalls: it holds the only slot
      const stalled = partialRequest(small.url, { ...auth, 'content-length': '1000' }, '{"jsonrpc":');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const busy = await fetch(small.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      const started = Date.now();
      const timedOut = await stalled;
      expect([408, 'closed']).toContain(timedOut.status);
      expect(Date.now() - started).toBeLessThan(5000);
      // the slot is free again
      const after = await fetch(small.url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
      expect(after.status).toBe(200);
    } finally {
      await small.close();
    }
  }, 30_000);
});
