import { resolve } from 'node:path';
import { z } from 'zod';
import { launcherEnvSchema, serviceOptionsFromEnv } from '@agent-memory/config';
import { BusSigner, BusVerifier, env, type NatsAuthOptions, parseEnv, type S3BlobStoreOptions } from '@agent-memory/platform';

/** The processes of cluster mode (one image; the first argument picks one). `migrate` is a one-shot job. */
export const PROCESS_NAMES = ['gateway', 'agents', 'records', 'memory', 'memory-worker', 'files', 'billing', 'vector-index', 'migrate'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];

const optionalUrl = z.url().optional();

/** An Ed25519 key as base64 DER, checked by loading it (the message says what is wrong, never the key). */
const ed25519Key = (kind: 'private' | 'public') =>
  z
    .string()
    .min(1)
    .superRefine((value, ctx) => {
      try {
        if (kind === 'private') new BusSigner(value);
        else new BusVerifier(value, 1);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `must be an Ed25519 ${kind} key, base64 DER: ${(err as Error).message}` });
      }
    })
    .optional();

/** Processes that serve bus requests, so verify the gateway's signatures. */
export const VERIFYING_PROCESSES: readonly string[] = ['agents', 'records', 'memory', 'files', 'billing', 'vector-index'];

/**
 * Environment of every cluster process (documented variable by variable in docs/configuration.md): the
 * variables shared with standalone ({@link launcherEnvSchema}, with the cluster's defaults) plus the
 * backends, the ops port and process settings. Parsed once at start-up; a bad or missing value stops the
 * process naming it.
 */
export const ClusterEnvSchema = launcherEnvSchema({ host: '0.0.0.0', dataDir: './data/cluster', billingMode: 'enforce', busRequestTimeoutMs: 10_000 }).extend({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  NATS_USER: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  BUS_SIGNING_PRIVATE_KEY: ed25519Key('private'),
  BUS_SIGNING_PUBLIC_KEY: ed25519Key('public'),
  BUS_SIGNATURE_MAX_AGE_MS: env.int(60_000, 1_000),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').default('postgres://postgres@127.0.0.1:5432/agent_memory'),
  DB_POOL_SIZE: env.int(10, 1),
  MIGRATIONS: z.enum(['apply', 'verify']).default('apply'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').default('redis://127.0.0.1:6379'),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/).default('am'),
  S3_ENDPOINT: optionalUrl,
  S3_ACCESS_KEY: z.string().min(1).optional(),
  S3_SECRET_KEY: z.string().min(1).optional(),
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name').default('agent-memory'),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
  QDRANT_URL: optionalUrl,
  QDRANT_API_KEY: z.string().min(1).optional(),
  QDRANT_COLLECTION_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/).default('memories'),
  OPS_PORT: env.port(9090),
  SHUTDOWN_TIMEOUT_MS: env.int(25_000, 1_000),
  JOB_CONCURRENCY: env.int(4, 1),
  RATE_LIMIT_ASSUMED_REPLICAS: env.int(1, 1),
});
export type ClusterEnv = z.output<typeof ClusterEnvSchema>;

/** The S3 connection of `S3_*`; throws naming the missing variables (`who`: the process or command that needs them). */
export function s3OptionsOf(e: ClusterEnv, who: string): S3BlobStoreOptions {
  const missing = (['S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY'] as const).filter((k) => e[k] === undefined);
  if (missing.length > 0) throw new Error(`Invalid configuration: ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} required by ${who}`);
  return { endpoint: e.S3_ENDPOINT!, accessKey: e.S3_ACCESS_KEY!, secretKey: e.S3_SECRET_KEY!, bucket: e.S3_BUCKET, region: e.S3_REGION, requestTimeoutMs: e.S3_REQUEST_TIMEOUT_MS };
}

/** Which processes need which backends (so each validates only what it uses). */
export const NEEDS = {
  blobs: ['memory', 'memory-worker', 'files'],
  jobs: ['memory', 'memory-worker', 'files'],
  database: ['agents', 'records', 'memory', 'memory-worker', 'files', 'billing', 'migrate'],
  /** The gateways' cache tokens in Redis: read by the gateway, replaced by the owners of keys and records (docs/architecture.md, "Caches of the gateway"). */
  cacheTokens: ['gateway', 'agents', 'records'],
} as const satisfies Record<string, readonly ProcessName[]>;

/**
 * Parses the environment of process `name`; throws ConfigError (from parseEnv) or Error naming the bad
 * or missing variable, e.g. `S3_ENDPOINT is required by the files process`.
 */
export function loadClusterConfig(name: string, source: NodeJS.ProcessEnv = process.env) {
  if (!(PROCESS_NAMES as readonly string[]).includes(name)) {
    throw new Error(`Unknown process "${name}": expected one of ${PROCESS_NAMES.join(', ')}`);
  }
  const processName = name as ProcessName;
  const e = parseEnv(ClusterEnvSchema, source);
  const s3 = (NEEDS.blobs as readonly ProcessName[]).includes(processName) ? s3OptionsOf(e, `the ${processName} process`) : undefined;
  const options = serviceOptionsFromEnv(e, { requirePaymentSecret: processName === 'gateway' });
  // The gateway serves /metrics only on its ops listener: on the API port it would be public (docs/configuration.md).
  if (processName === 'gateway' && e.OPS_PORT === e.PORT) throw new Error(`Invalid configuration: OPS_PORT: must differ from PORT for the gateway (got "${e.OPS_PORT}")`);
  // The gateway signs the principal it forwards; the services verify it (docs/configuration.md, "Bus authentication").
  if (processName === 'gateway' && !e.BUS_SIGNING_PRIVATE_KEY) throw new Error('Invalid configuration: BUS_SIGNING_PRIVATE_KEY is required by the gateway process');
  if (VERIFYING_PROCESSES.includes(processName) && !e.BUS_SIGNING_PUBLIC_KEY) throw new Error(`Invalid configuration: BUS_SIGNING_PUBLIC_KEY is required by the ${processName} process`);
  return {
    process: processName,
    /** Every variable, parsed (backends, ports, process settings). */
    env: e,
    /** `DATA_DIR`, absolute (the `vector-index` process keeps its index under `vectors/`). */
    dataDir: resolve(e.DATA_DIR),
    /** The blob store's connection, for the processes that keep blobs (`NEEDS.blobs`). */
    s3,
    /** The services' options, as in standalone mode (`@agent-memory/config`). */
    options,
  };
}

/** Typed configuration of one cluster process. */
export type ClusterConfig = ReturnType<typeof loadClusterConfig>;

/**
 * The bus credentials of a process (docs/configuration.md, "Bus authentication"): its NATS user
 * (NATS_USER, default the process name) when NATS_PASSWORD is set, the signing key when
 * BUS_SIGNING_PRIVATE_KEY is set (the gateway), the verifying key when BUS_SIGNING_PUBLIC_KEY is set.
 */
export function natsAuthOf(config: ClusterConfig): NatsAuthOptions {
  const e = config.env;
  return {
    ...(e.NATS_PASSWORD ? { user: e.NATS_USER ?? config.process, pass: e.NATS_PASSWORD } : {}),
    ...(e.BUS_SIGNING_PRIVATE_KEY ? { signer: new BusSigner(e.BUS_SIGNING_PRIVATE_KEY) } : {}),
    ...(e.BUS_SIGNING_PUBLIC_KEY ? { verifier: new BusVerifier(e.BUS_SIGNING_PUBLIC_KEY, e.BUS_SIGNATURE_MAX_AGE_MS) } : {}),
  };
}
