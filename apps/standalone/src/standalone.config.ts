import { resolve } from 'node:path';
import { z } from 'zod';
import { env, parseEnv } from '@agent-memory/platform';

/** Environment of standalone mode (documented in README.md and docs/configuration.md). */
export const StandaloneEnvSchema = z.object({
  PORT: env.port(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: env.int(100, 1),
  BILLING_MODE: z.enum(['off', 'ledger']).default('ledger'),
  AGENT_KEY_PREFIX: z.string().regex(/^[a-z][a-z0-9]{1,15}$/, 'must be 2-16 lower-case letters or digits, starting with a letter').default('amk'),
  SIGNATURE_WINDOW_SECONDS: env.int(300, 1),
  BUS_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
  EMBEDDER: z.enum(['use-lite', 'openai-compatible']).default('use-lite'),
  EMBEDDINGS_URL: z.url().optional(),
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EMBEDDINGS_DIMENSION: z.coerce.number().int().min(1).optional(),
});

/** The typed, nested configuration of standalone mode. */
export interface StandaloneConfig {
  http: { port: number; host: string };
  dataDir: string;
  logLevel: z.infer<typeof StandaloneEnvSchema>['LOG_LEVEL'];
  rateLimitsEnabled: boolean;
  anonymousPerMinute: number;
  billingMode: 'off' | 'ledger';
  agentKeyPrefix: string;
  signatureWindowSeconds: number;
  busRequestTimeoutMs: number;
  embedder: { kind: 'use-lite' } | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; dimension: number; timeoutMs: number };
}

/** Parses the environment once at start-up; throws ConfigError naming each bad variable. */
export function loadStandaloneConfig(source: NodeJS.ProcessEnv = process.env): StandaloneConfig {
  const e = parseEnv(StandaloneEnvSchema, source);
  let embedder: StandaloneConfig['embedder'] = { kind: 'use-lite' };
  if (e.EMBEDDER === 'openai-compatible') {
    const missing = (['EMBEDDINGS_URL', 'EMBEDDINGS_MODEL', 'EMBEDDINGS_DIMENSION'] as const).filter((k) => e[k] === undefined);
    if (missing.length > 0) throw new Error(`Invalid configuration: EMBEDDER=openai-compatible needs ${missing.join(', ')}`);
    embedder = { kind: 'openai-compatible', baseUrl: e.EMBEDDINGS_URL!, model: e.EMBEDDINGS_MODEL!, apiKey: e.EMBEDDINGS_API_KEY, dimension: e.EMBEDDINGS_DIMENSION!, timeoutMs: 30_000 };
  }
  return {
    http: { port: e.PORT, host: e.HOST },
    dataDir: resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    rateLimitsEnabled: e.RATE_LIMITS === 'on',
    anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    billingMode: e.BILLING_MODE,
    agentKeyPrefix: e.AGENT_KEY_PREFIX,
    signatureWindowSeconds: e.SIGNATURE_WINDOW_SECONDS,
    busRequestTimeoutMs: e.BUS_REQUEST_TIMEOUT_MS,
    embedder,
  };
}
