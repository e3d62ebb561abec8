import { hostname } from 'node:os';
import type { DynamicModule, LoggerService } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { type Logger, pino } from 'pino';
import { busLogFields } from '../bus/bus-context';
import { type LogFormatSetting, prettyAccessMessage, prettyLogStream, resolveLogFormat } from './log-format';

/** Paths polled by probes and scrapers: answered without an access log line. */
const OPS_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/**
 * Nest's own start-up lines (one per module, controller and route: ~70 in standalone), logged at `debug`
 * instead of `info`, so that a start shows the launcher's few progress lines (`LOG_LEVEL=debug` shows them).
 */
const NEST_BOOT_CONTEXTS: ReadonlySet<string> = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'NestMicroservice']);

/** How a launcher's process logs (docs/configuration.md, `LOG_LEVEL`, `LOG_FORMAT`). */
export interface LauncherLogOptions {
  /** Pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
  level: string;
  /** `LOG_FORMAT`: `json`, `pretty`, or `auto` (pretty when stdout is a terminal); see {@link resolveLogFormat}. */
  format: LogFormatSetting;
  /** Properties on every line: `{ mode: 'standalone' }`, `{ mode: 'cluster', service: 'memory' }`. */
  props: Record<string, string>;
  /** Paths of the request log censored as `[redacted]` (the gateway's credentials: `LOG_REDACT_PATHS`). */
  redactPaths: string[];
  /** Where the lines go; default stdout (tests pass a stream). */
  destination?: NodeJS.WritableStream;
}

/** A process's logger and the format it writes ({@link createLauncherLog}). */
export interface LauncherLog {
  logger: Logger;
  format: 'json' | 'pretty';
}

/**
 * The pino logger of a launcher's process, created once and shared by the launcher's own progress lines
 * and Nest ({@link launcherLoggerModule}): `options.level`, credentials at `redactPaths` censored (in both
 * formats: redaction happens before a line is formatted), the request id and, once authenticated, the
 * agent id on every line (from the bus context), `props` on every line. JSON lines, or pretty ones
 * ({@link prettyLogStream}) when the format resolves to `pretty`.
 */
export function createLauncherLog(options: LauncherLogOptions): LauncherLog {
  const format = resolveLogFormat(options.format);
  const stream = format === 'pretty' ? prettyLogStream(options.destination) : options.destination;
  const logger = pino(
    {
      level: options.level,
      base: { pid: process.pid, hostname: hostname(), ...options.props },
      redact: { paths: options.redactPaths, censor: '[redacted]' },
      mixin: () => busLogFields(),
    },
    stream ?? pino.destination({ fd: 1, sync: true }),
  );
  return { logger, format };
}

/**
 * The Nest module of a launcher's logger (nestjs-pino over `log.logger`): one access line per HTTP request
 * except the ops paths (probes and scrapers), with the request id. JSON: pino-http's line (`request
 * completed` with `req`, `res`, `responseTime`). Pretty: `POST /api/v1/agents 201 12 ms  req <id>`.
 */
export function launcherLoggerModule(log: LauncherLog): DynamicModule {
  const pretty = log.format === 'pretty';
  return LoggerModule.forRoot({
    pinoHttp: {
      logger: log.logger,
      genReqId: (req) => (req as unknown as { id: string }).id,
      // Fastify's middleware sees the path from where it is mounted in `url`; `originalUrl` is the request's.
      autoLogging: { ignore: (req) => OPS_PATHS.includes(String((req as { originalUrl?: string }).originalUrl ?? req.url).split('?')[0]) },
      ...(pretty ? { customSuccessMessage: prettyAccessMessage, customErrorMessage: (req, res, _err, ms?: number) => prettyAccessMessage(req, res, ms) } : {}),
    },
  });
}

/**
 * Nest's logger for a launcher's process: everything goes to `inner` (nestjs-pino's logger) as is, except
 * Nest's own start-up lines ({@link NEST_BOOT_CONTEXTS}), which go at `debug` instead of `info`.
 */
export class LauncherNestLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (typeof context === 'string' && NEST_BOOT_CONTEXTS.has(context)) this.inner.debug?.(message, ...params);
    else this.inner.log(message, ...params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.inner.error(message, ...params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.inner.warn(message, ...params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.inner.debug?.(message, ...params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.inner.verbose?.(message, ...params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.inner.fatal?.(message, ...params);
  }
}
