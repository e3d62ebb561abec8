import type { EmbedOptions, Embedder } from '../embedding/embedder.port';
import { normaliseL2 } from '../embedding/vector-math';

/** Characters per embedded chunk: the sentence model's cost grows steeply with input length. */
export const EMBEDDING_CHUNK_CHARS = 1_000;
/** Chunks embedded per memory: content beyond 8 000 characters still counts for keyword recall, not for the embedding. */
export const EMBEDDING_MAX_CHUNKS = 8;

/**
 * Splits text into at most `maxChunks` pieces of about `chunkChars` UTF-16 code units, cutting at a space
 * where it can, else hard but never inside a surrogate pair. Linear in `chunkChars × maxChunks`.
 */
export function chunkForEmbedding(text: string, chunkChars = EMBEDDING_CHUNK_CHARS, maxChunks = EMBEDDING_MAX_CHUNKS): string[] {
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > 0 && chunks.length < maxChunks) {
    if (rest.length <= chunkChars) {
      chunks.push(rest);
      break;
    }
    const cut = rest.lastIndexOf(' ', chunkChars);
    const hard = /[\uD800-\uDBFF]/.test(rest[chunkChars - 1]) ? chunkChars - 1 : chunkChars;
    const end = cut > chunkChars / 2 ? cut : hard;
    chunks.push(rest.slice(0, end));
    rest = rest.slice(end).trimStart();
  }
  return chunks.length > 0 ? chunks : [text];
}

/**
 * Embedding of a memory's content: short content is embedded as is; long content is embedded in chunks
 * (one batched model call) whose mean is re-normalised, so a 50 KB memory costs about as much as 8
 * sentences-worth of model time instead of seconds. Returns a unit vector of the embedder's dimension.
 * `options.scope` (the record id) is passed to the embedder, which keeps its cache per scope. Required, so
 * that no caller forgets it: pass `{}` only for text of no tenant (docs/api.md, "Isolation"). The texts go
 * to the embedder as `purpose: 'document'` (stored content: off the event loop's thread where it can).
 */
export async function embedDocument(embedder: Embedder, content: string, options: EmbedOptions): Promise<Float32Array> {
  const chunks = chunkForEmbedding(content);
  const vectors = await embedder.embed(chunks, { ...options, purpose: 'document' });
  if (vectors.length !== chunks.length || !vectors[0]) throw new Error('The embedder returned no vector');
  if (vectors.length === 1) return vectors[0];
  const mean = new Float32Array(embedder.dimension);
  for (const v of vectors) for (let i = 0; i < mean.length; i++) mean[i] += v[i];
  return normaliseL2(mean);
}
