export * from './memory.module';
export { VectorIndexServiceModule } from './vector-index/vector-index.module';
export * from './use-cases/check-memories';
export * from './memory-check.stores';

// Recall, embedding and index building blocks, for the benchmarks (bench/) that measure them outside
// the service; the service itself reaches them through MemoryModule.
export { PrototypeMemoryTypeClassifier } from './classification/prototype.memory-type-classifier';
export { EMBEDDER, type Embedder } from './embedding/embedder.port';
export { boundForUseLite, loadUseLiteRunner, UseLiteEmbedder } from './embedding/use-lite.embedder';
export { loadOnnxUseLiteRunner } from './embedding/onnx/onnx-use-lite.runner';
export { ensureUseLiteOnnxModel } from './embedding/onnx/use-lite-onnx-cache';
export { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from './embedding/use-lite.tokenizer';
export { chunkForEmbedding } from './recall/document-embedding';
export {
  type ConvexFusionOptions,
  convexScoreFusion,
  HYBRID_FUSION,
  type HybridCandidates,
  type HybridHit,
} from './recall/hybrid-ranking';
export { hybridSearch, type HybridSearchRequest } from './recall/hybrid-search';
export {
  createKeywordEncoder,
  DEFAULT_KEYWORD_OPTIONS,
  encodeKeywords,
  encodeQuery,
  type KeywordEncoder,
  SNOWBALL_STOP_WORDS,
} from './recall/keyword-encoder';
export { denseQueryText } from './recall/query-rewrite';
export { ExtractiveSummariser } from './summary/extractive.summariser';
export { type Bm25Parameters, DEFAULT_BM25 } from './vector-index/bm25';
export { EmbeddedVectorIndex } from './vector-index/embedded.vector-index';
export type { EmbeddedVectorIndexOptions } from './vector-index/embedded.vector-index.options';
export type { SparseVector, VectorPoint } from './vector-index/vector-index.port';
