import { promises as fsp } from 'node:fs';
import { endianness } from 'node:os';
import * as path from 'node:path';
import { DEFAULT_BM25, scoreBm25, type Bm25Parameters } from './bm25';
import { lockDirectory, unlockDirectory } from './directory-lock';
import { DEFAULT_INDEX_MEMORY_BUDGET_BYTES, type EmbeddedIndexStats, type EmbeddedVectorIndexOptions } from './embedded.vector-index.options';
import { checkDescriptor, checkId, checkSearch, checkSparse, checkTenant, mismatchError, normalised, preparePoint, sameDescriptor } from './embedded-input';
import { readErasureMarkers, removeErasureMarker } from './erasure-markers';
import { LEGACY_LOG_FILE, migrateLegacyLog } from './legacy-log.migration';
import { LogWriter } from './log-writer';
import { deleteLine, fileSize, fsyncDirectory, hasEntries, readJson, TENANTS_DIR, tenantLogPath, upsertLine, writeFileAtomic } from './point-log';
import { TenantCache, type ResidentTenant } from './tenant-cache';
import type { PreparedPoint, TenantIndex } from './tenant-index';
import { liveLines, PayloadTypes, replayTenant } from './tenant-log';
import { TopK } from './top-k';
import type { IndexDescriptor, SparseVector, VectorHit, VectorIndex, VectorPoint, VectorSearch } from './vector-index.port';

export { DEFAULT_BM25, TEXTBOOK_BM25, type Bm25Parameters } from './bm25';
export { DEFAULT_INDEX_MEMORY_BUDGET_BYTES, type EmbeddedIndexStats, type EmbeddedVectorIndexOptions } from './embedded.vector-index.options';

const DESCRIPTOR_FILE = 'descriptor.json';
const FORMAT = 1;

/**
 * Standalone adapter of {@link VectorIndex} (docs/configuration.md, "Vector index"): exact search in
 * memory, persisted under a directory, with memory bounded by a budget.
 *
 * - Dense: per tenant one contiguous `Float32Array` of unit vectors; cosine = dot product, exact, with a
 *   bounded heap for the top k. Vectors are L2-normalised on upsert and queries on search.
 * - Sparse: per tenant an inverted index in pooled typed arrays (see {@link TenantIndex}), Okapi BM25
 *   as in {@link scoreBm25} with k1 and b from the options (default {@link DEFAULT_BM25}).
 * - Files in `directory`: `descriptor.json` (embedderId, dimension, format), `tenants/<tenant>.wal.jsonl`
 *   (one append-only log per tenant, one JSON record per line: upsert with the vector as base64 of
 *   little-endian float32, or delete), `LOCK` (pid of the process that has it open). A single log
 *   `points.wal.jsonl` of earlier versions is split into per-tenant logs on `open` (streaming).
 * - Memory: `open` reads no log. A tenant is loaded from its log on first use and kept while the
 *   resident tenants fit `memoryBudgetBytes`; least recently used ones are evicted beyond it.
 * - Durability: each `upsert`/`delete`/`deleteTenant` resolves after its records are written and
 *   fdatasync'ed (or its log removed and the directory synced); concurrent calls share one commit
 *   (group commit). Changes become visible to searches when durable. A record counts only with its
 *   final newline: a torn tail left by a crash is dropped (and truncated) when the tenant is loaded;
 *   damage followed by valid records is corruption, and that tenant's operations throw.
 * - Compaction (see {@link EmbeddedVectorIndexOptions.compaction}, and {@link compact}): a tenant's live
 *   points are written to a new file, synced, then renamed over its log. `compact()` rewrites every log
 *   with dead records known to this instance (tenants changed or loaded since `open`) and every log with
 *   an erasure marker (`erasures/`, written before a delete record and by the migration of a single log,
 *   kept across restarts until the log is rewritten), so deleted vectors are erased from disk even after
 *   a crash; `deleteTenant` removes the tenant's log.
 * - A failed write or sync makes the instance refuse further writes (the file state is then unknown);
 *   reopen to recover from the logs.
 *
 * Errors: methods other than `open` throw before `open`/after `close`; `open` throws when the directory
 * holds another embedder's vectors, is locked by another live process, or its single old log is corrupt.
 */
