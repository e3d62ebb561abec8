/**
 * A failure the CLI reports and exits on: a usage or configuration problem (`code` USAGE_ERROR or
 * CONFIG_ERROR, exit code 2) found before any request, or, wrapped by {@link describeError}, an error
 * answer of the service (its code, status and request id; exit code 1).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: string = 'USAGE_ERROR',
    readonly exitCode: number = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** An error as the CLI prints it: `code`, `message`, and when the service answered, `status` and `requestId`. */
export interface DescribedError {
  code: string;
  message: string;
  status?: number;
  requestId?: string;
  exitCode: number;
}

/**
 * Describes any thrown value for printing. Errors of the SDK (`AgentMemoryError`, the network error)
 * are recognised by shape (`code` and `status`), so this module needs no import of the SDK.
 */
export function describeError(error: unknown): DescribedError {
  if (error instanceof CliError) return { code: error.code, message: error.message, exitCode: error.exitCode };
  if (error instanceof Error) {
    const e = error as Error & { code?: unknown; status?: unknown; requestId?: unknown };
    if (typeof e.code === 'string' && typeof e.status === 'number') {
      return {
        code: e.code,
        message: error.message,
        status: e.status || undefined,
        requestId: typeof e.requestId === 'string' ? e.requestId : undefined,
        exitCode: 1,
      };
    }
    return { code: 'ERROR', message: error.message, exitCode: 1 };
  }
  return { code: 'ERROR', message: String(error), exitCode: 1 };
}

/** The text line of an error for stderr: `error: CODE (status 404, request id …): message`. */
export function formatError(described: DescribedError): string {
  const where = [described.status ? `status ${described.status}` : undefined, described.requestId ? `request id ${described.requestId}` : undefined].filter(Boolean);
  return `error: ${described.code}${where.length ? ` (${where.join(', ')})` : ''}: ${described.message}`;
}
