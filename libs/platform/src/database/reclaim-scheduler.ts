import { Logger } from '@nestjs/common';
import { type Database, ReclaimIncompleteError } from './database.port';

/**
 * Runs {@link Database.reclaim} on a service's tables at most `delayMs` after the first deletion that
 * asked for it (docs/deployment.md, "Forgotten content and the database files"). Throttled, not
 * debounced: a steady stream of forgets cannot postpone the rewrite forever; a burst shares one run.
 * Runs never overlap: a request during a run schedules the next one. A failed run is logged (error; an
 * incomplete one, {@link ReclaimIncompleteError}, as a warning) and retried after another `delayMs`.
 * The timer is unref'd, so it never keeps a process alive.
 */
export class ReclaimScheduler {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly tables: readonly string[],
    private readonly delayMs: number,
    private readonly logger = new Logger(ReclaimScheduler.name),
  ) {}

  /** Asks for a reclaim within `delayMs`; cheap, call after every purge. */
  request(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runNow();
    }, this.delayMs);
    this.timer.unref();
  }

  /** Runs the reclaim now (after a run in progress); errors are logged and a retry is requested. */
  async runNow(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.db
      .reclaim(this.tables)
      .catch((err: unknown) => {
        // A transaction older than the run was still open (PgDatabase.reclaim): expected under long transactions, not a fault.
        if (err instanceof ReclaimIncompleteError) this.logger.warn({ err: err.message, tables: this.tables }, 'Reclaiming deleted rows incomplete; retrying later');
        else this.logger.error({ err, tables: this.tables }, 'Reclaiming deleted rows failed; retrying later');
        this.running = undefined;
        this.request();
      })
      .finally(() => (this.running = undefined));
    await this.running;
  }

  /** At shutdown, before the database closes: runs a pending reclaim now, then accepts no more requests. */
  async flush(): Promise<void> {
    const pending = this.timer !== undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped = true;
    if (pending) await this.runNow();
    else await this.running;
  }
}
