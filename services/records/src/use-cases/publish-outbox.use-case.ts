import { Injectable, Logger } from '@nestjs/common';
import { BusClient } from '@agent-memory/platform';
import { RecordsRepository } from '../persistence/records.repository';

/** How many outbox events one relay pass publishes at most. */
const OUTBOX_BATCH = 100;

/**
 * The outbox relay: publishes unpublished outbox events in order, retrying a failed one at the next pass
 * (every consumer then gets each event at least once). Runs after each delete and every few seconds
 * (`records.lifecycle.ts`). Concurrent calls share the pass in progress.
 */
@Injectable()
export class PublishOutboxUseCase {
  private readonly logger = new Logger(PublishOutboxUseCase.name);
  private publishing?: Promise<void>;

  constructor(
    private readonly records: RecordsRepository,
    private readonly bus: BusClient,
  ) {}

  /** One relay pass (or the one in progress). Never throws: a failure is logged and retried later. */
  execute(): Promise<void> {
    this.publishing ??= this.publishPending().finally(() => (this.publishing = undefined));
    return this.publishing;
  }

  /** Resolves when no relay pass is in progress (shutdown waits for one, without starting another). */
  async idle(): Promise<void> {
    await this.publishing;
  }

  private async publishPending(): Promise<void> {
    try {
      for (const event of await this.records.pendingOutboxEvents(OUTBOX_BATCH)) {
        try {
          await this.bus.emit(event.subject, event.payload);
          await this.records.recordOutboxAttempt(event.id, new Date());
        } catch (err) {
          this.logger.warn({ eventId: event.id, err }, 'Outbox event not delivered yet; will retry');
          await this.records.recordOutboxAttempt(event.id);
        }
      }
    } catch (err) {
      this.logger.error({ err }, 'Outbox relay failed');
    }
  }
}
