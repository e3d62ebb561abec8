import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DestinationStream } from 'pino';
import pinoPretty from 'pino-pretty';

/** `LOG_FORMAT` (docs/configuration.md): `auto` is `pretty` when stdout is a terminal, else `json`. */
export type LogFormatSetting = 'auto' | 'json' | 'pretty';

/**
 * Fields a pretty line leaves out: the process's constants, the request and response objects the access
 * message sums up, and the launchers' structured copies of what their progress messages say.
 */
const PRETTY_IGNORED_FIELDS = ['pid', 'hostname', 'mode', 'service', 'context', 'req', 'res', 'responseTime', 'requestId', 'dataDir', 'url', 'startMs'].join(',');

/**
 * The format a process logs in: `json` (one JSON object a line, for log collectors) or `pretty` (one
 * short human line a record). `auto` picks `pretty` when stdout is a terminal (`isTty`), `json` otherwise.
 */
export function resolveLogFormat(setting: LogFormatSetting, isTty: boolean = process.stdout.isTTY === true): 'json' | 'pretty' {
  if (setting === 'auto') return isTty ? 'pretty' : 'json';
  return setting;
}

/**
 * The stream pretty lines are written to (pino-pretty, synchronous, in this process): `HH:MM:ss LEVEL
 * [context] message` on one line, extra fields (an agent id) inline as JSON, an error's stack below it.
 * The process's constants (pid, host, mode) and the request and response objects are left out: the access
 * line's message already names method, path, status, time and request id ({@link prettyAccessMessage}),
 * and credentials in headers are never shown. Colours only on a terminal. `destination`: default stdout.
 */
export function prettyLogStream(destination?: NodeJS.WritableStream): DestinationStream {
  return pinoPretty({
    colorize: destination === undefined && process.stdout.isTTY === true,
    sync: true,
    destination: destination ?? 1,
    translateTime: 'SYS:HH:MM:ss',
    ignore: PRETTY_IGNORED_FIELDS,
    singleLine: true,
    messageFormat: (log, messageKey) => {
      const context = typeof log.context === 'string' ? `[${log.context}] ` : '';
      const message = log[messageKey];
      return `${context}${typeof message === 'string' ? message : (JSON.stringify(message) ?? '')}`;
    },
  });
}

/** The path of a request without its query string (a query may carry a path or an id; the access line needs only the route). */
function pathOf(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The pretty access line's message: `POST /api/v1/agents 201 12 ms  req 0cceef1e-…` (method, path,
 * status, duration in ms when known, request id).
 */
export function prettyAccessMessage(req: IncomingMessage, res: ServerResponse, responseTimeMs?: number): string {
  const id = (req as IncomingMessage & { id?: string | number }).id;
  const ms = responseTimeMs === undefined ? '' : ` ${Math.round(responseTimeMs)} ms`;
  return `${req.method ?? '?'} ${pathOf(req)} ${res.statusCode}${ms}${id === undefined ? '' : `  req ${id}`}`;
}
