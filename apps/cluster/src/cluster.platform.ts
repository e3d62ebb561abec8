import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { Redis } from 'ioredis';
import {
  BLOB_STORE,
  type BlobStore,
  BUS_REQUEST_TIMEOUT_MS,
  BUS_TRANSPORT_CLIENT,
  BusClient,
  BullMqJobQueue,
  CACHE_INVALIDATIONS,
  CACHE_TOKENS,
  CACHE_TOKENS_REDIS_OPTIONS,
  DATA_DIR,
  DATABASE,
  JOB_QUEUE,
  Metrics,
  type JobQueue,
  NatsBusClient,
  PgDatabase,
  ReadinessRegistry,
  RedisCacheTokens,
  S3BlobStore,
} from '@agent-memory/platform';
import { type ClusterConfig, NEEDS, natsAuthOf, type ProcessName } from './cluster.config';
import { JobsOpsController } from './jobs-ops.controller';

/** Injection token of the Redis connections this process opened outside BullMQ (gateway: rate limits, replay cache; cache tokens). */
export const REDIS_CONNECTIONS = Symbol('RedisConnections');

const has = (list: readonly ProcessName[], p: ProcessName) => list.includes(p);

/** Closes the adapters in reverse order of use and registers their readiness checks. */
@Injectable()
class ClusterAdapters implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(BUS_TRANSPORT_CLIENT) private readonly bus: NatsBusClient,
    @Inject(REDIS_CONNECTIONS) private readonly redis: Redis[],
    @Optional() @Inject(DATABASE) private readonly db?: PgDatabase,
    @Optional() @Inject(BLOB_STORE) private readonly blobs?: S3BlobStore,
    @Optional() @Inject(JOB_QUEUE) private readonly jobs?: BullMqJobQueue,
    @Optional() private readonly readiness?: ReadinessRegistry,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const jobQueue = this.jobs;
    if (jobQueue && this.metrics) {
      this.metrics.registerQueueDepth(async () =>
        (await jobQueue.counts()).flatMap((c) => (['waiting', 'active', 'delayed', 'failed'] as const).map((state) => ({ queue: c.queue, state, count: c[state] }))),
      );
    }
    if (!this.readiness) return;
    const { db, blobs, jobs } = this;
    if (db) this.readiness.register('database', () => db.ping());
    if (blobs) this.readiness.register('blob-store', () => blobs.ping());
    // The gateway's Redis (rate limits, replay cache) is deliberately not a readiness check: during a Redis
    // outage the gateway keeps serving (in-memory insurance limiter), and failing /readyz on every replica
    // at once would take the whole API out of the Service instead.
    if (jobs) this.readiness.register('job-queue', async () => void (await jobs.counts()));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.jobs?.close();
    await this.db?.close();
    for (const r of this.redis) r.disconnect();
    await this.bus.close();
  }
}

/**
 * The cluster adapters of one process (docs/architecture.md, "Ports and adapters"): NATS bus (+ JetStream events), PostgreSQL,
 * S3/MinIO blobs, BullMQ jobs on Redis, Redis for the gateway and the gateway's cache tokens. A process gets only the adapters it uses
 * (`NEEDS`); services inject the same ports as in standalone mode.
 */
@Global()
@Module({})
export class ClusterPlatformModule {
  /** The adapters of process `config.process`; `redisConnections` (filled by the gateway's module) are closed at shutdown. */
  static forProcess(config: ClusterConfig, redisConnections: Redis[] = []): DynamicModule {
    const e = config.env;
    const p = config.process;
    const providers: DynamicModule['providers'] = [
      { provide: DATA_DIR, useValue: config.dataDir },
      { provide: BUS_TRANSPORT_CLIENT, useFactory: () => new NatsBusClient([e.NATS_URL], `agent-memory-${p}`, e.BUS_REQUEST_TIMEOUT_MS, natsAuthOf(config)) },
      { provide: BUS_REQUEST_TIMEOUT_MS, useValue: e.BUS_REQUEST_TIMEOUT_MS },
      { provide: REDIS_CONNECTIONS, useValue: redisConnections },
      BusClient,
      ClusterAdapters,
    ];
    const exports: DynamicModule['exports'] = [DATA_DIR, BUS_TRANSPORT_CLIENT, BusClient];
    const controllers: NonNullable<DynamicModule['controllers']> = [];
    if (has(NEEDS.database, p)) {
      providers.push({ provide: DATABASE, useFactory: () => new PgDatabase({ connectionString: e.DATABASE_URL, poolSize: e.DB_POOL_SIZE, migrations: e.MIGRATIONS }) });
      exports.push(DATABASE);
    }
    if (has(NEEDS.blobs, p) && config.s3) {
      const s3 = config.s3;
      providers.push({
        provide: BLOB_STORE,
        useFactory: async (): Promise<BlobStore> => {
          const store = new S3BlobStore(s3);
          await store.ensureBucket();
          return store;
        },
      });
      exports.push(BLOB_STORE);
    }
    if (has(NEEDS.jobs, p)) {
      // The memory API only enqueues; the memory worker processes; files does both (its one job is light).
      const role = p === 'memory' ? 'producer' : p === 'memory-worker' ? 'worker' : 'both';
      providers.push({
        provide: JOB_QUEUE,
        useFactory: (): JobQueue => new BullMqJobQueue({ connection: e.REDIS_URL, prefix: `${e.REDIS_KEY_PREFIX}:jobs`, role, concurrency: e.JOB_CONCURRENCY }),
      });
      exports.push(JOB_QUEUE);
      controllers.push(JobsOpsController);
    }
    if (has(NEEDS.cacheTokens, p)) {
      // The gateway reads the tokens; the agents and records services replace them after their changes commit.
      providers.push({
        provide: p === 'gateway' ? CACHE_TOKENS : CACHE_INVALIDATIONS,
        useFactory: () => {
          const redis = new Redis(e.REDIS_URL, CACHE_TOKENS_REDIS_OPTIONS);
          // Outages are answered per command (no cache, or the writer's error); this only keeps them out of the log's unhandled events.
          redis.on('error', () => undefined);
          redisConnections.push(redis);
          return new RedisCacheTokens(redis, `${e.REDIS_KEY_PREFIX}:cache`);
        },
      });
      exports.push(p === 'gateway' ? CACHE_TOKENS : CACHE_INVALIDATIONS);
    }
    return { module: ClusterPlatformModule, providers, exports, controllers };
  }
}
