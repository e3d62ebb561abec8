import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { MemoryTools } from './tools';

/** The name and version the server announces in `initialize`. */
export const MCP_SERVER_INFO = { name: 'agent-memory', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Long-term memory for this agent, kept in records (list_records shows them). Start with context to load what is known; ' +
  'recall to search by meaning; remember to keep something new (one idea per memory); forget to delete one. ' +
  'read_file and write_file keep whole text files. Errors name the service code (VALIDATION_ERROR, NOT_FOUND, RATE_LIMITED, ...).';

/**
 * An MCP server (protocol handling by the official SDK's `McpServer`) serving {@link MemoryTools}. The
 * `tools/list` and `tools/call` handlers are set on the SDK's server directly rather than through
 * `registerTool`, because `registerTool` turns an invalid argument into its own "Input validation error"
 * text: here an invalid argument is answered like the service answers it, `VALIDATION_ERROR` with the
 * field and the rule, as a tool error the model can correct. An unknown tool name is the protocol error
 * InvalidParams (-32602), as the MCP specification asks.
 */
export function createMcpServer(tools: MemoryTools): McpServer {
  const mcp = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
  mcp.server.registerCapabilities({ tools: {} });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.list() }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    if (!tools.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return tools.call(name, args, extra.signal);
  });
  return mcp;
}
