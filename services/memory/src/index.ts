export * from './memory.module';
export { VectorIndexServiceModule } from './vector-index/vector-index.module';
export * from './use-cases/check-memories';
export * from './memory-check.stores';
export { RememberUseCase } from './use-cases/remember.use-case';

// Recall, embedding and index building blocks, for the benchmarks (bench/) that measure them outside
// the service; the service itself reaches them through MemoryModule.
export { PrototypeMemoryTypeClassifier } from './classification/prototype.memory-type-classifier';
export { EMBEDDER, type EmbedOptions, type Embedder } from './embedding/embedder.port';
export { boundForUseLite, loadUseLiteRunner, UseLiteEmbedder } from './embedding/use-lite.embedder';
export { DEFAULT_INTRA_OP_THREADS, loadOnnxUseLiteRunner, type OrtModule } from './embedding/onnx/onnx-use-lite.runner';
export { openUseLiteSession, runUseLiteOnnx } from './embedding/onnx/onnx-use-lite.session';
export { ensureUseLiteOnnxModel, useLiteModelPackage } from './embedding/onnx/use-lite-onnx-cache';
export { cpuHasVnni, int8WeightCodesToCompare } from './embedding/onnx/cpu-int8-codes';
export type { Int8WeightCodes } from './embedding/onnx/quantise-int8';
export { normaliseL2 } from './embedding/vector-math';
export { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from './embedding/use-lite.tokenizer';
export { chunkForEmbedding, embedDocument } from './recall/document-embedding';
export {
  contextDepth,
  contextOf,
  contextOptionsFor,
  contextualEntry,
  type ContextOptions,
  type ContextSource,
  DEFAULT_CONTEXT,
  gateCosine,
  NO_CONTEXT,
} from './recall/contextual-index';
export { USE_LITE_MEAN } from './recall/use-lite-mean';
export {
  type ConvexFusionOptions,
  convexScoreFusion,
  HYBRID_FUSION,
  hybridCandidateDepth,
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
// The dense search's parts, for bench/dense-scan.bench.ts (exact against fast-scan search at each size).
export { loadNativeDenseScorer, type NativeDenseScorer } from './vector-index/native-dense-scorer';
export { DenseScan } from './vector-index/quantised-scan';
export { TenantIndex } from './vector-index/tenant-index';
export { TopK } from './vector-index/top-k';
