import { promises as fsp } from 'node:fs';
import { endianness } from 'node:os';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { DEFAULT_BM25, scoreBm25 } from './bm25';
import { checkOrWriteDescriptor } from './descriptor-file';
import { lockDirectory, unlockDirectory } from './directory-lock';
import { DEFAULT_INDEX_MEMORY_BUDGET_BYTES, type EmbeddedIndexStats, type EmbeddedVectorIndexOptions } from './embedded.vector-index.options';
import { checkDescriptor, checkId, checkSearch, checkSparse, checkTenant, mismatchError, normalised, preparePoint, sameDescriptor } from './embedded-input';
import { readErasureMarkers, removeErasureMarker } from './erasure-markers';
import { fastScanAvailable, fastScanUnavailableReason } from './fast-scan';
import { migrateLegacyLog } from './legacy-log.migration';
import { LogCompaction } from './log-compaction';
import { LogWriter } from './log-writer';
import { loadNativeDenseScorer } from './native-dense-scorer';
import { deleteLine, fsyncDirectory, TENANTS_DIR, tenantLogPath, upsertLine } from './point-log';
import { DenseScan } from './quantised-scan';
import type { ResidentTenant } from './tenant-cache';
import type { PreparedPoint, TenantIndex } from './tenant-index';
import { PayloadTypes } from './tenant-log';
import { TenantLoader } from './tenant-loader';
import { TopK } from './top-k';
import { type CandidateHits, type CandidateSearch, type IndexDescriptor, searchCandidatesViaPort, type SparseVector, type VectorHit, type VectorIndex, type VectorPoint, type VectorSearch } from './vector-index.port';

export { DEFAULT_BM25, type Bm25Parameters } from './bm25';
export { DEFAULT_INDEX_MEMORY_BUDGET_BYTES, type EmbeddedIndexStats, type EmbeddedVectorIndexOptions } from './embedded.vector-index.options';

/**
 * Standalone adapter of {@link VectorIndex} (docs/configuration.md, "Vector index"): exact search in
 * memory, persisted under a directory, with memory bounded by a budget.
 *
 * - Dense: per tenant one contiguous `Float32Array` of unit vectors; cosine = dot product, with a bounded
 *   heap for the top k. Vectors are L2-normalised on upsert and queries on search. The products run in
 *   onnxruntime's native kernels when it loads (`nativeScan`, native-dense-scorer.ts), else in JavaScript.
 *   Tenants of 4,096 points or more are searched with a 1-bit pre-filter (the SIMD fast scan,
 *   fast-scan.ts, where WebAssembly SIMD runs; else in JavaScript, and then exactly up to 16,384 points
 *   with the native products) and exact re-scoring of 10·k to 20·k candidates ({@link DenseScan});
 *   smaller ones exactly. Scores are always exact cosines.
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
 *   (group commit); with `syncWrites: false` a commit of upserts of new points only is written but not
 *   fdatasync'ed. Changes become visible to searches once committed. A record counts only with its
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
 * The adapter implements the port (docs/architecture.md, "Ports and adapters") and opens and closes the
 * directory; it delegates keeping tenants in memory to {@link TenantLoader}, writing the logs to
 * {@link LogWriter}, and compacting them to {@link LogCompaction}.
 *
 * Errors: methods other than `open` throw before `open`/after `close`; `open` throws when the directory
 * holds another embedder's vectors, is locked by another live process, or its single old log is corrupt.
 */
export class EmbeddedVectorIndex implements VectorIndex {
  private readonly directory: string;
  private readonly tenants: TenantLoader;
  private readonly writer: LogWriter;
  private readonly compaction: LogCompaction;

  private descriptor: IndexDescriptor | null = null;
  private readonly types = new PayloadTypes();
  private readonly topK = new TopK(16);
  private readonly denseScan = new DenseScan();
  private readonly nativeScan: boolean;
  /** BM25 accumulator by slot, shared by all tenants (searches run one at a time), kept zeroed. */
  private scratch = new Float64Array(0);

  constructor(options: EmbeddedVectorIndexOptions) {
    this.directory = path.resolve(options.directory);
    this.nativeScan = options.nativeScan ?? true;
    const thresholds = { minDeadRecords: options.compaction?.minDeadRecords ?? 1000, minDeadRatio: options.compaction?.minDeadRatio ?? 0.5 };
    const budget = options.memoryBudgetBytes ?? DEFAULT_INDEX_MEMORY_BUDGET_BYTES;
    if (!(budget >= 0)) throw new Error(`invalid memory budget ${budget}`);
    // A tenant handed out for a use may need compacting: queued, not awaited (a read must not wait for the
    // write queue, nor fail with a compaction).
    this.tenants = new TenantLoader(this.directory, budget, this.types, (tenant) => this.compaction.schedule(tenant));
    this.writer = new LogWriter(this.directory, (tenant) => this.committed(tenant), options.syncWrites ?? true);
    this.compaction = new LogCompaction(this.directory, this.writer, this.tenants, this.types, thresholds);
  }

