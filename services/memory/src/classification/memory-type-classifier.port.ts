import type { MemoryType } from '@agent-memory/shared';

/**
 * Port: picks one of the five memory types for content whose writer gave none (docs/api.md, "Memories":
 * classified when `type` is omitted). Adapter: `prototype.memory-type-classifier.ts` (embedding prototypes
 * plus lexical cues); an LLM endpoint can replace it later.
 */
export interface MemoryTypeClassifier {
  /** `embedding` is the content's embedding from the configured embedder, when the caller has it. */
  classify(content: string, embedding?: Float32Array): Promise<MemoryType>;
}
export const MEMORY_TYPE_CLASSIFIER = Symbol('MemoryTypeClassifier');
