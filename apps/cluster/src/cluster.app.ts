import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import type { CustomTransportStrategy } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { AgentsModule } from '@agent-memory/agents';
import { BillingModule } from '@agent-memory/billing';
import { serviceModuleOptions } from '@agent-memory/config';
import { FilesModule } from '@agent-memory/files';
import { configureGatewayApp, createGatewayHttpAdapter, GatewayModule, LOG_REDACT_PATHS, RATE_LIMIT_REDIS_OPTIONS, redisRateLimiters, RedisReplayCache } from '@agent-memory/gateway';
import { MemoryModule, type VectorIndexConfig, VectorIndexServiceModule } from '@agent-memory/memory';
import { createLauncherLog, DrainingNatsServer, JetStreamEventServer, launchApp, NatsBusContextInterceptor, type OpsListenAddress, OpsModule } from '@agent-memory/platform';
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

/** The memory service's vector index in cluster mode: Qdrant when QDRANT_URL is set, else the `vector-index` process. */
function vectorIndexConfig(config: ClusterConfig): VectorIndexConfig {
  const e = config.env;
  if (e.QDRANT_URL) return { kind: 'qdrant', url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collectionPrefix: e.QDRANT_COLLECTION_PREFIX };
  return { kind: 'remote' };
}

/** The service module of a process; the gateway's Redis connections are pushed to `redis` (closed at shutdown). */
function serviceModule(config: ClusterConfig, redis: Redis[]): DynamicModule | Type<unknown> {
  const e = config.env;
  const m = serviceModuleOptions(config.options);
  switch (config.process) {
    case 'agents':
      return AgentsModule.forRoot(m.agents);
    case 'records':
      return RecordsModule;
    case 'memory':
    case 'memory-worker':
      return MemoryModule.forRoot({ ...m.memory, vectorIndex: vectorIndexConfig(config), warmUp: true });
    case 'files':
      return FilesModule.forRoot(m.files);
    case 'billing':
      return BillingModule.forRoot(m.billing);
    case 'vector-index':
      return VectorIndexServiceModule.forRoot({ directory: join(config.dataDir, 'vectors'), memoryBudgetBytes: config.options.vectorIndexMemoryBudgetBytes });
    case 'gateway': {
      const replay = new Redis(e.REDIS_URL, { maxRetriesPerRequest: 2 });
      const limits = new Redis(e.REDIS_URL, RATE_LIMIT_REDIS_OPTIONS);
      redis.push(replay, limits);
      return GatewayModule.forRoot(m.gateway, {
        rateLimiters: redisRateLimiters(limits, config.options.anonymousPerMinute, `${e.REDIS_KEY_PREFIX}:rl`, { assumedReplicas: e.RATE_LIMIT_ASSUMED_REPLICAS }),
        replayCache: new RedisReplayCache(replay, `${e.REDIS_KEY_PREFIX}:replay`),
      });
    }
    default:
      throw new Error(`No service module for ${config.process}`);
  }
}

/** The NATS servers of a process: the request server in its queue group, and the JetStream event server for event consumers. */
function busServers(config: ClusterConfig): CustomTransportStrategy[] {
  const e = config.env;
  const p = config.process;
  const auth = natsAuthOf(config);
  const servers: CustomTransportStrategy[] = [];
  const queue = REQUEST_SERVERS[p];
  if (queue) servers.push(new DrainingNatsServer({ servers: [e.NATS_URL], queue, name: `agent-memory-${p}`, drainTimeoutMs: e.SHUTDOWN_TIMEOUT_MS, auth }));
  if (EVENT_CONSUMERS.includes(p)) servers.push(new JetStreamEventServer({ servers: [e.NATS_URL], service: p, auth: { user: auth.user, pass: auth.pass } }));
  return servers;
}

/**
 * Builds one cluster process (docs/deployment.md; docs/architecture.md, "Launchers"): a Nest hybrid app
 * whose HTTP side serves the gateway API (gateway, on PORT, with its ops endpoints on a separate listener
 * at OPS_PORT) or `/healthz`, `/readyz`, `/metrics` (every other process, on OPS_PORT), with the NATS
 * request server in the service's queue group and, for event consumers, the JetStream event server.
 * Call `listen` with {@link listenAddress}. SIGTERM: stop taking requests, finish in-flight ones and
 * jobs, close adapters.
 */
export async function createClusterProcess(config: ClusterConfig): Promise<NestFastifyApplication> {
  const p = config.process;
  const redis: Redis[] = [];
  const gateway = p === 'gateway';
  return launchApp({
    log: createLauncherLog({ level: config.options.logLevel, format: config.options.logFormat, props: { mode: 'cluster', service: p }, redactPaths: LOG_REDACT_PATHS }),
    imports: [
      ClusterPlatformModule.forProcess(config, redis),
      // The gateway's HTTP side is the public API: /metrics only on its ops listener (OPS_PORT), as the
      // other processes serve it on theirs; /healthz and /readyz on both (docs/configuration.md, "Cluster only").
      OpsModule.forService(gateway ? { service: p, metricsOnHttp: false, listen: opsListenAddress(config) } : { service: p }),
      serviceModule(config, redis),
    ],
    httpAdapter: gateway ? createGatewayHttpAdapter() : new FastifyAdapter(),
    rawBody: gateway,
    shutdownSignals: ['SIGTERM', 'SIGINT'],
    busServers: busServers(config),
    // The principal check reads the (verified) bus headers this interceptor sets.
    busContext: new NatsBusContextInterceptor(),
    configure: gateway ? (app) => configureGatewayApp(app, { security: { hstsMaxAgeSeconds: config.options.hstsMaxAgeSeconds }, dashboard: { directory: config.options.dashboardDirectory, passkeyRpId: config.options.auth.passkeys.rpId } }) : undefined,
  });
}

/**
 * Where a process's HTTP side listens: the API port (PORT) for the gateway, OPS_PORT for the others.
 * The gateway's ops endpoints are on a separate listener at {@link opsListenAddress}.
 */
export function listenAddress(config: ClusterConfig): { port: number; host: string } {
  return { port: config.process === 'gateway' ? config.env.PORT : config.env.OPS_PORT, host: config.env.HOST };
}

/** Where a process's `/healthz`, `/readyz` and `/metrics` answer: OPS_PORT on HOST, for every process (the gateway included). */
export function opsListenAddress(config: ClusterConfig): OpsListenAddress {
  return { port: config.env.OPS_PORT, host: config.env.HOST };
}