export class EmbeddedVectorIndex implements VectorIndex {
  private readonly directory: string;
  private readonly bm25: Bm25Parameters;
  private readonly minDeadRecords: number;
  private readonly minDeadRatio: number;
  private readonly cache: TenantCache;
  private readonly writer: LogWriter;

  private descriptor: IndexDescriptor | null = null;
  /** Dimension of the open index (kept while opening, when `descriptor` is not yet set). */
  private dimension = 0;
  private tornBytesDropped = 0;
  /** Tenants not in memory whose logs hold dead records: `compact()` rewrites them. */
  private readonly dirty = new Set<string>();
  /** Per-tenant chains that serialise loading a tenant with removing or rewriting its log. */
  private readonly locks = new Map<string, Promise<void>>();
  /** Tenants with a background compaction queued in the writer (one at a time each). */
  private readonly compactionQueued = new Set<ResidentTenant>();
  private readonly types = new PayloadTypes();
  /** Estimated bytes (log sizes) of the tenants being loaded right now, and the peak of resident + loading. */
  private loadingBytes = 0;
  /** Tail of the chain that runs tenant loads one at a time. */
  private loadQueue: Promise<void> = Promise.resolve();
  private peakBytes = 0;
  private readonly topK = new TopK(16);
  /** BM25 accumulator by slot, shared by all tenants (searches run one at a time), kept zeroed. */
  private scratch = new Float64Array(0);

  constructor(options: EmbeddedVectorIndexOptions) {
    this.directory = path.resolve(options.directory);
    this.bm25 = { k1: options.bm25?.k1 ?? DEFAULT_BM25.k1, b: options.bm25?.b ?? DEFAULT_BM25.b };
    this.minDeadRecords = options.compaction?.minDeadRecords ?? 1000;
    this.minDeadRatio = options.compaction?.minDeadRatio ?? 0.5;
    const budget = options.memoryBudgetBytes ?? DEFAULT_INDEX_MEMORY_BUDGET_BYTES;
    if (!(this.bm25.k1 >= 0) || !(this.bm25.b >= 0 && this.bm25.b <= 1)) throw new Error(`invalid BM25 parameters k1=${this.bm25.k1} b=${this.bm25.b}`);
    if (!(budget >= 0)) throw new Error(`invalid memory budget ${budget}`);
    this.cache = new TenantCache(budget);
    this.writer = new LogWriter(this.directory, (tenant) => this.committed(tenant));
  }

  /** Figures since `open`; throws when not open. */
  stats(): EmbeddedIndexStats {
    this.assertOpen();
    let logRecords = 0;
    let livePoints = 0;
    for (const tenant of this.cache.values()) {
      logRecords += tenant.records;
      livePoints += tenant.index.size;
    }
    return {
      logRecords,
      livePoints,
      tornBytesDropped: this.tornBytesDropped,
      compacted: this.writer.compacted,
      residentTenants: this.cache.size,
      residentBytes: this.cache.bytes,
      memoryBudgetBytes: this.cache.budgetBytes,
      peakBytes: this.peakBytes,
    };
  }

  async open(descriptor: IndexDescriptor): Promise<void> {
    checkDescriptor(descriptor);
    if (this.descriptor) {
      if (!sameDescriptor(this.descriptor, descriptor)) throw mismatchError(this.directory, this.descriptor, descriptor);
      return;
    }
    if (endianness() !== 'LE') throw new Error('the embedded vector index stores little-endian floats and needs a little-endian host');
    await fsp.mkdir(this.directory, { recursive: true, mode: 0o700 });
    await lockDirectory(this.directory);
    try {
      await this.openFiles(descriptor);
    } catch (error) {
      await unlockDirectory(this.directory);
      throw error;
    }
    this.descriptor = descriptor;
  }

