import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LIMITS } from '@agent-memory/shared';
import { bearerKey, checkHostAndOrigin, isLoopback, LOOPBACK_HOSTNAMES } from './http-guard';
import { createMcpServer } from './mcp-server';
import type { MemoryTools } from './tools';

/** The path the Streamable HTTP endpoint is served at. */
export const MCP_HTTP_PATH = '/mcp';

/**
 * Largest request body: a write_file of the largest file (1 MB of UTF-8) in JSON, where escaping may take
 * up to 6 bytes per byte, plus room for the JSON-RPC frame; the service itself refuses a write body over
 * about 6 MB (docs/api.md, "Errors at the HTTP edge").
 */
export const MAX_MCP_BODY_BYTES = 6 * LIMITS.fileContentBytes.max + 64 * 1024;

/**
 * Default cap on requests in flight (authenticated requests being read or answered): with bodies of up
 * to {@link MAX_MCP_BODY_BYTES} each, 8 bound the buffered bodies to ~50 MB; beyond it a request gets
 * 503 with `Retry-After`. `agent-memory mcp --http --max-in-flight <n>` changes it.
 */
export const DEFAULT_MCP_MAX_IN_FLIGHT = 8;
/** Time a client has to send a whole request (headers and body): 60 s, ample for 6 MB on a slow link. */
export const MCP_REQUEST_TIMEOUT_MS = 60_000;
/** Time a client has to send the request headers. */
export const MCP_HEADERS_TIMEOUT_MS = 15_000;

export interface McpHttpOptions {
  /** TCP port; 0 picks a free one. */
  port: number;
  /** Address to bind; default 127.0.0.1 (this machine only). */
  host?: string;
  /** Host names accepted in `Host` (and `Origin`); default the loopback names when bound to loopback. */
  allowedHosts?: string[];
  /** Extra browser origins accepted in `Origin` (e.g. `https://app.example`). */
  allowedOrigins?: string[];
  /** The tools acting as the agent whose key a request carries. */
  toolsFor(apiKey: string): MemoryTools;
  /** Requests in flight beyond which a request is answered 503 (default {@link DEFAULT_MCP_MAX_IN_FLIGHT}). */
  maxInFlight?: number;
  /** Time (ms) to receive a whole request, else 408 (default {@link MCP_REQUEST_TIMEOUT_MS}). */
  requestTimeoutMs?: number;
}

/** A running MCP HTTP server: its endpoint URL and how to stop it. */
export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

/** A JSON-RPC error answer outside any MCP session (the SDK's transports answer the same shape). */
function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 400 ? -32700 : -32000, message }, id: null }));
}

/** Reads the body up to `limit` bytes; undefined when it is larger (the rest is not read into memory). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Serves MCP over Streamable HTTP at `http://host:port/mcp`, stateless: each POST is handled by a fresh
 * SDK server and transport bound to the agent key of that request's `Authorization: Bearer` header, so
 * two callers never share a session, a client or an answer (no session id to guess or reuse). GET and
 * DELETE (server-sent streams and sessions, which a stateless server does not keep) answer 405. Host and
 * Origin are checked against DNS rebinding ({@link checkHostAndOrigin}) before anything else. Memory is
 * bounded before a body is read: a Bearer value not of the agent key shape is 401, a `Content-Length`
 * over {@link MAX_MCP_BODY_BYTES} is 413 (a body without one is cut at that size), more than
 * `maxInFlight` requests at once get 503 with `Retry-After: 1`, and a request not fully received within
 * `requestTimeoutMs` (headers within {@link MCP_HEADERS_TIMEOUT_MS}) gets 408.
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const allowedHosts = options.allowedHosts ?? (isLoopback(host) ? [...LOOPBACK_HOSTNAMES] : undefined);
  const maxInFlight = options.maxInFlight ?? DEFAULT_MCP_MAX_IN_FLIGHT;
  const requestTimeout = options.requestTimeoutMs ?? MCP_REQUEST_TIMEOUT_MS;
  let inFlight = 0;
  // a refusal sent before the body is read closes the connection, so the rest of the body is not taken in
  const closing = { connection: 'close' };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refusal = checkHostAndOrigin(req.headers, allowedHosts, options.allowedOrigins);
    if (refusal) return refuse(res, refusal.status, refusal.message);
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_HTTP_PATH) return refuse(res, 404, `Not found: the MCP endpoint is ${MCP_HTTP_PATH}`);
    if (req.method !== 'POST') return refuse(res, 405, 'Method not allowed: this stateless server takes POST only', { allow: 'POST' });
    const auth = bearerKey(req.headers);
    if ('status' in auth) return refuse(res, auth.status, auth.message, { 'www-authenticate': 'Bearer realm="agent-memory"', ...closing });
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && declared > MAX_MCP_BODY_BYTES) return refuse(res, 413, `Request body over ${MAX_MCP_BODY_BYTES} bytes`, closing);
    if (inFlight >= maxInFlight) return refuse(res, 503, `Busy: ${maxInFlight} requests in flight; retry shortly`, { 'retry-after': '1', ...closing });
    inFlight += 1;
    res.once('close', () => (inFlight -= 1));
    const text = await readBody(req, MAX_MCP_BODY_BYTES);
    if (text === undefined) return refuse(res, 413, `Request body over ${MAX_MCP_BODY_BYTES} bytes`, closing);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(res, 400, 'Parse error: the body is not JSON');
    }
    const mcp = createMcpServer(options.toolsFor(auth.key));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server: Server = createServer({ requestTimeout, headersTimeout: Math.min(MCP_HEADERS_TIMEOUT_MS, requestTimeout), connectionsCheckingInterval: Math.min(1000, requestTimeout) }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_HTTP_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
