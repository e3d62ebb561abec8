import { join, resolve } from 'node:path';
import { z } from 'zod';
import { type ServiceOptions, ServiceOptionsEnvSchema, serviceOptionsFromEnv } from '@agent-memory/config';
import { env, parseEnv } from '@agent-memory/platform';

/**
 * Environment of standalone mode (documented in README.md and docs/configuration.md): the services'
 * options shared with cluster mode ({@link ServiceOptionsEnvSchema}) plus where to listen and keep data.
 */
export const StandaloneEnvSchema = ServiceOptionsEnvSchema.extend({
  PORT: env.port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  BILLING_MODE: z.enum(['off', 'ledger', 'enforce']).default('ledger'),
  BUS_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
});

/** The typed, nested configuration of standalone mode. */
export interface StandaloneConfig extends ServiceOptions {
  http: { port: number; host: string };
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
  const dataDir = resolve(e.DATA_DIR);
  return {
    ...serviceOptionsFromEnv(e, { port: e.PORT, paymentSecretFile: join(dataDir, 'payment-secret') }),
    http: { port: e.PORT, host: e.HOST },
    dataDir,
    billingMode: e.BILLING_MODE,
    busRequestTimeoutMs: e.BUS_REQUEST_TIMEOUT_MS,
  };
}
