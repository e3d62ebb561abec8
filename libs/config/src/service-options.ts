import { resolve } from 'node:path';
import { z } from 'zod';
import { AUTH_DEFAULTS, parseUsd } from '@agent-memory/shared';
import { env, type FairSchedulerOptions } from '@agent-memory/platform';
import { type PaymentOptions, PaymentEnvSchema, paymentOptionsFromEnv, paymentRealmOf } from './payment-options';

/**
 * `SIGNATURE_DOMAIN`: EIP-4361's `domain`, an RFC 3986 authority (a DNS name with a dot, an IPv4
 * address or `localhost`, with an optional port), exactly what viem's `createSiweMessage` accepts, so
 * that it can stand in the wallet challenges too. Lower case (host names are case-insensitive).
 */
const SIGNATURE_DOMAIN_PATTERN = /^(?:(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{0,58}[a-z0-9])|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|localhost)(?::\d{1,5})?$/;
const SIGNATURE_DOMAIN_HINT = 'must be the host clients reach the API at, such as memory.example.com or localhost:8080';

/** Billing modes (docs/billing.md): `off` records nothing, `ledger` records usage, `enforce` also requires payment. */
export const BillingModeSchema = z.enum(['off', 'ledger', 'enforce']);

/** What differs between the launchers' defaults (docs/configuration.md): the rest of the variables is shared. */
export interface LauncherEnvDefaults {
  /** `HOST`: standalone listens on 127.0.0.1, a cluster process on 0.0.0.0. */
  host: string;
  /** `DATA_DIR`: `./data` (standalone), `./data/cluster` (cluster). */
  dataDir: string;
  /** `BILLING_MODE`: `ledger` (standalone), `enforce` (cluster). */
  billingMode: z.output<typeof BillingModeSchema>;
  /** `BUS_REQUEST_TIMEOUT_MS`: 30 s in process, 10 s over NATS. */
  busRequestTimeoutMs: number;
}

/**
 * Environment variables that configure the services the same way in both run modes (each one is
 * documented in docs/configuration.md). The launchers (`apps/standalone`, `apps/cluster`) extend this
 * with their own variables (ports, data directory, backends) and their own `BILLING_MODE` default.
 */