  async upsert(points: readonly VectorPoint[]): Promise<void> {
    this.assertOpen();
    if (points.length === 0) return;
    const byTenant = new Map<string, PreparedPoint[]>();
    for (const point of points) {
      const prepared = preparePoint(point, this.dimension, this.types);
      const list = byTenant.get(prepared.tenant);
      if (list) list.push(prepared);
      else byTenant.set(prepared.tenant, [prepared]);
    }
    const pinned: ResidentTenant[] = [];
    try {
      for (const id of byTenant.keys()) pinned.push((await this.acquire(id, true))!);
      await Promise.all(
        pinned.map((tenant) => {
          const prepared = byTenant.get(tenant.id)!;
          const lines = prepared.map((p) => upsertLine(p.tenant, p.id, this.types.name(p.type), p.dense, p.terms, p.tfs));
          return this.writer.append(tenant, lines, () => {
            for (const p of prepared) tenant.index.upsert(p);
          });
        }),
      );
    } finally {
      for (const tenant of pinned) tenant.pins--;
    }
  }

  async searchDense(vector: Float32Array, search: VectorSearch): Promise<VectorHit[]> {
    const query = this.prepareQueryVector(vector);
    const limit = Math.floor(checkSearch(search).limit);
    return this.read(search.tenant, [], (index) => {
      // After the load: type names are registered while a tenant's log is replayed.
      const allowed = this.types.mask(search.types);
      if (limit <= 0 || (allowed && allowed.every((a) => a === 0))) return [];
      this.topK.reset(Math.min(limit, index.size));
      index.scanDense(query, allowed, this.topK);
      return this.hits(index);
    });
  }

  async searchSparse(query: SparseVector, search: VectorSearch): Promise<VectorHit[]> {
    this.assertOpen();
    checkSparse(query, 'query');
    const limit = Math.floor(checkSearch(search).limit);
    return this.read(search.tenant, [], (index) => {
      // After the load: type names are registered while a tenant's log is replayed.
      const allowed = this.types.mask(search.types);
      if (limit <= 0 || index.size === 0) return [];
      if (this.scratch.length < index.size) this.scratch = new Float64Array(index.size);
      scoreBm25(index, query, this.bm25, allowed, limit, this.scratch, this.topK);
      return this.hits(index);
    });
  }

  async scoreDense(vector: Float32Array, tenantId: string, ids: readonly string[]): Promise<Map<string, number>> {
    const query = this.prepareQueryVector(vector);
    return this.read(checkTenant(tenantId), new Map<string, number>(), (index) => {
      const scores = new Map<string, number>();
      for (const id of ids) {
        const slot = index.slotOf.get(id);
        if (slot !== undefined && !scores.has(id)) scores.set(id, index.dot(query, slot));
      }
      return scores;
    });
  }

  async delete(tenantId: string, ids: readonly string[]): Promise<void> {
    this.assertOpen();
    checkTenant(tenantId);
    const unique = [...new Set(ids)];
    for (const id of unique) checkId(id);
    if (unique.length === 0) return;
    const tenant = await this.acquire(tenantId, false);
    if (!tenant) return;
    try {
      await this.writer.append(
        tenant,
        [deleteLine(tenantId, unique)],
        () => {
          for (const id of unique) tenant.index.delete(id);
        },
        true,
      );
    } finally {
      tenant.pins--;
    }
  }

  async deleteTenant(tenantId: string): Promise<void> {
    this.assertOpen();
    checkTenant(tenantId);
    const file = tenantLogPath(this.directory, tenantId);
    await this.writer.job(() =>
      this.exclusive(tenantId, async () => {
        await this.writer.remove(file);
        await removeErasureMarker(this.directory, tenantId);
        const tenant = this.cache.remove(tenantId);
        if (tenant) tenant.deleted = true;
        this.dirty.delete(tenantId);
      }),
    );
  }

  async count(tenantId: string): Promise<number> {
    this.assertOpen();
    return this.read(checkTenant(tenantId), 0, (index) => index.size);
  }

