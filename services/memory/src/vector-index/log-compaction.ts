import { removeErasureMarker } from './erasure-markers';
import type { LogWriter } from './log-writer';
import type { ResidentTenant } from './tenant-cache';
import { liveLines, type PayloadTypes } from './tenant-log';
import type { TenantLoader } from './tenant-loader';

/** When a tenant's log is rewritten (see `EmbeddedVectorIndexOptions.compaction`). */
export interface CompactionThresholds {
  /** Dead records (replaced or deleted points, delete records) a log must hold at least. */
  minDeadRecords: number;
  /** Share (0..1) of a log's records that must be dead. */
  minDeadRatio: number;
}

/**
 * When and how the tenant logs of one embedded vector index are compacted (docs/configuration.md,
 * "Vector index"): a tenant's live points are written to a new file, synced, then renamed over its log
 * (by the {@link LogWriter}), and its erasure marker is removed.
 *
 * - {@link schedule}: after a tenant is used or written, a background rewrite is queued (ahead of other
 *   writes, once per tenant at a time) when its log meets the thresholds. Nobody waits for it; a failure
 *   before its rename is ignored and retried on a later use.
 * - {@link compactAll}: `compact()` of the index; rewrites every resident log with dead records and every
 *   dirty tenant's log (tenants evicted with dead records, or with an erasure marker), loading it.
 */
export class LogCompaction {
  /** Tenants with a background compaction queued in the writer (one at a time each). */
  private readonly queued = new Set<ResidentTenant>();

  constructor(
    private readonly directory: string,
    private readonly writer: LogWriter,
    private readonly tenants: TenantLoader,
    private readonly types: PayloadTypes,
    private readonly thresholds: CompactionThresholds,
  ) {}

  /**
   * Queues a background rewrite of the tenant's log when it meets the thresholds (once per tenant at a
   * time). Nobody waits for it; a failure before its rename is ignored and retried on a later use.
   */
  schedule(tenant: ResidentTenant): void {
    if (!this.shouldCompact(tenant) || this.queued.has(tenant)) return;
    this.queued.add(tenant);
    this.writer.urgent(async () => {
      this.queued.delete(tenant);
      await this.compactIfDead(tenant);
    });
  }

  /**
   * Rewrites every log with known dead records to only its live points, in the writer (after the writes
   * queued before it). Throws what the writer throws (a failed write before, or a failed rename).
   */
  async compactAll(): Promise<void> {
    await this.writer.job(async () => {
      for (const tenant of [...this.tenants.cache.values()]) {
        if (tenant.records > tenant.index.size) await this.rewrite(tenant);
      }
      for (const id of this.tenants.dirtyTenants()) {
        await this.tenants.exclusive(id, async () => {
          // Loaded meanwhile: then it is rewritten as a resident tenant (pinned while it runs).
          const resident = this.tenants.cache.peek(id) ?? (await this.tenants.load(id));
          if (resident && resident.records > resident.index.size) await this.rewrite(resident);
          else await removeErasureMarker(this.directory, id);
          this.tenants.markClean(id);
        });
      }
    });
  }

  /** Forgets the queued compactions (on `close`). */
  clear(): void {
    this.queued.clear();
  }

  /** Rewrites a tenant's log with its live points; runs in the writer. */
  private async rewrite(tenant: ResidentTenant): Promise<void> {
    const { index } = tenant;
    tenant.pins++;
    try {
      await this.writer.rewrite(tenant, liveLines(tenant.id, index, this.types));
      await removeErasureMarker(this.directory, tenant.id);
      tenant.erasureMarked = false;
      this.tenants.markClean(tenant.id);
    } finally {
      tenant.pins--;
    }
  }

  /** Rewrites the tenant's log if it is still resident and still meets the thresholds when the job runs (another job may have done it). */
  private async compactIfDead(tenant: ResidentTenant): Promise<void> {
    // An evicted tenant is dirty; rewriting it here could race with its reload.
    if (this.tenants.cache.peek(tenant.id) === tenant && this.shouldCompact(tenant)) await this.rewrite(tenant);
  }

  private shouldCompact(tenant: ResidentTenant): boolean {
    const dead = tenant.records - tenant.index.size;
    return !tenant.deleted && dead > 0 && dead >= this.thresholds.minDeadRecords && dead >= this.thresholds.minDeadRatio * tenant.records;
  }
}
