import { fileSize, tenantLogPath } from './point-log';
import { TenantCache, type ResidentTenant } from './tenant-cache';
import { replayTenant, type PayloadTypes } from './tenant-log';

/**
 * The tenants of one embedded vector index directory in memory: loads a tenant from its log
 * (`tenants/<tenant>.wal.jsonl`) on first use, keeps the resident ones in a {@link TenantCache} within
 * its budget (bytes, least recently used evicted), and remembers the tenants not in memory whose logs
 * hold dead records (`dirty`: compaction rewrites them). Also serialises, per tenant, loading it with
 * removing or rewriting its log ({@link exclusive}). See docs/configuration.md, "Vector index".
 *
 * Loads run one at a time across the index, and each first evicts down to the budget minus its log's
 * size (an estimate of the index it builds), so concurrent uses of many evicted tenants hold about the
 * budget plus one tenant, not one rebuilt tenant per request.
 */
export class TenantLoader {
  /** The resident tenants (their indexes in memory) and their total estimated bytes. */
  readonly cache: TenantCache;
  /** Dimension of the open index's vectors (set by {@link reset}). */
  private dimension = 0;
  /** Bytes of torn log tails dropped while loading tenants since {@link reset}. */
  private tornBytes = 0;
  /** Tenants not in memory whose logs hold dead records: compaction rewrites them. */
  private readonly dirty = new Set<string>();
  /** Per-tenant chains that serialise loading a tenant with removing or rewriting its log. */
  private readonly locks = new Map<string, Promise<void>>();
  /** Estimated bytes (log sizes) of the tenants being loaded right now. */
  private loadingBytes = 0;
  /** Peak of resident + loading bytes since {@link reset}. */
  private peak = 0;
  /** Tail of the chain that runs tenant loads one at a time. */
  private loadQueue: Promise<void> = Promise.resolve();

  /**
   * `directory`: the index directory (absolute); `budgetBytes`: bytes of tenant indexes kept in memory;
   * `types`: the payload type names shared by the index; `used`: called with each tenant handed out by
   * {@link acquire} (after it was pinned).
   */
  constructor(
    private readonly directory: string,
    budgetBytes: number,
    private readonly types: PayloadTypes,
    private readonly used: (tenant: ResidentTenant) => void,
  ) {
    this.cache = new TenantCache(budgetBytes);
  }

  /** Bytes of torn (incomplete) log tails dropped while loading tenants since {@link reset}. */
  get tornBytesDropped(): number {
    return this.tornBytes;
  }

  /** Peak since {@link reset} of resident bytes plus the estimate of the tenants being loaded. */
  get peakBytes(): number {
    return this.peak;
  }

  /** Forgets every tenant and figure; on `open`, with the dimension of the index's vectors. */
  reset(dimension: number): void {
    this.dimension = dimension;
    this.tornBytes = 0;
    this.peak = 0;
    this.cache.clear();
    this.dirty.clear();
  }

  /** Forgets every tenant (on `close`). */
  clear(): void {
    this.cache.clear();
    this.dirty.clear();
  }

  /** Marks a tenant whose log may hold dead records (e.g. it has an erasure marker). */
  markDirty(id: string): void {
    this.dirty.add(id);
  }

  /** Unmarks a tenant after its log was rewritten (or found clean). */
  markClean(id: string): void {
    this.dirty.delete(id);
  }

  /** The tenants marked dirty right now (a copy). */
  dirtyTenants(): string[] {
    return [...this.dirty];
  }

  /** Drops a tenant whose log was removed: its queued writes are refused from now on. */
  forget(id: string): void {
    const tenant = this.cache.remove(id);
    if (tenant) tenant.deleted = true;
    this.dirty.delete(id);
  }

  /**
   * The tenant's index, loaded if needed, pinned (the caller unpins it with `pins--`). Without `create`,
   * a tenant with no log gives undefined and nothing is kept in memory.
   */
  async acquire(id: string, create: boolean): Promise<ResidentTenant | undefined> {
    let tenant = this.cache.get(id);
    if (!tenant) {
      tenant = await this.exclusive(id, async () => this.cache.get(id) ?? (await this.load(id, create)));
      if (!tenant) return undefined;
    }
    tenant.pins++;
    this.used(tenant);
    return tenant;
  }

  /**
   * Replays a tenant's log into a new index and makes it resident (unless already resident); call inside
   * {@link exclusive}. Without `create`, a tenant with no log gives undefined. Throws when the log is
   * corrupt (damage followed by valid records).
   */
  async load(id: string, create = true): Promise<ResidentTenant | undefined> {
    const previous = this.loadQueue;
    let release!: () => void;
    this.loadQueue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      const peeked = this.cache.get(id);
      return peeked ?? (await this.loadNow(id, create));
    } finally {
      release();
    }
  }

  /** Evicts least recently used tenants over the budget (marking those with dead records dirty). */
  evict(): void {
    for (const tenant of this.cache.evict()) if (tenant.records > tenant.index.size) this.dirty.add(tenant.id);
    this.notePeak();
  }

  /** Runs `run` after every earlier `exclusive` of the same tenant has finished. */
  async exclusive<T>(tenant: string, run: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(tenant) ?? Promise.resolve();
    let release!: () => void;
    const mine = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    this.locks.set(tenant, mine);
    await previous;
    try {
      return await run();
    } finally {
      release();
      if (this.locks.get(tenant) === mine) this.locks.delete(tenant);
    }
  }

  private async loadNow(id: string, create: boolean): Promise<ResidentTenant | undefined> {
    const file = tenantLogPath(this.directory, id);
    const estimate = (await fileSize(file)) ?? 0;
    for (const evicted of this.cache.evict(estimate)) if (evicted.records > evicted.index.size) this.dirty.add(evicted.id);
    this.loadingBytes += estimate;
    this.notePeak();
    let replayed;
    try {
      replayed = await replayTenant(file, id, this.dimension, this.types);
    } finally {
      this.loadingBytes -= estimate;
    }
    const { index, validBytes, records, tornBytes } = replayed;
    if (records === 0 && tornBytes === 0 && !create) return undefined;
    this.tornBytes += tornBytes;
    const tenant: ResidentTenant = { id, index, file, fileBytes: validBytes, records, pins: 0, accounted: 0, deleted: false };
    if (records > index.size) this.dirty.add(id);
    this.cache.add(tenant);
    this.evict();
    return tenant;
  }

  private notePeak(): void {
    this.peak = Math.max(this.peak, this.cache.bytes + this.loadingBytes);
  }
}