  /** Figures since `open`; throws when not open. */
  stats(): EmbeddedIndexStats {
    this.assertOpen();
    const { cache } = this.tenants;
    let logRecords = 0;
    let livePoints = 0;
    for (const tenant of cache.values()) {
      logRecords += tenant.records;
      livePoints += tenant.index.size;
    }
    return {
      logRecords,
      livePoints,
      nativeScan: this.denseScan.native !== undefined,
      fastScan: fastScanAvailable(),
      tornBytesDropped: this.tenants.tornBytesDropped,
      compacted: this.writer.compacted,
      residentTenants: cache.size,
      residentBytes: cache.bytes,
      memoryBudgetBytes: cache.budgetBytes,
      peakBytes: this.tenants.peakBytes,
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
    if (!fastScanAvailable()) {
      new Logger(EmbeddedVectorIndex.name).warn(`fast scan unavailable: ${fastScanUnavailableReason()}; large records use the JavaScript pre-filter`);
    }
    if (this.nativeScan && !this.denseScan.native) {
      const scorer = await loadNativeDenseScorer();
      if ('reason' in scorer) new Logger(EmbeddedVectorIndex.name).warn(`native dense scan unavailable: ${scorer.reason}; scanning in JavaScript`);
      else this.denseScan.native = scorer;
    }
    this.descriptor = descriptor;
  }

  async upsert(points: readonly VectorPoint[]): Promise<void> {
    this.assertOpen();
    if (points.length === 0) return;
    const byTenant = new Map<string, PreparedPoint[]>();
    for (const point of points) {
      const prepared = preparePoint(point, this.descriptor!.dimension, this.types);
      const list = byTenant.get(prepared.tenant);
      if (list) list.push(prepared);
      else byTenant.set(prepared.tenant, [prepared]);
    }
    const pinned: ResidentTenant[] = [];
    try {
      for (const id of byTenant.keys()) pinned.push((await this.tenants.acquire(id, true))!);
      await Promise.all(
        pinned.map((tenant) => {
          const prepared = byTenant.get(tenant.id)!;
          const lines = prepared.map((p) => upsertLine(p.tenant, p.id, this.types.name(p.type), p.dense, p.terms, p.tfs));
          // Replacing a point the tenant holds: synced even without `syncWrites` (log-writer.ts, `append`).
          const overwrites = prepared.some((p) => tenant.index.slotOf.has(p.id));
          return this.writer.append(
            tenant,
            lines,
            () => {
              for (const p of prepared) tenant.index.upsert(p);
            },
            { overwrites },
          );
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
      const k = Math.min(limit, index.size);
      this.topK.reset(k);
      this.denseScan.search(index, query, allowed, k, this.topK);
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
      scoreBm25(index, query, DEFAULT_BM25, allowed, limit, this.scratch, this.topK);
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

  searchCandidates(request: CandidateSearch): Promise<CandidateHits> {
    return searchCandidatesViaPort(this, request);
  }

  async delete(tenantId: string, ids: readonly string[]): Promise<void> {
    this.assertOpen();
    checkTenant(tenantId);
    const unique = [...new Set(ids)];
    for (const id of unique) checkId(id);
    if (unique.length === 0) return;
    const tenant = await this.tenants.acquire(tenantId, false);
    if (!tenant) return;
    try {
      await this.writer.append(
        tenant,
        [deleteLine(tenantId, unique)],
        () => {
          for (const id of unique) tenant.index.delete(id);
        },
        { erases: true },
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
      this.tenants.exclusive(tenantId, async () => {
        await this.writer.remove(file);
        await removeErasureMarker(this.directory, tenantId);
        this.tenants.forget(tenantId);
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
    await this.compaction.compactAll();
  }

  async close(): Promise<void> {
    if (!this.descriptor) return;
    this.descriptor = null;
    try {
      await this.writer.close();
    } finally {
      this.tenants.clear();
      this.compaction.clear();
      await unlockDirectory(this.directory);
    }
  }

  // ---------------------------------------------------------------- opening

  /** Checks or writes the descriptor, migrates a single old log, reads erasure markers; the directory is locked. */
  private async openFiles(descriptor: IndexDescriptor): Promise<void> {
    await checkOrWriteDescriptor(this.directory, descriptor);
    this.tenants.reset(descriptor.dimension);
    await migrateLegacyLog(this.directory);
    // Tenants whose logs may hold deleted points (persisted: a crash must not forget them).
    for (const tenant of await readErasureMarkers(this.directory)) this.tenants.markDirty(tenant);
    if ((await fsp.mkdir(path.join(this.directory, TENANTS_DIR), { recursive: true, mode: 0o700 })) !== undefined) await fsyncDirectory(this.directory);
    this.writer.reset();
  }

  // ---------------------------------------------------------------- tenants

  /** Runs a read on the tenant's index (or returns `empty` when the tenant has no log). */
  private async read<T>(id: string, empty: T, run: (index: TenantIndex) => T): Promise<T> {
    this.assertOpen();
    const tenant = await this.tenants.acquire(id, false);
    if (!tenant) return empty;
    try {
      return run(tenant.index);
    } finally {
      tenant.pins--;
    }
  }

  /** After a commit: account the tenant's new size, schedule its compaction, evict over budget. */
  private committed(tenant: ResidentTenant): void {
    this.tenants.cache.account(tenant);
    this.compaction.schedule(tenant);
    this.tenants.evict();
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
