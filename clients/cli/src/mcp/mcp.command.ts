import { Command } from 'commander';
import type { GlobalOptions } from '../config/context';
import { describeError, formatError } from '../output/errors';
import type { McpCommandOptions } from './serve';

/**
 * `agent-memory mcp`: the Model Context Protocol server (clients/cli/README.md, "MCP"), over stdio by
 * default (for an MCP host that starts it: Claude Desktop, an IDE, an agent framework) or over
 * Streamable HTTP with `--http <port>`. Its tools are remember, recall, forget, context, read_file,
 * write_file and list_records. The server code (and the MCP SDK) loads only when the command runs.
 */
export function mcpCommand(): Command {
  return new Command('mcp')
    .description('serve the Model Context Protocol (tools: remember, recall, forget, context, read_file, write_file, list_records) over stdio, or Streamable HTTP with --http')
    .option('--http <port>', 'serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio; each request uses its own Authorization: Bearer <agent key>')
    .option('--host <address>', 'address to bind with --http (default 127.0.0.1: this machine only)')
    .option('--allowed-hosts <names>', 'with --http: comma-separated host names accepted in the Host header (default: localhost, 127.0.0.1, [::1] when bound to loopback)')
    .option('--allowed-origins <origins>', 'with --http: comma-separated browser origins accepted besides the allowed hosts')
    .option('--max-in-flight <n>', 'with --http: requests handled at once; more are answered 503 with Retry-After (default 8)')
    .option('-r, --record <recordId>', 'stdio: the record the tools use when a call names none (env AGENT_MEMORY_RECORD; default: the profile\'s record)')
    .action(async (options: McpCommandOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      try {
        const serve = await import('./serve');
        if (options.http !== undefined) await serve.serveHttp(globals, { ...options, http: options.http });
        else await serve.serveStdio(globals, options);
      } catch (error) {
        const described = describeError(error);
        process.stderr.write(`${formatError(described)}\n`);
        process.exitCode = described.exitCode;
      }
    });
}