  /** Rewrites every log with known dead records to only its live points; waits for pending writes first. */
  async compact(): Promise<void> {
    this.assertOpen();
    await this.writer.job(async () => {
      for (const tenant of [...this.cache.values()]) {
        if (tenant.records > tenant.index.size) await this.rewrite(tenant);
      }
      for (const id of [...this.dirty]) {
        await this.exclusive(id, async () => {
          // Loaded meanwhile: then it is rewritten as a resident tenant (pinned while it runs).
          const resident = this.cache.peek(id) ?? (await this.load(id));
          if (resident && resident.records > resident.index.size) await this.rewrite(resident);
          else await removeErasureMarker(this.directory, id);
          this.dirty.delete(id);
        });
      }
    });
  }

  async close(): Promise<void> {
    if (!this.descriptor) return;
    this.descriptor = null;
    try {
      await this.writer.close();
    } finally {
      this.cache.clear();
      this.dirty.clear();
      this.compactionQueued.clear();
      await unlockDirectory(this.directory);
    }
  }

  // ---------------------------------------------------------------- opening and loading

  private async openFiles(descriptor: IndexDescriptor): Promise<void> {
    const descriptorPath = path.join(this.directory, DESCRIPTOR_FILE);
    const stored = await readJson(descriptorPath);
    if (stored === undefined) {
      if (((await fileSize(path.join(this.directory, LEGACY_LOG_FILE))) ?? 0) > 0 || (await hasEntries(path.join(this.directory, TENANTS_DIR)))) {
        throw new Error(`vector index in ${this.directory} has a log but no ${DESCRIPTOR_FILE}; refusing to guess its embedder`);
      }
      await writeFileAtomic(
        descriptorPath,
        JSON.stringify({ format: FORMAT, embedderId: descriptor.embedderId, dimension: descriptor.dimension }, null, 2) + '\n',
      );
    } else {
      const found = stored as { format?: unknown; embedderId?: unknown; dimension?: unknown };
      if (typeof found.embedderId !== 'string' || typeof found.dimension !== 'number') {
        throw new Error(`vector index descriptor ${descriptorPath} is malformed`);
      }
      if (found.format !== FORMAT) throw new Error(`vector index in ${this.directory} has format ${String(found.format)}, expected ${FORMAT}`);
      const existing = { embedderId: found.embedderId, dimension: found.dimension };
      if (!sameDescriptor(existing, descriptor)) throw mismatchError(this.directory, existing, descriptor);
    }
    this.dimension = descriptor.dimension;
    this.tornBytesDropped = 0;
    this.peakBytes = 0;
    this.cache.clear();
    this.dirty.clear();
    await migrateLegacyLog(this.directory);
    // Tenants whose logs may hold deleted points (persisted: a crash must not forget them).
    for (const tenant of await readErasureMarkers(this.directory)) this.dirty.add(tenant);
    if ((await fsp.mkdir(path.join(this.directory, TENANTS_DIR), { recursive: true, mode: 0o700 })) !== undefined) await fsyncDirectory(this.directory);
    this.writer.reset();
  }

  /**
   * The tenant's index, loaded if needed, pinned (the caller unpins it). Without `create`, a tenant with
   * no log gives undefined and nothing is kept in memory.
   */
  private async acquire(id: string, create: boolean): Promise<ResidentTenant | undefined> {
    let tenant = this.cache.get(id);
    if (!tenant) {
      tenant = await this.exclusive(id, async () => this.cache.get(id) ?? (await this.load(id, create)));
      if (!tenant) return undefined;
    }
    tenant.pins++;
    // Queued, not awaited: a read must not wait for the write queue, nor fail with a compaction.
    this.scheduleCompaction(tenant);
    return tenant;
  }

  /** Runs a read on the tenant's index (or returns `empty` when the tenant has no log). */
  private async read<T>(id: string, empty: T, run: (index: TenantIndex) => T): Promise<T> {
    this.assertOpen();
    const tenant = await this.acquire(id, false);
    if (!tenant) return empty;
    try {
      return run(tenant.index);
    } finally {
      tenant.pins--;
    }
  }

