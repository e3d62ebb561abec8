import type { DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { busLogFields } from '../bus/bus-context';

/** Paths polled by probes and scrapers: answered without an access log line. */
const OPS_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/** How a launcher's process logs (docs/configuration.md, `LOG_LEVEL`). */
export interface LauncherLogOptions {
  /** Pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. */
  level: string;
  /** Properties on every line: `{ mode: 'standalone' }`, `{ mode: 'cluster', service: 'memory' }`. */
  props: Record<string, string>;
  /** Paths of the request log censored as `[redacted]` (the gateway's credentials: `LOG_REDACT_PATHS`). */
  redactPaths: string[];
}

/**
 * The JSON logger of both launchers (nestjs-pino): one line per HTTP request except the ops paths, the
 * request id and, once authenticated, the agent id on every line (from the bus context), credentials
 * redacted. Returns the module to import in the launcher's root module.
 */
export function launcherLoggerModule(options: LauncherLogOptions): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      level: options.level,
      genReqId: (req) => (req as unknown as { id: string }).id,
      redact: { paths: options.redactPaths, censor: '[redacted]' },
      mixin: () => busLogFields(),
      customProps: () => ({ ...options.props }),
      autoLogging: { ignore: (req) => OPS_PATHS.includes(String(req.url)) },
    },
  });
}
