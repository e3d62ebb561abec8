/** Injection token of the {@link OpsOptions} of this process. */
export const OPS_OPTIONS = Symbol('OpsOptions');

/**
 * Options of the operations module of one process: health and metrics per service (docs/configuration.md, `OPS_PORT`).
 * Defaults are filled by {@link resolveOpsOptions}.
 */
export interface OpsOptions {
  /** Process name, the `service` label on every metric (`gateway`, `memory`, `memory-worker`, `standalone`, ...). */
  service: string;
  /** Longest a single readiness check may take before it counts as down, ms (default 2000). */
  readinessCheckTimeoutMs?: number;
  /**
   * Liveness fails when the event loop was blocked longer than this since the previous `/healthz`, ms
   * (default 5000). Kubernetes restarts only after its own `failureThreshold` consecutive failures.
   */
  livenessMaxEventLoopDelayMs?: number;
  /** Registers the `bus` readiness check (transport client connected and answering) when a bus client is provided (default true). */
  busReadiness?: boolean;
  /** Passed to terminus: how long shutdown waits after SIGTERM with `/readyz` already failing, ms (default 0). */
  gracefulShutdownTimeoutMs?: number;
  /**
   * Serves `GET /metrics` on the process's own HTTP app (default true: a cluster service's HTTP side is
   * its ops port). False where that app is the public API (standalone): metrics then live only on
   * {@link OpsOptions.listen}.
   */
  metricsOnHttp?: boolean;
  /**
   * A separate ops listener (`/healthz`, `/readyz`, `/metrics`) on this address, started with the app and
   * closed with it ({@link OpsListener}); null or absent: none.
   */
  listen?: OpsListenAddress | null;
}

/** Where the separate ops listener binds: TCP port (1-65535) and host address. */
export interface OpsListenAddress {
  port: number;
  host: string;
}

/** {@link OpsOptions} with every default applied. */
export type ResolvedOpsOptions = Required<Omit<OpsOptions, 'listen'>> & { listen: OpsListenAddress | null };

/** Applies the defaults of {@link OpsOptions}; throws on an empty service name or a non-positive timeout. */
export function resolveOpsOptions(options: OpsOptions): ResolvedOpsOptions {
  if (!/^[a-z][a-z0-9-]*$/.test(options.service)) throw new Error(`OpsModule: service must be a lower-case name, got "${options.service}"`);
  const resolved: ResolvedOpsOptions = {
    service: options.service,
    readinessCheckTimeoutMs: options.readinessCheckTimeoutMs ?? 2_000,
    livenessMaxEventLoopDelayMs: options.livenessMaxEventLoopDelayMs ?? 5_000,
    busReadiness: options.busReadiness ?? true,
    gracefulShutdownTimeoutMs: options.gracefulShutdownTimeoutMs ?? 0,
    metricsOnHttp: options.metricsOnHttp ?? true,
    listen: options.listen ?? null,
  };
  if (!(resolved.readinessCheckTimeoutMs > 0) || !(resolved.livenessMaxEventLoopDelayMs > 0) || !(resolved.gracefulShutdownTimeoutMs >= 0)) {
    throw new Error('OpsModule: timeouts must be positive numbers of milliseconds');
  }
  return resolved;
}
