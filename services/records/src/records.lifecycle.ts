import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { type PeriodicTask, startPeriodicTask } from '@agent-memory/platform';
import { CleanUpOutboxUseCase } from './use-cases/clean-up-outbox.use-case';
import { PublishOutboxUseCase } from './use-cases/publish-outbox.use-case';

/** How often the outbox relay runs besides after each delete, ms (it retries events a consumer missed). */
export const OUTBOX_RELAY_INTERVAL_MS = 5_000;
/** How often published outbox events are cleaned up, ms. */
export const OUTBOX_CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Background work of the records service (docs/architecture.md, "Background work"): the outbox relay,
 * once at start and every {@link OUTBOX_RELAY_INTERVAL_MS}, and the clean-up of published events every
 * {@link OUTBOX_CLEANUP_INTERVAL_MS}. Shutdown waits for a pass in progress.
 */
@Injectable()
export class RecordsLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private tasks: PeriodicTask[] = [];

  constructor(
    private readonly publishOutbox: PublishOutboxUseCase,
    private readonly cleanUpOutbox: CleanUpOutboxUseCase,
  ) {}

  onApplicationBootstrap(): void {
    void this.publishOutbox.execute();
    this.tasks = [
      startPeriodicTask('records-outbox-relay', OUTBOX_RELAY_INTERVAL_MS, () => this.publishOutbox.execute()),
      startPeriodicTask('records-outbox-cleanup', OUTBOX_CLEANUP_INTERVAL_MS, () => this.cleanUpOutbox.execute()),
    ];
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.tasks.map((task) => task.stop()));
    await this.publishOutbox.idle();
  }
}
