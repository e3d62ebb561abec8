import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { commandContext, requireApiKey, type GlobalOptions } from '../config/context';
import { CliError } from '../output/errors';
import { intOption } from '../sdk';
import { serveMcpHttp, type McpHttpServer } from './http';
import { createMcpServer } from './mcp-server';
import { sdkMemoryApi } from './sdk-memory-api';
import { MemoryTools } from './tools';

/** Options of `agent-memory mcp` (clients/cli/README.md, "MCP"). */
export interface McpCommandOptions {
  /** Serve Streamable HTTP on this port instead of stdio. */
  http?: string;
  /** Address to bind with `--http` (default 127.0.0.1). */
  host?: string;
  /** Comma-separated host names accepted in the Host header with `--http`. */
  allowedHosts?: string;
  /** Comma-separated browser origins accepted with `--http`. */
  allowedOrigins?: string;
  /** Requests handled at once with `--http` (default 8); more get 503. */
  maxInFlight?: string;
  /** Default record of the tools (stdio only). */
  record?: string;
}

const list = (value: string | undefined) =>
  value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** A TCP port from the command line (0 = any free port). */
function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new CliError(`--http: "${value}" is not a port (0-65535)`);
  return port;
}

/**
 * Serves MCP over stdio: the agent key comes from `AGENT_MEMORY_API_KEY` or the profile (CONFIG_ERROR
 * without one), the service URL from `--base-url`, `AGENT_MEMORY_URL` or the profile, and the tools'
 * default record from `--record`, `AGENT_MEMORY_RECORD` or the profile's record. Resolves when stdin
 * closes (the host ended the session). Nothing but protocol messages is written to stdout.
 */
export async function serveStdio(globals: GlobalOptions, options: McpCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const ctx = commandContext(globals, env);
  const apiKey = requireApiKey(ctx);
  const defaultRecordId = options.record ?? env.AGENT_MEMORY_RECORD ?? ctx.profile.recordId;
  const mcp = createMcpServer(new MemoryTools(sdkMemoryApi({ baseUrl: ctx.baseUrl, apiKey }), { defaultRecordId }));
  const ended = new Promise<void>((resolve) => process.stdin.once('end', resolve));
  await mcp.connect(new StdioServerTransport());
  await ended;
  await mcp.close();
}

/**
 * Serves MCP over Streamable HTTP (./http.ts) until SIGINT or SIGTERM. Each request acts as the agent
 * whose key its `Authorization: Bearer` header carries; the profile's key is not used, and there is no
 * default record (a record belongs to one agent).
 */
export async function serveHttp(globals: GlobalOptions, options: McpCommandOptions & { http: string }): Promise<McpHttpServer> {
  if (options.record !== undefined) throw new CliError('--record applies to stdio only: over HTTP each caller is its own agent and names its records');
  const ctx = commandContext(globals);
  const server = await serveMcpHttp({
    port: parsePort(options.http),
    host: options.host,
    allowedHosts: list(options.allowedHosts),
    allowedOrigins: list(options.allowedOrigins),
    maxInFlight: intOption('--max-in-flight', options.maxInFlight, 1, 1000),
    toolsFor: (apiKey) => new MemoryTools(sdkMemoryApi({ baseUrl: ctx.baseUrl, apiKey })),
  });
  ctx.out.notice(`agent-memory MCP server (Streamable HTTP) at ${server.url}, for the service at ${ctx.baseUrl}; each request acts as the agent of its Authorization: Bearer key. Ctrl-C stops it.`);
  const stop = () => void server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return server;
}