  /**
   * Replays a tenant's log into a new index and makes it resident; call inside {@link exclusive}. Loads
   * run one at a time across the index, and each first evicts down to the budget minus its log's size
   * (an estimate of the index it builds), so concurrent uses of many evicted tenants hold about the
   * budget plus one tenant, not one rebuilt tenant per request.
   */
  private async load(id: string, create = true): Promise<ResidentTenant | undefined> {
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
    this.tornBytesDropped += tornBytes;
    const tenant: ResidentTenant = { id, index, file, fileBytes: validBytes, records, pins: 0, accounted: 0, deleted: false };
    if (records > index.size) this.dirty.add(id);
    this.cache.add(tenant);
    this.evict();
    return tenant;
  }

  /** Rewrites a tenant's log with its live points; runs in the writer. */
  private async rewrite(tenant: ResidentTenant): Promise<void> {
    const { index } = tenant;
    tenant.pins++;
    try {
      await this.writer.rewrite(tenant, liveLines(tenant.id, index, this.types));
      await removeErasureMarker(this.directory, tenant.id);
      tenant.erasureMarked = false;
      this.dirty.delete(tenant.id);
    } finally {
      tenant.pins--;
    }
  }

  /** After a commit: account the tenant's new size, schedule its compaction, evict over budget. */
  private committed(tenant: ResidentTenant): void {
    this.cache.account(tenant);
    this.scheduleCompaction(tenant);
    this.evict();
  }

  /**
   * Queues a background rewrite of the tenant's log when it meets the thresholds (once per tenant at a
   * time). Nobody waits for it; a failure before its rename is ignored and retried on a later use.
   */
  private scheduleCompaction(tenant: ResidentTenant): void {
    if (!this.shouldCompact(tenant) || this.compactionQueued.has(tenant)) return;
    this.compactionQueued.add(tenant);
    this.writer.urgent(async () => {
      this.compactionQueued.delete(tenant);
      await this.compactIfDead(tenant);
    });
  }

  /** Rewrites the tenant's log if it is still resident and still meets the thresholds when the job runs (another job may have done it). */
  private async compactIfDead(tenant: ResidentTenant): Promise<void> {
    // An evicted tenant is in `dirty`; rewriting it here could race with its reload.
    if (this.cache.peek(tenant.id) === tenant && this.shouldCompact(tenant)) await this.rewrite(tenant);
  }

  private shouldCompact(tenant: ResidentTenant): boolean {
    const dead = tenant.records - tenant.index.size;
    return !tenant.deleted && dead > 0 && dead >= this.minDeadRecords && dead >= this.minDeadRatio * tenant.records;
  }

  private evict(): void {
    for (const tenant of this.cache.evict()) if (tenant.records > tenant.index.size) this.dirty.add(tenant.id);
    this.notePeak();
  }

  private notePeak(): void {
    this.peakBytes = Math.max(this.peakBytes, this.cache.bytes + this.loadingBytes);
  }

  /** Runs `run` after every earlier `exclusive` of the same tenant has finished. */
  private async exclusive<T>(tenant: string, run: () => Promise<T>): Promise<T> {
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

  // ---------------------------------------------------------------- points and queries

  private prepareQueryVector(vector: Float32Array): Float32Array {
    this.assertOpen();
    const dim = this.descriptor!.dimension;
    if (!(vector instanceof Float32Array) || vector.length !== dim) {
      throw new Error(`query vector has ${vector?.length} dimensions, the index has ${dim}`);
    }
    return normalised(vector, 'query vector', true);
  }

  private hits(index: TenantIndex): VectorHit[] {
    const { slots, scores } = this.topK.drain();
    const hits: VectorHit[] = new Array<VectorHit>(slots.length);
    for (let i = 0; i < slots.length; i++) hits[i] = { id: index.ids[slots[i]], score: scores[i] };
    return hits;
  }

  private assertOpen(): void {
    if (!this.descriptor) throw new Error(`vector index in ${this.directory} is not open`);
  }
}
