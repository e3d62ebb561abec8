import { join } from 'node:path';
import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { LoggerModule, Logger as PinoLogger } from 'nestjs-pino';
import { AgentsModule } from '@agent-memory/agents';
import { BillingModule } from '@agent-memory/billing';
import { FilesModule } from '@agent-memory/files';
import { configureGatewayApp, createGatewayHttpAdapter, GatewayModule, LOG_REDACT_PATHS, RATE_LIMIT_REDIS_OPTIONS, redisRateLimiters, RedisReplayCache } from '@agent-memory/gateway';
import { MemoryModule, type VectorIndexConfig, VectorIndexServiceModule } from '@agent-memory/memory';
import {
  BusMetricsInterceptor,
  busLogFields,
  BusPrincipalInterceptor,
  connectMicroserviceWith,
  DrainingNatsServer,
  JetStreamEventServer,
  NatsBusContextInterceptor,
  OpsModule,
} from '@agent-memory/platform';
import { RecordsModule } from '@agent-memory/records';
import { QUEUE_GROUPS } from '@agent-memory/shared';
import { type ClusterConfig, natsAuthOf, type ProcessName } from './cluster.config';
import { ClusterPlatformModule } from './cluster.platform';

/** Processes that answer bus requests in their queue group. */
const REQUEST_SERVERS: Partial<Record<ProcessName, string>> = {
  agents: QUEUE_GROUPS.agents,
  records: QUEUE_GROUPS.records,
  memory: QUEUE_GROUPS.memory,
  files: QUEUE_GROUPS.files,
  billing: QUEUE_GROUPS.billing,
  'vector-index': QUEUE_GROUPS.vectorIndex,
};
/** Processes that consume durable events (JetStream). */
const EVENT_CONSUMERS: readonly ProcessName[] = ['memory', 'files'];

function vectorIndexConfig(config: ClusterConfig): VectorIndexConfig {
  const e = config.env;
  if (e.QDRANT_URL) return { kind: 'qdrant', url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collectionPrefix: e.QDRANT_COLLECTION_PREFIX } as unknown as VectorIndexConfig;
  return { kind: 'remote' };
}

/** The service module of a process, plus the Redis connections the gateway owns. */
function serviceModule(config: ClusterConfig, redis: Redis[]): DynamicModule | Type<unknown> {
  const e = config.env;
  const o = config.options;
  switch (config.process) {
    case 'agents':
      return AgentsModule.forRoot({ keyPrefix: o.agentKeyPrefix, keyRotationGraceSeconds: o.auth.keyRotationGraceSeconds, passkeys: o.auth.passkeys, signatureRealm: { domain: o.signatureDomain, chainId: o.payments.chainId } });
    case 'records':
      return RecordsModule;
    case 'memory':
    case 'memory-worker':
      return MemoryModule.forRoot({ embedder: o.embedder, vectorIndex: vectorIndexConfig(config), enrichment: o.enrichment, warmUp: true, quota: o.quotas.memory, admission: o.memoryAdmission, vacuumDelayMs: o.forgetVacuumDelayMs });
    case 'files':
      return FilesModule.forRoot({ quota: o.quotas.files, vacuumDelayMs: o.forgetVacuumDelayMs });
    case 'billing':
      return BillingModule.forRoot(o.billing);
    case 'vector-index':
      return VectorIndexServiceModule.forRoot({ directory: join(config.dataDir, 'vectors'), memoryBudgetBytes: o.vectorIndexMemoryBudgetBytes });
    case 'gateway': {
      const replay = new Redis(e.REDIS_URL, { maxRetriesPerRequest: 2 });
      const limits = new Redis(e.REDIS_URL, RATE_LIMIT_REDIS_OPTIONS);
      redis.push(replay, limits);
      return GatewayModule.forRoot(
        {
          rateLimitsEnabled: o.rateLimitsEnabled,
          anonymousPerMinute: o.anonymousPerMinute,
          billingMode: e.BILLING_MODE,
          payments: o.payments,
          signatureWindowSeconds: o.signatureWindowSeconds,
          signatureDomain: o.signatureDomain,
        },
        {
          rateLimiters: redisRateLimiters(limits, o.anonymousPerMinute, `${e.REDIS_KEY_PREFIX}:rl`, { assumedReplicas: e.RATE_LIMIT_ASSUMED_REPLICAS }),
          replayCache: new RedisReplayCache(replay, `${e.REDIS_KEY_PREFIX}:replay`),
        },
      );
    }
    default:
      throw new Error(`No service module for ${config.process}`);
  }
}

