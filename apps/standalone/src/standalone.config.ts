import { join, resolve } from 'node:path';
import { z } from 'zod';
import { launcherEnvSchema, serviceOptionsFromEnv } from '@agent-memory/config';
import { ConfigError, parseEnv } from '@agent-memory/platform';

/**
 * Environment of standalone mode (documented in README.md and docs/configuration.md): the variables
 * shared with cluster mode ({@link launcherEnvSchema}, with standalone's defaults) plus its optional ops
 * listener.
 */
export const StandaloneEnvSchema = launcherEnvSchema({ host: '127.0.0.1', dataDir: './data', billingMode: 'ledger', busRequestTimeoutMs: 30_000 }).extend({
  // Unset: no ops listener, /metrics is served nowhere (docs/configuration.md, "Standalone only").
  OPS_PORT: z.coerce.number().int().min(1, 'must be a number from 1 to 65535').max(65535, 'must be a number from 1 to 65535').optional(),
  OPS_HOST: z.string().min(1).optional(),
});

/**
 * Parses the environment once at start-up; throws ConfigError naming each bad variable. The payment
 * challenge secret, unless PAYMENT_SECRET_KEY is set, persists in `<DATA_DIR>/payment-secret`.
 */
export function loadStandaloneConfig(source: NodeJS.ProcessEnv = process.env) {
  const e = parseEnv(StandaloneEnvSchema, source);
  if (e.OPS_PORT !== undefined && e.OPS_PORT === e.PORT) throw new ConfigError(`Invalid configuration:\n  OPS_PORT: must differ from PORT (got "${e.OPS_PORT}")`);
  const dataDir = resolve(e.DATA_DIR);
  return {
    ...serviceOptionsFromEnv(e, { paymentSecretFile: join(dataDir, 'payment-secret') }),
    /** Where the API listens (`PORT` on `HOST`). */
    http: { port: e.PORT, host: e.HOST },
    /** The ops listener (`/healthz`, `/readyz`, `/metrics`): `OPS_PORT` on `OPS_HOST` (default `HOST`); null when `OPS_PORT` is unset. */
    ops: e.OPS_PORT === undefined ? null : { port: e.OPS_PORT, host: e.OPS_HOST ?? e.HOST },
    /** Root of all data (absolute): `postgres/`, `blobs/`, `vectors/`, `payment-secret`. */
    dataDir,
  };
}

/** The typed, nested configuration of standalone mode: the services' options plus where to listen and keep data. */
export type StandaloneConfig = ReturnType<typeof loadStandaloneConfig>;
