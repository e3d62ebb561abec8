import type { Logger } from '@nestjs/common';
import { type BillingRecordUsageMessage, LedgerEntrySchema, randomBase62, RECORD_USAGE_BATCH_MAX_ENTRIES, RecordUsageBatchReplySchema, SUBJECTS } from '@agent-memory/shared';
import { type BusClient, runWithBusHeaders } from '@agent-memory/platform';
import { requestWithRetry } from './bus-retry';

/**
 * How long the first ledger entry of a batch waits for others before the batch is sent, ms. A read of
 * the agent's usage or balance through this gateway does not wait for it ({@link UsageBatch.flush}).
 */
export const USAGE_BATCH_WINDOW_MS = 50;

interface Waiting {
  entry: BillingRecordUsageMessage;
  done: () => void;
}

/**
 * The ledger entries of answered calls (BILLING_MODE=ledger, Bearer key) of one gateway process, gathered
 * and written together (docs/billing.md, "When the ledger entry is written"): one
 * `billing.v1.record-usage-batch` message and one insert for every entry added within
 * {@link USAGE_BATCH_WINDOW_MS} of the first, or as soon as {@link RECORD_USAGE_BATCH_MAX_ENTRIES} wait.
 * A message and an insert per call cost the billing service 3.9 ms of CPU per recall on a 2-core
 * development machine (the memory service spends about 9 ms on the recall), taken from the cores that
 * answer the next call; batched, 1.9 to 2.0 ms (docs/billing.md, "When the ledger entry is written").
 *
 * The batch is retried like every billing step after the answer (5 attempts over ~3 s; its entries are
 * keyed by charge id, so a repeat writes nothing). When it still fails (or the billing service does not
 * know the batch subject: a rolling upgrade), each entry is sent alone as `billing.v1.record-usage`, under
 * its own principal, so that one entry the billing service refuses costs only that entry; an entry that
 * cannot be written is logged for reconciliation ("Usage could not be recorded"). Memory: at most
 * {@link RECORD_USAGE_BATCH_MAX_ENTRIES} entries wait; batches in flight follow the calls in progress.
 */
export class UsageBatch {
  private waiting: Waiting[] = [];
  private timer?: NodeJS.Timeout;
  /** Set by {@link sendAtOnce}: every entry is sent as it is added. */
  private immediate = false;

  /**
   * @param bus the gateway's bus client
   * @param logger where entries that could not be written are logged
   * @param windowMs the batching window, default {@link USAGE_BATCH_WINDOW_MS}
   */
  constructor(
    private readonly bus: Pick<BusClient, 'request'>,
    private readonly logger: Pick<Logger, 'error'>,
    private readonly windowMs: number = USAGE_BATCH_WINDOW_MS,
  ) {}

  /** Adds the ledger entry of one answered call; resolves once it is written, or was logged as lost. Never rejects. */
  add(entry: BillingRecordUsageMessage): Promise<void> {
    return new Promise<void>((done) => {
      this.waiting.push({ entry, done });
      if (this.immediate || this.waiting.length >= RECORD_USAGE_BATCH_MAX_ENTRIES) void this.flush();
      else if (!this.timer) {
        this.timer = setTimeout(() => void this.flush(), this.windowMs);
        // Shutdown sends what waits (UsageRecorder.onModuleDestroy); the window alone must not hold the process open.
        this.timer.unref();
      }
    });
  }

  /** Sends the entries waiting now, at once; resolves when they are written or logged as lost. Never rejects. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    try {
      // A context of its own: the batch acts for no caller (its entries name their agents), and the timer
      // would otherwise carry the context, and the principal, of the request that started the window.
      await runWithBusHeaders({ requestId: `usage-batch-${randomBase62(16)}` }, () => this.send(batch.map((w) => w.entry)));
    } finally {
      // Whatever happened: settled(), drained() and shutdown wait on these.
      for (const w of batch) w.done();
    }
  }

  /** From now on every entry is sent as it is added (shutdown: each call's entry before its answer), and what waits is sent now. */
  sendAtOnce(): Promise<void> {
    this.immediate = true;
    return this.flush();
  }

  private async send(entries: BillingRecordUsageMessage[]): Promise<void> {
    try {
      await requestWithRetry(this.bus, SUBJECTS.billing.recordUsageBatch, { entries }, RecordUsageBatchReplySchema);
    } catch {
      await Promise.all(entries.map((entry) => this.sendAlone(entry)));
    }
  }

  /** One entry as `billing.v1.record-usage`, under the principal the gateway authenticated for its call. */
  private async sendAlone(entry: BillingRecordUsageMessage): Promise<void> {
    try {
      await runWithBusHeaders({ requestId: entry.requestId, agentId: entry.agentId, keyEnvironment: entry.environment }, () =>
        requestWithRetry(this.bus, SUBJECTS.billing.recordUsage, entry, LedgerEntrySchema),
      );
    } catch (err) {
      // The call itself succeeded and must not be reported as failed; the gap is logged for reconciliation.
      this.logger.error({ err, requestId: entry.requestId, chargeId: entry.chargeId, agentId: entry.agentId, operation: entry.operation }, 'Usage could not be recorded');
    }
  }
}
