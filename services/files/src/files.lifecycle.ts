import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { IDEMPOTENCY_CLEANUP, PURGE_SWEEP, type PeriodicTask, type ReclaimScheduler, startPeriodicTask } from '@agent-memory/platform';
import { FILES_RECLAIM } from './persistence/files-reclaim';
import { FilesRepository } from './persistence/files.repository';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';

/**
 * Background work of the files service, in one place (docs/architecture.md, "Background work"):
 * - at start-up, the `files.purge-record` job handler and the re-queueing of purges a crash interrupted;
 * - the purge sweep ({@link PURGE_SWEEP}, where jobs run): every minute, purge tasks older than 2 minutes
 *   are queued again, so a long blob-store outage never strands a purge;
 * - the idempotency-key clean-up ({@link IDEMPOTENCY_CLEANUP}): every 10 minutes, one DELETE;
 * - at shutdown, the pending rewrite of the files tables runs before the database closes.
 */
@Injectable()
export class FilesLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(FilesLifecycle.name);
  private readonly tasks: PeriodicTask[] = [];

  constructor(
    private readonly purge: PurgeStoresUseCase,
    private readonly repository: FilesRepository,
    @Optional() @Inject(FILES_RECLAIM) private readonly reclaim?: ReclaimScheduler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.purge.resume();
    this.start();
  }

  /** Starts the periodic tasks (intervals are for tests). */
  start(sweepIntervalMs: number = PURGE_SWEEP.intervalMs, cleanupIntervalMs: number = IDEMPOTENCY_CLEANUP.intervalMs): void {
    this.purge.startSweep(sweepIntervalMs);
    this.tasks.push(startPeriodicTask('files-idempotency-cleanup', cleanupIntervalMs, () => this.repository.idempotency.deleteExpired(), this.logger));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.purge.stop();
    await Promise.all(this.tasks.splice(0).map((t) => t.stop()));
    await this.reclaim?.flush();
  }
}
