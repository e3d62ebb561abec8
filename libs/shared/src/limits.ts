/**
 * Limits of the interface (docs/api.md, "Sizes" and "Rate limits"), including the bounds the interface
 * chose itself (list pages, context per type, idempotency keys). Sizes are bytes of UTF-8; "50KB" and "1MB" are read as 50 × 1024 and 1024 × 1024 bytes.
 */
export const LIMITS = {
  recordName: { min: 1, max: 128 },
  agentName: { min: 1, max: 128 },
  tags: { maxCount: 10, maxLength: 64 },
  category: { min: 1, max: 32 },
  recallQuery: { min: 1, max: 1000 },
  recallLimit: { min: 1, max: 50, default: 10 },
  memoryContentBytes: { min: 1, max: 50 * 1024 },
  pathLength: { max: 256 },
  fileContentBytes: { max: 1024 * 1024 },
  rawContentBytes: { max: 1024 * 1024 },
  idempotencyKey: { min: 1, max: 255 },
  listRecords: { defaultLimit: 20, maxLimit: 100 },
  contextPerType: { default: 50, max: 200 },
  /** List memories (keyset pages, docs/api.md "Pagination"); a page also stops at `pageJsonBytes` of memory JSON. */
  listMemories: { default: 50, max: 200, pageJsonBytes: 4 * 1024 * 1024 },
  /** List files (keyset pages of metadata, docs/api.md "Pagination"). */
  listFiles: { default: 100, max: 1000 },
} as const;

/** Rate limits per 60-second window (docs/api.md, "Rate limits"). */
export const RATE_LIMITS = {
  agentPerMinute: 100,
  recordWritesPerMinute: 30,
  recordQueriesPerMinute: 60,
  windowSeconds: 60,
} as const;

/** Default category of a record and of an agent (docs/api.md, "Records", "Agents and keys"). */
export const DEFAULT_RECORD_CATEGORY = 'general';
export const DEFAULT_AGENT_CATEGORY = 'agent';

/** How long an idempotency key is remembered: 24 h (docs/api.md, "Idempotency keys"). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** Wallet signature timestamp window, ± seconds (docs/authentication.md, "Wallet signatures"). */
export const SIGNATURE_WINDOW_SECONDS = 300;
