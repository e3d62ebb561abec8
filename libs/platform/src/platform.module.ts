import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { join } from 'node:path';
import { BLOB_STORE } from './blob-store/blob-store.port';
import { FilesystemBlobStore } from './blob-store/filesystem.blob-store';
import { BUS_REQUEST_TIMEOUT_MS, BUS_TRANSPORT_CLIENT, BusClient } from './bus/bus-client';
import { InProcessClient, type InProcessBus } from './bus/in-process.transport';
import { CACHE_INVALIDATIONS, InProcessCacheInvalidations } from './caching/cache-invalidations';
import { DATABASE, type Database } from './database/database.port';
import { PgliteDatabase } from './database/pglite.database';
import { InProcessJobQueue } from './jobs/in-process.job-queue';
import { JOB_QUEUE, type JobQueue } from './jobs/job-queue.port';
import { ReadinessRegistry } from './ops/readiness.registry';

/** Options of the standalone platform: everything under one data directory (docs/deployment.md, "The data directory"). */
export interface StandalonePlatformOptions {
  /** Root of all data: `postgres/` (PGlite), `blobs/`, `vectors/`. */
  dataDir: string;
  /** How long a bus request may wait for its reply, ms. */
  busRequestTimeoutMs: number;
  /** The bus the in-process transport's server side is attached to. */
  bus: InProcessBus;
}

/** Where the standalone platform keeps its data; services read their own sub-directories from it. */
export const DATA_DIR = Symbol('DataDir');

/** Registers the standalone adapters' readiness check (`database`) and closes them on shutdown. */
@Injectable()
class StandaloneAdapters implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    @Inject(DATABASE) private readonly db: Database,
    @Optional() private readonly readiness?: ReadinessRegistry,
  ) {}

  onApplicationBootstrap(): void {
    // As in cluster mode: a closed or broken database makes /readyz answer 503 (docs/configuration.md).
    if (this.readiness && !this.readiness.names().includes('database')) this.readiness.register('database', () => this.db.ping());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.jobs.close();
    await this.db.close();
  }
}

/**
 * The shared infrastructure ports (database, blob store, job queue, bus) for one process. A run mode
 * only picks adapters here (docs/architecture.md, "Ports and adapters"); services inject the ports by token.
 */
@Global()
@Module({})
export class PlatformModule {
  /** Embedded adapters: PGlite, filesystem blobs, in-process jobs and bus. */
  static standalone(options: StandalonePlatformOptions): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: DATA_DIR, useValue: options.dataDir },
        { provide: DATABASE, useFactory: () => PgliteDatabase.open(join(options.dataDir, 'postgres')) },
        { provide: BLOB_STORE, useValue: new FilesystemBlobStore(join(options.dataDir, 'blobs')) },
        { provide: JOB_QUEUE, useValue: new InProcessJobQueue() },
        { provide: BUS_TRANSPORT_CLIENT, useValue: new InProcessClient(options.bus) },
        { provide: BUS_REQUEST_TIMEOUT_MS, useValue: options.busRequestTimeoutMs },
        BusClient,
        StandaloneAdapters,
        // One process: a writer's change notice reaches every cache before it answers (caching/cache-invalidations.ts).
        { provide: CACHE_INVALIDATIONS, useValue: new InProcessCacheInvalidations() },
      ],
      exports: [DATA_DIR, DATABASE, BLOB_STORE, JOB_QUEUE, BUS_TRANSPORT_CLIENT, BusClient, CACHE_INVALIDATIONS],
    };
  }
}
