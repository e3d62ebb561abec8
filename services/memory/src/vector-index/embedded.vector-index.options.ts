
/** Default of {@link EmbeddedVectorIndexOptions.memoryBudgetBytes}: 256 MiB. */
export const DEFAULT_INDEX_MEMORY_BUDGET_BYTES = 256 * 1024 * 1024;

/** Options of {@link EmbeddedVectorIndex}. */
export interface EmbeddedVectorIndexOptions {
  /** Directory that holds the index files (created if missing). One index per directory. */
  directory: string;
  /**
   * A tenant's log is rewritten (when it is loaded, in the background after writes, and on `compact()`)
   * when it holds at least `minDeadRecords` dead records (replaced or deleted points, delete records) and
   * they are at least `minDeadRatio` (0..1) of its records. Default 1,000 and 0.5: a log stays under about
   * twice its live data.
   */
  compaction?: { minDeadRecords?: number; minDeadRatio?: number };
  /**
   * Bytes of tenant indexes kept in memory (default {@link DEFAULT_INDEX_MEMORY_BUDGET_BYTES}); least
   * recently used tenants beyond it are evicted and reloaded from their logs on next use. A tenant larger
   * than the whole budget still loads (alone). Set from `VECTOR_INDEX_MEMORY_BUDGET_MB` (docs/configuration.md).
   */
  memoryBudgetBytes?: number;
  /**
   * Compute dense products with onnxruntime's native kernels (native-dense-scorer.ts) when it loads;
   * default true. False, or when it cannot load (logged once), they run in JavaScript: same results,
   * 5-8x slower per product.
   */
  nativeScan?: boolean;
  /**
   * Whether an `upsert` of points the tenant does not hold yet is fdatasync'ed before it resolves;
   * default true. False: its records are written to the log before it resolves (a crash of the process
   * keeps them: they are in the operating system's page cache) but the system decides when they reach the
   * disk, so an operating-system crash or a power loss may drop the last seconds of them (the memories'
   * vectors are then missing: docs/deployment.md, "Checking and repairing a data directory"). Upserts
   * that replace a point the tenant holds (a replace, a contextual re-index after a forget), deletes with
   * their erasure markers, and compaction stay synced either way: losing those would bring back removed
   * content. Standalone sets it false: its database, PGlite, runs PostgreSQL with `fsync = off`, so its
   * commits are no more durable than that, and the sync inside every remember's transaction cost about
   * 7 % of the remember rate (docs/configuration.md, "The embedded database").
   */
  syncWrites?: boolean;
}

/** Figures about the index since `open`; for operations and tests. */
export interface EmbeddedIndexStats {
  /** Records in the logs of the tenants in memory. */
  logRecords: number;
  /** Live points of the tenants in memory. */
  livePoints: number;
  /** Bytes of torn (incomplete) log tails dropped while loading tenants since `open`. */
  tornBytesDropped: number;
  /** Whether dense products run natively ({@link EmbeddedVectorIndexOptions.nativeScan}). */
  nativeScan: boolean;
  /** Whether records of 4,096 points or more keep the SIMD fast-scan layout (fast-scan.ts; false where WebAssembly SIMD is unavailable). */
  fastScan: boolean;
  /** Whether a log was rewritten (compacted) since `open`. */
  compacted: boolean;
  /** Tenants in memory, and their estimated heap bytes (`TenantIndex.bytes()`), and the budget. */
  residentTenants: number;
  residentBytes: number;
  memoryBudgetBytes: number;
  /**
   * Peak since `open` of `residentBytes` plus the estimate (log file bytes) of the tenants being loaded:
   * what loads and writes made the index hold at once (at most about the budget plus one tenant).
   */
  peakBytes: number;
}
