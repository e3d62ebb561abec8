// Options of the memory service (`MemoryModule.forRoot`); the launchers build them from the environment
// (docs/configuration.md).
import type { FairSchedulerOptions } from '@agent-memory/platform';
import type { UseLitePrecision } from './embedding/onnx/use-lite-onnx-cache';
import type { UseLiteRuntime } from './embedding/use-lite-runtime';
import type { MemoryQuota } from './persistence/memory-quota';

/** Which embedder the memory service uses (local model by default, OpenAI-compatible optional; docs/configuration.md). */
export type EmbedderConfig =
  /**
   * Universal Sentence Encoder lite. `runtime`: the engine (default `auto`: native onnxruntime, tfjs-wasm as
   * the fallback; `EMBEDDER_RUNTIME`); `precision`: the onnx model's arithmetic (default `int8`,
   * `EMBEDDER_PRECISION`); `modelCacheDirectory`: where its ONNX conversion is cached
   * (`<DATA_DIR>/models`; default a directory under the OS temp dir). See embedding/use-lite-runtime.ts.
   */
  | { kind: 'use-lite'; runtime?: UseLiteRuntime; precision?: UseLitePrecision; modelCacheDirectory?: string }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; dimension: number; timeoutMs: number };

/** Which vector index the memory service uses. */
export type VectorIndexConfig =
  /** Standalone: the index under `directory`; `memoryBudgetBytes` bounds the tenant indexes kept loaded, `syncWrites` (default true) fdatasyncs its upserts (embedded.vector-index.options.ts). */
  | { kind: 'embedded'; directory: string; memoryBudgetBytes?: number; syncWrites?: boolean }
  /** Cluster mode without Qdrant: the `vector-index` service over the bus (see vector-index/vector-index.module.ts). */
  | { kind: 'remote' }
  /** Cluster mode with Qdrant: one collection per embedder, `<collectionPrefix>__<embedder>__<dimension>` (qdrant.vector-index.ts). */
  | { kind: 'qdrant'; url: string; apiKey?: string; collectionPrefix?: string };

/** The OpenAI-compatible chat endpoint that refines type and summary after remember (env `ENRICHMENT_LLM_*`). */
export interface EnrichmentConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Per-request timeout, ms; default 30000. */
  timeoutMs?: number;
}

/** What `MemoryModule.forRoot` takes. */
export interface MemoryModuleOptions {
  embedder: EmbedderConfig;
  vectorIndex: VectorIndexConfig;
  /** Optional: without it no enrichment is queued and memories keep the local type and summary. */
  enrichment?: EnrichmentConfig;
  /**
   * Load the embedding model, the type classifier's prototypes and the summariser at start-up, before the
   * process reports ready, instead of on the first remember or recall (cluster mode: a replica behind a
   * readiness probe must not take its first requests cold; ~2-3 s of CPU). Default false (standalone
   * starts faster and loads on first use).
   */
  warmUp?: boolean;
  /** Per-agent storage quota (docs/api.md, "Storage quotas"); default {@link DEFAULT_MEMORY_QUOTA}. */
  quota?: MemoryQuota;
  /**
   * Admission control of remember and recall (docs/configuration.md, "Fairness between agents"); default
   * {@link DEFAULT_MEMORY_ADMISSION}.
   */
  admission?: FairSchedulerOptions;
  /**
   * How soon after a forget or record purge the memory tables are rewritten so that no dead row keeps the
   * forgotten text (`FORGET_VACUUM_DELAY_MS`, ms; docs/deployment.md, "Forgotten content and the database
   * files"). Default {@link DEFAULT_FORGET_VACUUM_DELAY_MS}.
   */
  vacuumDelayMs?: number;
  /**
   * Contextual indexing (`RECALL_CONTEXT`, `RECALL_CONTEXT_GAP_SECONDS`; docs/configuration.md, "Recall"):
   * whether a memory's index entry borrows from the memories written just before it, and the time gap
   * that cuts the context. Default on (libs/config), 1800 s (recall/contextual-index.ts, `DEFAULT_CONTEXT`).
   */
  recallContext?: { enabled: boolean; gapSeconds: number };
}

/** Injection token of the {@link MemoryModuleOptions} in force. */
export const MEMORY_MODULE_OPTIONS = Symbol('MemoryModuleOptions');
