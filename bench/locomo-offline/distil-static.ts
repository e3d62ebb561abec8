/**
 * Builds the static table of USE-lite (bench/locomo-offline/static/static-embedder.ts) into
 * tmp/static-embedder/ (git-ignored): `use-lite-static.int8.bin` and, for comparison, `use-lite-static.f32.bin`.
 * Prints the time taken and the file sizes, and checks the distilled rows against the production text runner
 * for a few whole-word pieces (a piece fed by id must give the row of its word fed as text).
 *
 * Run from the repository root: `nice -n 10 node -r @swc-node/register bench/locomo-offline/distil-static.ts`
 */
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ensureUseLiteOnnxModel, loadOnnxUseLiteRunner } from '@agent-memory/memory';
import { distilStaticTable, loadUseLiteVocabulary, readStaticTable, STATIC_DIMENSION } from './static/static-embedder';

export const STATIC_DIR = path.resolve(__dirname, '../../tmp/static-embedder');
export const STATIC_INT8 = path.join(STATIC_DIR, 'use-lite-static.int8.bin');
export const STATIC_F32 = path.join(STATIC_DIR, 'use-lite-static.f32.bin');
/** Where the service caches the converted ONNX model by default (`defaultModelCacheDirectory` of use-lite-runtime.ts). */
export const MODEL_CACHE_DIR = path.join(tmpdir(), 'agent-memory-models');

async function main(): Promise<void> {
  const cache = MODEL_CACHE_DIR;
  const results = [];
  for (const [encoding, outputPath] of [['int8', STATIC_INT8], ['float32', STATIC_F32]] as const) {
    const result = await distilStaticTable({ outputPath, encoding, modelCacheDirectory: cache, batchSize: 64 });
    results.push(result);
    console.log(
      `${encoding}: ${result.pieces} pieces × ${result.dimension} → ${result.path} (${(result.bytes / 1e6).toFixed(2)} MB); ` +
        `model load ${(result.loadMs / 1000).toFixed(1)} s, ${Math.ceil(result.pieces / 64)} model calls ${(result.embedMs / 1000).toFixed(1)} s, total ${(result.totalMs / 1000).toFixed(1)} s; ` +
        `min row cosine vs float32 ${result.minRowCosine.toFixed(6)}`,
    );
  }

  // Check: whole-word pieces by id equal the production runner's rows for the word as text.
  const table = await readStaticTable(STATIC_F32);
  const vocabulary = await loadUseLiteVocabulary();
  const file = await ensureUseLiteOnnxModel(cache);
  const runner = await loadOnnxUseLiteRunner({ modelPath: file.path, modelBytes: file.bytes });
  const words = ['▁the', '▁dog', '▁painting', '▁Caroline', '▁yesterday', '▁PostgreSQL'];
  const ids = words.map((w) => vocabulary.pieces.findIndex(([p]) => p === w)).filter((id) => id >= 0);
  const rows = await runner.run(ids.map((id) => vocabulary.pieces[id][0].slice(1)));
  ids.forEach((id, i) => {
    const a = table.vectors.subarray(id * STATIC_DIMENSION, (id + 1) * STATIC_DIMENSION);
    const b = rows[i];
    let ab = 0, aa = 0, bb = 0;
    for (let d = 0; d < STATIC_DIMENSION; d++) { ab += a[d] * b[d]; aa += a[d] * a[d]; bb += b[d] * b[d]; }
    console.log(`  ${vocabulary.pieces[id][0]} (id ${id}): cosine with the text runner's row ${(ab / Math.sqrt(aa * bb)).toFixed(6)}, norms ${Math.sqrt(aa).toFixed(4)} / ${Math.sqrt(bb).toFixed(4)}`);
  });
  runner.dispose();
  const norms: number[] = [];
  for (let t = 0; t < table.pieces; t++) {
    let s = 0;
    for (let d = 0; d < STATIC_DIMENSION; d++) s += table.vectors[t * STATIC_DIMENSION + d] ** 2;
    norms.push(Math.sqrt(s));
  }
  norms.sort((a, b) => a - b);
  console.log(`row norms: min ${norms[0].toFixed(4)}, p50 ${norms[norms.length >> 1].toFixed(4)}, max ${norms[norms.length - 1].toFixed(4)}`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
