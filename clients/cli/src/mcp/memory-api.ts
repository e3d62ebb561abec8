import type {
  ContextResponse,
  ForgetResponse,
  ReadFileResponse,
  RecallResponse,
  RecordList,
  RememberResponse,
  WriteFileResponse,
} from '@agent-memory/shared';
import type { ToolArgs } from './tool-schemas';

/**
 * What the MCP tools need of the service, one method per tool, in the tools' own argument shapes. The
 * implementation goes through the SDK `@agent-memory/client` (./sdk-memory-api.ts); the tools stay
 * independent of it. Every method rejects with the SDK's error (code, status, message) when the service
 * answers an error; {@link toolErrorOf} turns that into the tool error. `signal` is the MCP request's: a
 * client that cancels the tool call aborts the HTTP call.
 */
export interface MemoryApi {
  remember(args: ToolArgs<'remember'>, signal?: AbortSignal): Promise<RememberResponse>;
  recall(args: ToolArgs<'recall'>, signal?: AbortSignal): Promise<RecallResponse>;
  forget(recordId: string, target: { path: string } | { id: string }, signal?: AbortSignal): Promise<ForgetResponse>;
  context(args: ToolArgs<'context'>, signal?: AbortSignal): Promise<ContextResponse>;
  readFile(args: ToolArgs<'read_file'>, signal?: AbortSignal): Promise<ReadFileResponse>;
  writeFile(args: ToolArgs<'write_file'>, signal?: AbortSignal): Promise<WriteFileResponse>;
  listRecords(args: ToolArgs<'list_records'>, signal?: AbortSignal): Promise<RecordList>;
}

/** The error a tool answers: the spec's code (docs/api.md, "Errors") or NETWORK_ERROR, its message, and the request id when known. */
export interface ToolError {
  code: string;
  message: string;
  requestId?: string;
  /** RATE_LIMITED: seconds to wait before retrying (the service's `Retry-After`). */
  retryAfterSeconds?: number;
}

/**
 * Reads `{ code, message, requestId }` from an error the SDK raised (its `AgentMemoryError` subclasses
 * carry the service's code and, for RATE_LIMITED, `retryAfterSeconds`; `AgentMemoryNetworkError` has code
 * NETWORK_ERROR). Anything else (a bug) is
 * INTERNAL_ERROR with its message, so a tool call never crashes the MCP session.
 */
export function toolErrorOf(error: unknown): ToolError {
  if (error instanceof Error) {
    const { code, requestId, retryAfterSeconds } = error as Error & { code?: unknown; requestId?: unknown; retryAfterSeconds?: unknown };
    return {
      code: typeof code === 'string' ? code : 'INTERNAL_ERROR',
      message: error.message,
      ...(typeof requestId === 'string' ? { requestId } : {}),
      ...(typeof retryAfterSeconds === 'number' ? { retryAfterSeconds } : {}),
    };
  }
  return { code: 'INTERNAL_ERROR', message: String(error) };
}