export const ServiceOptionsEnvSchema = z.object({
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // json for log collectors, pretty for a person; auto: pretty when stdout is a terminal (docs/configuration.md)
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  RATE_LIMITS: z.enum(['on', 'off']).default('on'),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: env.int(100, 1),
  BILLING_SANDBOX_CREDIT_USD: z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, 'must be a USD amount such as 100 or 0.50').default('100'),
  BILLING_RESERVATION_SWEEP_INTERVAL_MS: env.int(60_000, 0),
  // A reservation younger than the longest paid call (bus timeout, at most minutes) must never be voided.
  BILLING_RESERVATION_MAX_AGE_MS: env.int(600_000, 60_000),
  AGENT_KEY_PREFIX: z.string().regex(/^[a-z][a-z0-9]{1,15}$/, 'must be 2-16 lower-case letters or digits, starting with a letter').default('amk'),
  SIGNATURE_WINDOW_SECONDS: env.int(300, 1),
  SIGNATURE_DOMAIN: z.string().toLowerCase().regex(SIGNATURE_DOMAIN_PATTERN, SIGNATURE_DOMAIN_HINT).optional(),
  AGENT_KEY_ROTATION_GRACE_SECONDS: env.int(AUTH_DEFAULTS.keyRotationGraceSeconds, 0).pipe(z.number().max(AUTH_DEFAULTS.maxKeyRotationGraceSeconds, 'must be at most 604800 (7 days)')),
  PASSKEY_RP_ID: z.string().regex(/^[a-z0-9.-]{1,253}$/, 'must be a domain name such as memory.example.com').default('localhost'),
  PASSKEY_RP_NAME: z.string().min(1).max(64).default('agent-memory'),
  PASSKEY_ORIGINS: z.string().min(1).optional(),
  /** The built web dashboard served at /dashboard (docs/dashboard.md); default clients/dashboard/dist of this repository. */
  DASHBOARD_DIR: z.string().min(1).optional(),
  PASSKEY_SESSION_TTL_SECONDS: env.int(AUTH_DEFAULTS.passkeySessionTtlSeconds, 60),
  HSTS_MAX_AGE_SECONDS: env.int(0, 0),
  // How soon after a forget the memory tables are rewritten (VACUUM FULL + CHECKPOINT; docs/deployment.md).
  FORGET_VACUUM_DELAY_MS: env.int(30_000, 0),
  EMBEDDER: z.enum(['use-lite', 'openai-compatible']).default('use-lite'),
  // Engine of the use-lite model: onnx (native), tfjs (wasm), auto = onnx falling back to tfjs (docs/configuration.md)
  EMBEDDER_RUNTIME: z.enum(['auto', 'onnx', 'tfjs']).default('auto'),
  // Arithmetic of the onnx model's dense layers: int8 (quantised weights, ~2.5-3x faster) or fp32 (docs/configuration.md)
  EMBEDDER_PRECISION: z.enum(['int8', 'fp32']).default('int8'),
  EMBEDDINGS_URL: z.url().optional(),
  EMBEDDINGS_MODEL: z.string().min(1).optional(),
  EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  EMBEDDINGS_DIMENSION: z.coerce.number().int().min(1).optional(),
  ENRICHMENT_LLM_URL: z.url().optional(),
  ENRICHMENT_LLM_MODEL: z.string().min(1).optional(),
  ENRICHMENT_LLM_API_KEY: z.string().min(1).optional(),
  ENRICHMENT_LLM_TIMEOUT_MS: env.int(30_000, 100),
  // Per-agent storage quotas (docs/api.md, "Storage quotas").
  QUOTA_MEMORIES_PER_AGENT: env.int(100_000, 1),
  QUOTA_MEMORY_BYTES_PER_AGENT: env.int(1024 ** 3, 1),
  QUOTA_FILES_PER_AGENT: env.int(10_000, 1),
  QUOTA_FILE_BYTES_PER_AGENT: env.int(1024 ** 3, 1),
  // Admission control of remember and recall per memory process (docs/configuration.md, "Fairness between agents").
  MEMORY_WORK_CONCURRENCY: env.int(1, 1),
  MEMORY_WORK_PER_AGENT_CONCURRENCY: env.int(1, 1),
  MEMORY_WORK_PER_AGENT_QUEUE: env.int(64, 0),
  // Contextual indexing of memories and the write gap that cuts it (docs/configuration.md, "Recall").
  RECALL_CONTEXT: z.enum(['on', 'off']).default('on'),
  RECALL_CONTEXT_GAP_SECONDS: env.int(1_800, 0),
  // Heap of tenant indexes the embedded vector index keeps loaded (docs/configuration.md, "Vector index").
  VECTOR_INDEX_MEMORY_BUDGET_MB: env.int(256, 1),
  ...PaymentEnvSchema.shape,
});

/**
 * {@link ServiceOptionsEnvSchema} plus the variables every launcher reads with its own default: where the
 * API listens (`PORT`, `HOST`), where data lives (`DATA_DIR`), `BILLING_MODE` and `BUS_REQUEST_TIMEOUT_MS`.
 * Each launcher extends the result with the variables only it has (its ops listener, its backends).
 */
export function launcherEnvSchema(defaults: LauncherEnvDefaults) {
  return ServiceOptionsEnvSchema.extend({
    PORT: env.port(8080),
    HOST: z.string().min(1).default(defaults.host),
    DATA_DIR: z.string().min(1).default(defaults.dataDir),
    BILLING_MODE: BillingModeSchema.default(defaults.billingMode),
    BUS_REQUEST_TIMEOUT_MS: env.int(defaults.busRequestTimeoutMs, 100),
  });
}
/** The parsed variables of {@link launcherEnvSchema}. */
export type ServiceOptionsEnv = z.output<ReturnType<typeof launcherEnvSchema>>;

