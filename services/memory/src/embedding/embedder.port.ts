/**
 * Port: turns texts into dense embeddings. Adapters: `use-lite.embedder.ts` (Universal Sentence Encoder
 * lite, offline, 512 dims) and `openai-compatible.embedder.ts` (any `/v1/embeddings` endpoint).
 */
export interface Embedder {
  /** Stable identifier of model and dimension, stored with every vector (e.g. `use-lite@512`). */
  readonly id: string;
  /** Length of every vector this embedder returns. */
  readonly dimension: number;
  /**
   * Embeds each text. Returns one unit-length (L2-normalised) vector of `dimension` floats per text, in
   * input order. Throws on model or network failure. `options.scope` names the tenant the texts belong to
   * (the record id): an embedder that caches keeps each scope's entries apart, so that no tenant can tell
   * from timing what another one embedded, and caches nothing for calls without a scope.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /** Releases model memory or connections. */
  close?(): Promise<void>;
}
export const EMBEDDER = Symbol('Embedder');

/**
 * What texts are embedded for: `query`, a recall's question, which a caller waits on; `document`, stored
 * content (a remember, a re-embedding, a contextual neighbour), which an embedder may embed away from the
 * event loop's thread so that writes neither stall nor queue in front of recalls (UseLiteEmbedder on
 * onnxruntime: a worker thread; docs/architecture.md, "The embedder"). The vectors are the same either way.
 */
export type EmbedPurpose = 'query' | 'document';

/** Options of {@link Embedder.embed}. */
export interface EmbedOptions {
  /** The tenant (record id) the texts belong to; the unit of cache isolation. Omit for texts of no tenant. */
  scope?: string;
  /** Default `query`. */
  purpose?: EmbedPurpose;
}