/**
 * Builds one cluster process (docs/deployment.md): a Nest hybrid app whose HTTP side serves the gateway API
 * (gateway, on PORT, with its ops endpoints on a separate listener at OPS_PORT) or `/healthz`, `/readyz`,
 * `/metrics` (every other process, on OPS_PORT), with the NATS
 * request server in the service's queue group and, for event consumers, the JetStream event server.
 * Call `listen` with {@link listenAddress}. SIGTERM: stop taking requests, finish in-flight ones and
 * jobs, close adapters.
 */
export async function createClusterProcess(config: ClusterConfig): Promise<NestFastifyApplication> {
  const e = config.env;
  const p = config.process;
  const redis: Redis[] = [];
  const service = serviceModule(config, redis);
  @Module({
    imports: [
      LoggerModule.forRoot({
        pinoHttp: {
          level: config.options.logLevel,
          genReqId: (req) => (req as unknown as { id: string }).id,
          redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
          // the request id and, once authenticated, the agent id, on every line (from the bus headers)
          mixin: () => busLogFields(),
          customProps: () => ({ mode: 'cluster', service: p }),
          autoLogging: { ignore: (req) => ['/healthz', '/readyz', '/metrics'].includes(String(req.url)) },
        },
      }),
      ClusterPlatformModule.forProcess(config, redis),
      // The gateway's HTTP side is the public API: /metrics only on its ops listener (OPS_PORT), as the
      // other processes serve it on theirs; /healthz and /readyz on both (docs/configuration.md, "Cluster only").
      OpsModule.forService(p === 'gateway' ? { service: p, metricsOnHttp: false, listen: opsListenAddress(config) } : { service: p }),
      service,
    ],
  })
  class ClusterProcessModule {}

  const app = await NestFactory.create<NestFastifyApplication>(ClusterProcessModule, p === 'gateway' ? createGatewayHttpAdapter() : new FastifyAdapter(), {
    bufferLogs: true,
    rawBody: p === 'gateway',
    abortOnError: false,
  });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  // Enhancers must be attached before the handlers are bound (connectMicroserviceWith, libs/platform/src/ops).
  // The context interceptor first: the principal check reads the (verified) bus headers it sets.
  const interceptors = [new NatsBusContextInterceptor(), new BusPrincipalInterceptor(), app.get(BusMetricsInterceptor)];
  const auth = natsAuthOf(config);
  const queue = REQUEST_SERVERS[p];
  if (queue) {
    connectMicroserviceWith(app, { strategy: new DrainingNatsServer({ servers: [e.NATS_URL], queue, name: `agent-memory-${p}`, drainTimeoutMs: e.SHUTDOWN_TIMEOUT_MS, auth }) }, { interceptors });
  }
  if (EVENT_CONSUMERS.includes(p)) {
    connectMicroserviceWith(app, { strategy: new JetStreamEventServer({ servers: [e.NATS_URL], service: p, auth: { user: auth.user, pass: auth.pass } }) }, { interceptors });
  }
  if (p === 'gateway') configureGatewayApp(app, { security: { hstsMaxAgeSeconds: config.options.hstsMaxAgeSeconds } });
  await app.startAllMicroservices();
  await app.init();
  return app;
}

/**
 * Where a process's HTTP side listens: the API port (PORT) for the gateway, OPS_PORT for the others.
 * The gateway's ops endpoints are on a separate listener at {@link opsListenAddress}.
 */
export function listenAddress(config: ClusterConfig): { port: number; host: string } {
  return { port: config.process === 'gateway' ? config.env.PORT : config.env.OPS_PORT, host: config.env.HOST };
}

/** Where a process's `/healthz`, `/readyz` and `/metrics` answer: OPS_PORT on HOST, for every process (the gateway included). */
export function opsListenAddress(config: ClusterConfig): { port: number; host: string } {
  return { port: config.env.OPS_PORT, host: config.env.HOST };
}