/** The services' options, typed and nested, as both launchers pass them to the modules. */
export interface ServiceOptions {
  logLevel: ServiceOptionsEnv['LOG_LEVEL'];
  /** `LOG_FORMAT`: `json`, `pretty`, or `auto` (pretty when stdout is a terminal). */
  logFormat: ServiceOptionsEnv['LOG_FORMAT'];
  /** `BILLING_MODE` (docs/billing.md). */
  billingMode: ServiceOptionsEnv['BILLING_MODE'];
  /** How long a bus request waits for its reply, ms (`BUS_REQUEST_TIMEOUT_MS`). */
  busRequestTimeoutMs: number;
  rateLimitsEnabled: boolean;
  anonymousPerMinute: number;
  /** The `Payment` scheme: PAYMENT_* variables (docs/billing.md). */
  payments: PaymentOptions;
  /** The billing service: opening credit of a sandbox balance (micro-USD) and the reservation sweeper (ms; docs/billing.md). */
  billing: { sandboxCreditMicroUsd: number; reservationSweepIntervalMs: number; reservationMaxAgeMs: number };
  agentKeyPrefix: string;
  signatureWindowSeconds: number;
  /**
   * The deployment's domain in every signed message (`SIGNATURE_DOMAIN`; default: the host of the first
   * `PASSKEY_ORIGINS` origin). With `payments.chainId` it binds wallet signatures to this deployment.
   */
  signatureDomain: string;
  /** Key rotation, passkeys and sessions (docs/authentication.md). */
  auth: { keyRotationGraceSeconds: number; passkeys: { rpId: string; rpName: string; origins: string[]; sessionTtlSeconds: number } };
  /** `Strict-Transport-Security` max-age; 0 sends none. */
  hstsMaxAgeSeconds: number;
  /** `DASHBOARD_DIR`: the built dashboard (undefined: the gateway's default, clients/dashboard/dist). */
  dashboardDirectory: string | undefined;
  /** Delay between a purge and the rewrite of the memory tables that erases the forgotten rows, ms (`FORGET_VACUUM_DELAY_MS`). */
  forgetVacuumDelayMs: number;
  /** `EMBEDDER`; use-lite runs on `EMBEDDER_RUNTIME` at `EMBEDDER_PRECISION` and caches its converted model under `<DATA_DIR>/models`. */
  embedder: { kind: 'use-lite'; runtime: 'auto' | 'onnx' | 'tfjs'; precision: 'int8' | 'fp32'; modelCacheDirectory: string } | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; dimension: number; timeoutMs: number };
  /** Per-agent storage quotas: memories and their content bytes, files (with raw blobs) and their bytes (docs/api.md). */
  quotas: { memory: { maxMemories: number; maxBytes: number }; files: { maxFiles: number; maxBytes: number } };
  /** Fair admission of remember and recall in each memory process (docs/configuration.md, "Fairness between agents"). */
  memoryAdmission: FairSchedulerOptions;
  /** Contextual indexing of memories (`RECALL_CONTEXT`) and the write gap in seconds that cuts it (`RECALL_CONTEXT_GAP_SECONDS`). */
  recallContext: { enabled: boolean; gapSeconds: number };
  /** Bytes of tenant indexes the embedded vector index keeps in memory before evicting (`VECTOR_INDEX_MEMORY_BUDGET_MB`). */
  vectorIndexMemoryBudgetBytes: number;
  /** The chat endpoint that refines type and summary after remember; absent when `ENRICHMENT_LLM_URL` is unset. */
  enrichment?: { baseUrl: string; model: string; apiKey?: string; timeoutMs: number };
}

/** `PASSKEY_ORIGINS`: comma-separated origins (`https://memory.example.com`) of the pages that run passkey ceremonies. */
function parseOrigins(value: string): string[] {
  const origins = value.split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) throw new Error(`Invalid configuration:\n  PASSKEY_ORIGINS: ${JSON.stringify(origin)} is not an origin such as https://memory.example.com`);
  }
  if (origins.length === 0) throw new Error('Invalid configuration:\n  PASSKEY_ORIGINS: needs at least one origin such as https://memory.example.com');
  return origins;
}

/** `SIGNATURE_DOMAIN`, or by default the host (with port) of the first passkey origin (docs/configuration.md). */
function signatureDomainOf(configured: string | undefined, origins: string[]): string {
  if (configured !== undefined) return configured;
  const host = new URL(origins[0]).host;
  if (!SIGNATURE_DOMAIN_PATTERN.test(host)) throw new Error(`Invalid configuration:\n  SIGNATURE_DOMAIN: not set, and the host ${JSON.stringify(host)} of PASSKEY_ORIGINS cannot be the default: set SIGNATURE_DOMAIN (${SIGNATURE_DOMAIN_HINT})`);
  return host;
}

/**
 * Builds {@link ServiceOptions} from parsed variables (`PORT` is the gateway's: the default passkey
 * origin is `http://localhost:<PORT>`). `paymentSecretFile` keeps a generated payment secret across restarts
 * (standalone); `requirePaymentSecret` makes PAYMENT_SECRET_KEY mandatory (a cluster gateway: every
 * replica must verify the challenges the others issued; top-ups take credentials in every billing mode).
 * @throws Error naming the variable when a combination is invalid.
 */
