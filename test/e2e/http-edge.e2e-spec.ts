import { connect } from 'node:net';
import { ApiClient } from '@agent-memory/testing';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/**
 * The HTTP edge below the routes (docs/api.md "Errors at the HTTP edge"; docs/authentication.md): what
 * Node's HTTP parser and Fastify's router refuse (malformed URLs, overlong path segments, invalid or
 * oversized headers) and duplicated `Authorization` headers answer the failure envelope with one of the codes of docs/api.md,
 * never echoing the input. Cluster mode's gateway builds its HTTP app with the same functions
 * (services/gateway/src/http-app.ts), so one standalone run covers both modes.
 */
let server: TestServer;
let api: ApiClient;
let port: number;

beforeAll(async () => {
  server = await startStandaloneServer();
  api = new ApiClient(server.url);
  port = Number(new URL(server.url).port);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` as raw bytes (the client libraries refuse to send malformed requests) and reads the
 * answer until the server closes the connection (every request here says `Connection: close`).
 */
function rawRequest(request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      let body = split < 0 ? '' : text.slice(split + 4);
      if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body });
    });
    socket.write(request);
  });
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

function get(path: string, headers: string[] = []): string {
  return [`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headers, 'Connection: close', '', ''].join('\r\n');
}

/** The answer is the failure envelope with `code`, as JSON, and does not contain `echo`. */
function expectEnvelope(res: RawResponse, status: number, code: string, echo: string[]): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as { success: boolean; error: { code: string; message: string } };
  expect(body).toEqual({ success: false, error: { code, message: expect.any(String) } });
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const e of echo) expect(res.body).not.toContain(e);
  expect(res.body).not.toMatch(/FST_|statusCode/);
}

describe('framework errors answer the envelope', () => {
  it('a malformed percent-escape in the path is VALIDATION_ERROR, not FST_ERR_BAD_URL', async () => {
    const res = await rawRequest(get('/api/v1/records/%ff-canary/context'));
    expectEnvelope(res, 400, 'VALIDATION_ERROR', ['%ff', 'canary']);
  });

  it('an overlong id is treated like any other malformed id (no 414, no echo)', async () => {
    const id = `rec_${'x'.repeat(5_000)}canary`;
    const anonymous = await rawRequest(get(`/api/v1/records/${id}/context`));
    expectEnvelope(anonymous, 401, 'UNAUTHORIZED', ['xxxxxxxx', 'canary']);
    const { agentKey } = await api.createAgent({ name: 'edge' });
    const own = await rawRequest(get(`/api/v1/records/${id}/context`, [`Authorization: Bearer ${agentKey}`]));
    expectEnvelope(own, 404, 'NOT_FOUND', ['xxxxxxxx', 'canary']);
  });

  it('a NUL byte in a header value is VALIDATION_ERROR', async () => {
    const res = await rawRequest(get('/api/v1/agents', ['X-Probe: ab\0canary']));
    expectEnvelope(res, 400, 'VALIDATION_ERROR', ['canary']);
  });

  it('a 70 KB header is VALIDATION_ERROR (the error codes have no 431)', async () => {
    const res = await rawRequest(get('/api/v1/agents', [`X-Probe: canary${'y'.repeat(70 * 1024)}`]));
    expectEnvelope(res, 400, 'VALIDATION_ERROR', ['canary', 'yyyyyyyy']);
  });

  it('a malformed request line is VALIDATION_ERROR', async () => {
    const res = await rawRequest('G\0T /canary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expectEnvelope(res, 400, 'VALIDATION_ERROR', ['canary']);
  });

  it('a malformed request after a served one on a keep-alive connection is answered too', async () => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    while (!/\r\n\r\n[\s\S]*"status":"ok"/.test(text)) await new Promise((r) => setTimeout(r, 10));
    text = '';
    socket.write(`GET /api/v1/agents HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Probe: a\0canary\r\n\r\n`);
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    expect(text).not.toContain('canary');
  });

  it('an unknown route is still NOT_FOUND', async () => {
    const res = await rawRequest(get('/api/v1/no-such-route-canary'));
    expectEnvelope(res, 404, 'NOT_FOUND', ['canary']);
  });
});

describe('duplicated Authorization headers', () => {
  it('are refused with VALIDATION_ERROR, whichever credential comes first', async () => {
    const { agentKey } = await api.createAgent({ name: 'dup-auth' });
    const valid = await rawRequest(get('/api/v1/agents', [`Authorization: Bearer ${agentKey}`]));
    expect(valid.status).toBe(200);
    for (const pair of [
      [`Bearer ${agentKey}`, 'Bearer amk_live_wrong'],
      ['Bearer amk_live_wrong', `Bearer ${agentKey}`],
      [`Bearer ${agentKey}`, `Bearer ${agentKey}`],
    ]) {
      const res = await rawRequest(get('/api/v1/agents', pair.map((v) => `Authorization: ${v}`)));
      expectEnvelope(res, 400, 'VALIDATION_ERROR', [agentKey, 'amk_live_wrong']);
      expect(JSON.parse(res.body).error.message).toMatch(/Authorization/);
    }
  });

  it('are refused on routes that need no authentication too', async () => {
    const res = await rawRequest(
      [
        'POST /api/v1/agents HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Authorization: Bearer a',
        'Authorization: Bearer b',
        'Content-Type: application/json',
        'Content-Length: 12',
        'Connection: close',
        '',
        '{"name":"x"}',
      ].join('\r\n'),
    );
    expectEnvelope(res, 400, 'VALIDATION_ERROR', []);
    expect(JSON.parse(res.body).error.message).toMatch(/Authorization/);
  });
});
