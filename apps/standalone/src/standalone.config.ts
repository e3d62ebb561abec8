import { join, resolve } from 'node:path';
import { z } from 'zod';
import { type ServiceOptions, ServiceOptionsEnvSchema, serviceOptionsFromEnv } from '@agent-memory/config';
import { ConfigError, env, parseEnv } from '@agent-memory/platform';

/**
 * Environment of standalone mode (documented in README.md and docs/configuration.md): the services'
 * options shared with cluster mode ({@link ServiceOptionsEnvSchema}) plus where to listen and keep data.
 */
export const StandaloneEnvSchema = ServiceOptionsEnvSchema.extend({
  PORT: env.port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  // Unset: no ops listener, /metrics is served nowhere (docs/configuration.md, "Standalone only").
  OPS_PORT: z.coerce.number().int().min(1, 'must be a number from 1 to 65535').max(65535, 'must be a number from 1 to 65535').optional(),
  OPS_HOST: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  BILLING_MODE: z.enum(['off', 'ledger', 'enforce']).default('ledger'),
  BUS_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
});

/** The typed, nested configuration of standalone mode. */
export interface StandaloneConfig extends ServiceOptions {
  http: { port: number; host: string };
  /** The ops listener (`/healthz`, `/readyz`, `/metrics`): `OPS_PORT` on `OPS_HOST` (default `HOST`); null when `OPS_PORT` is unset. */
  ops: { port: number; host: string } | null;
  dataDir: string;
  billingMode: 'off' | 'ledger' | 'enforce';
  busRequestTimeoutMs: number;
}

/**
 * Parses the environment once at start-up; throws ConfigError naming each bad variable. The payment
 * challenge secret, unless PAYMENT_SECRET_KEY is set, persists in `<DATA_DIR>/payment-secret`.
 */
export function loadStandaloneConfig(source: NodeJS.ProcessEnv = process.env): StandaloneConfig {
  const e = parseEnv(StandaloneEnvSchema, source);
  if (e.OPS_PORT !== undefined && e.OPS_PORT === e.PORT) throw new ConfigError(`Invalid configuration:\n  OPS_PORT: must differ from PORT (got "${e.OPS_PORT}")`);
  const dataDir = resolve(e.DATA_DIR);
  return {
    ...serviceOptionsFromEnv(e, { port: e.PORT, paymentSecretFile: join(dataDir, 'payment-secret') }),
    http: { port: e.PORT, host: e.HOST },
    ops: e.OPS_PORT === undefined ? null : { port: e.OPS_PORT, host: e.OPS_HOST ?? e.HOST },
    dataDir,
    billingMode: e.BILLING_MODE,
    busRequestTimeoutMs: e.BUS_REQUEST_TIMEOUT_MS,
  };
}