export function serviceOptionsFromEnv(e: ServiceOptionsEnv, opts: { paymentSecretFile?: string; requirePaymentSecret?: boolean } = {}): ServiceOptions {
  let embedder: ServiceOptions['embedder'] = { kind: 'use-lite', runtime: e.EMBEDDER_RUNTIME, precision: e.EMBEDDER_PRECISION, modelCacheDirectory: resolve(e.DATA_DIR, 'models') };
  if (e.EMBEDDER === 'openai-compatible') {
    const missing = (['EMBEDDINGS_URL', 'EMBEDDINGS_MODEL', 'EMBEDDINGS_DIMENSION'] as const).filter((k) => e[k] === undefined);
    if (missing.length > 0) throw new Error(`Invalid configuration: EMBEDDER=openai-compatible needs ${missing.join(', ')}`);
    embedder = { kind: 'openai-compatible', baseUrl: e.EMBEDDINGS_URL!, model: e.EMBEDDINGS_MODEL!, apiKey: e.EMBEDDINGS_API_KEY, dimension: e.EMBEDDINGS_DIMENSION!, timeoutMs: 30_000 };
  }
  let enrichment: ServiceOptions['enrichment'];
  if (e.ENRICHMENT_LLM_URL !== undefined || e.ENRICHMENT_LLM_MODEL !== undefined) {
    if (e.ENRICHMENT_LLM_URL === undefined || e.ENRICHMENT_LLM_MODEL === undefined) {
      throw new Error('Invalid configuration: enrichment needs both ENRICHMENT_LLM_URL and ENRICHMENT_LLM_MODEL');
    }
    enrichment = { baseUrl: e.ENRICHMENT_LLM_URL, model: e.ENRICHMENT_LLM_MODEL, apiKey: e.ENRICHMENT_LLM_API_KEY, timeoutMs: e.ENRICHMENT_LLM_TIMEOUT_MS };
  }
  const origins = parseOrigins(e.PASSKEY_ORIGINS ?? `http://localhost:${e.PORT}`);
  const signatureDomain = signatureDomainOf(e.SIGNATURE_DOMAIN, origins);
  if (opts.requirePaymentSecret && e.PAYMENT_SECRET_KEY === undefined) {
    throw new Error('Invalid configuration: PAYMENT_SECRET_KEY is required by a cluster gateway (every replica must verify the payment challenges the others issue, for paid calls and top-ups alike), e.g. openssl rand -base64 32');
  }
  return {
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    billingMode: e.BILLING_MODE,
    busRequestTimeoutMs: e.BUS_REQUEST_TIMEOUT_MS,
    rateLimitsEnabled: e.RATE_LIMITS === 'on',
    anonymousPerMinute: e.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    billing: {
      sandboxCreditMicroUsd: parseUsd(e.BILLING_SANDBOX_CREDIT_USD)!,
      reservationSweepIntervalMs: e.BILLING_RESERVATION_SWEEP_INTERVAL_MS,
      reservationMaxAgeMs: e.BILLING_RESERVATION_MAX_AGE_MS,
    },
    payments: paymentOptionsFromEnv(e, { secretFile: opts.paymentSecretFile, defaultRealm: paymentRealmOf(signatureDomain) }),
    agentKeyPrefix: e.AGENT_KEY_PREFIX,
    signatureWindowSeconds: e.SIGNATURE_WINDOW_SECONDS,
    signatureDomain,
    auth: {
      keyRotationGraceSeconds: e.AGENT_KEY_ROTATION_GRACE_SECONDS,
      passkeys: { rpId: e.PASSKEY_RP_ID, rpName: e.PASSKEY_RP_NAME, origins, sessionTtlSeconds: e.PASSKEY_SESSION_TTL_SECONDS },
    },
    hstsMaxAgeSeconds: e.HSTS_MAX_AGE_SECONDS,
    dashboardDirectory: e.DASHBOARD_DIR,
    forgetVacuumDelayMs: e.FORGET_VACUUM_DELAY_MS,
    embedder,
    enrichment,
    quotas: {
      memory: { maxMemories: e.QUOTA_MEMORIES_PER_AGENT, maxBytes: e.QUOTA_MEMORY_BYTES_PER_AGENT },
      files: { maxFiles: e.QUOTA_FILES_PER_AGENT, maxBytes: e.QUOTA_FILE_BYTES_PER_AGENT },
    },
    memoryAdmission: { concurrency: e.MEMORY_WORK_CONCURRENCY, perAgentConcurrency: e.MEMORY_WORK_PER_AGENT_CONCURRENCY, perAgentQueue: e.MEMORY_WORK_PER_AGENT_QUEUE },
    recallContext: { enabled: e.RECALL_CONTEXT === 'on', gapSeconds: e.RECALL_CONTEXT_GAP_SECONDS },
    vectorIndexMemoryBudgetBytes: e.VECTOR_INDEX_MEMORY_BUDGET_MB * 1024 * 1024,
  };
}
