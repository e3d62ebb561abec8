import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadUseLiteRunner, UseLiteEmbedder, USE_LITE_MAX_TEXT_CHARS, type EmbeddingBatchRunner } from '../use-lite.embedder';
import { dot } from '../vector-math';
import { int8WeightCodesToCompare } from './cpu-int8-codes';
import { loadOnnxUseLiteRunner } from './onnx-use-lite.runner';
import type { Int8WeightCodes } from './quantise-int8';
import { ensureUseLiteOnnxModel } from './use-lite-onnx-cache';

// The ONNX conversion must give the vectors the tfjs model gives (docs/architecture.md, "The embedder"):
// stored vectors stay valid whichever engine embedded them, so the embedder id does not change. The int8
// copy (quantise-int8.ts) must stay in the same embedding space on any x86 CPU: cosine >= 0.998 to the fp32
// vectors. Its unsigned weight codes are checked on every CPU; the signed ones, which the service uses only
// on a CPU with VNNI (elsewhere onnxruntime's kernel saturates 16-bit sums: cosine 0.954), only there.
const CODES: Int8WeightCodes[] = int8WeightCodesToCompare();

/** Every distinct turn of the first LoCoMo conversations, up to `count` (real chat sentences of all lengths). */
async function locomoTurns(count: number): Promise<string[]> {
  const data = JSON.parse(await readFile(join(__dirname, '../../../../../bench/data/locomo10.json'), 'utf8')) as { conversation: Record<string, unknown> }[];
  const turns = new Set<string>();
  for (const sample of data) {
    for (const [key, value] of Object.entries(sample.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(value)) continue;
      for (const turn of value as { text: string }[]) {
        turns.add(turn.text);
        if (turns.size === count) return [...turns];
      }
    }
  }
  return [...turns];
}

/** Edge cases: empty-ish, one word, unicode, punctuation, numbers, long texts cut as the embedder cuts them. */
const EDGE_CASES = [
  '',
  ' ',
  '\n\t',
  'a',
  'Hello',
  '?',
  '12345 67890',
  'Ünïcödé façade naïve café',
  '日本語のテキストと中文文本',
  'Привет, как дела?',
  'emoji 🙂🚀👩‍👩‍👧 mixed',
  '\uD83D',
  'x'.repeat(USE_LITE_MAX_TEXT_CHARS + 1),
  'The quick brown fox jumps over the lazy dog. '.repeat(1200), // ~54 KB, above the 50 KB memory limit
  'word '.repeat(10_000),
];

describe('USE-lite on onnxruntime vs tfjs-wasm', () => {
  let directory: string;
  let tfjs: EmbeddingBatchRunner;
  let onnx: EmbeddingBatchRunner;
  const int8 = new Map<Int8WeightCodes, EmbeddingBatchRunner>();

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'use-lite-onnx-'));
    const file = await ensureUseLiteOnnxModel(directory);
    [tfjs, onnx] = await Promise.all([loadUseLiteRunner(), loadOnnxUseLiteRunner({ modelPath: file.path })]);
    for (const codes of CODES) {
      const int8File = await ensureUseLiteOnnxModel(directory, { precision: 'int8', int8Codes: codes });
      int8.set(codes, await loadOnnxUseLiteRunner({ modelPath: int8File.path, textPerRun: true }));
    }
    if (!CODES.includes('signed')) process.stdout.write('int8 signed weight codes not checked: this CPU has no VNNI, so the service never uses them here\n');
  });

  afterAll(async () => {
    tfjs?.dispose();
    onnx?.dispose();
    for (const runner of int8.values()) runner.dispose();
    await rm(directory, { recursive: true, force: true });
  });

  it('embeds 300 LoCoMo turns and the edge cases with cosine >= 0.9999 to the tfjs vectors, in batches and alone', async () => {
    const texts = [...(await locomoTurns(300)), ...EDGE_CASES];
    expect(texts.length).toBeGreaterThanOrEqual(300);
    // Two embedders over the two engines: the same cut, batching and normalisation path as production.
    const viaTfjs = new UseLiteEmbedder({ loadRunner: async () => ({ run: (t) => tfjs.run(t), dispose() {} }), cacheSize: 0 });
    const viaOnnx = new UseLiteEmbedder({ loadRunner: async () => ({ run: (t) => onnx.run(t), dispose() {} }), cacheSize: 0, maxBatchSize: 32 });
    const expected = await viaTfjs.embed(texts);
    const batched = await viaOnnx.embed(texts);
    const alone = await Promise.all(texts.slice(0, 20).concat(EDGE_CASES).map(async (text) => (await viaOnnx.embed([text]))[0]));
    let minimum = 1;
    batched.forEach((vector, i) => {
      expect(vector).toHaveLength(512);
      const cosine = dot(vector, expected[i]);
      minimum = Math.min(minimum, cosine);
      if (cosine < 0.9999) throw new Error(`text ${i} (${JSON.stringify(texts[i].slice(0, 40))}): cosine ${cosine}`);
    });
    const aloneTexts = texts.slice(0, 20).concat(EDGE_CASES);
    alone.forEach((vector, i) => expect(dot(vector, expected[texts.indexOf(aloneTexts[i])])).toBeGreaterThanOrEqual(0.9999));
    process.stdout.write(`onnx vs tfjs: min cosine ${minimum.toFixed(9)} over ${texts.length} texts\n`);
    await Promise.all([viaTfjs.close(), viaOnnx.close()]);
  }, 300_000); // tfjs-wasm on 315 texts (two of ~50 KB) takes 20-40 s alone, several times that on a loaded 2-core machine

  it.each(CODES)('int8 (%s codes): embeds 300 LoCoMo turns and the edge cases with cosine >= 0.998 to the fp32 vectors (0.999 on average over the turns), and ranks like fp32 (signed codes: also equal to the unsigned ones)', async (codes) => {
    const texts = [...(await locomoTurns(300)), ...EDGE_CASES];
    const runner = int8.get(codes)!;
    const viaFp32 = new UseLiteEmbedder({ loadRunner: async () => ({ run: (t) => onnx.run(t), dispose() {} }), cacheSize: 0, maxBatchSize: 32 });
    const viaInt8 = new UseLiteEmbedder({ loadRunner: async () => ({ run: (t) => runner.run(t), dispose() {} }), cacheSize: 0, maxBatchSize: 32 });
    const [expected, quantised] = [await viaFp32.embed(texts), await viaInt8.embed(texts)];
    let minimum = 1;
    quantised.forEach((vector, i) => {
      expect(vector).toHaveLength(512);
      const cosine = dot(vector, expected[i]);
      minimum = Math.min(minimum, cosine);
      if (cosine < 0.998) throw new Error(`text ${i} (${JSON.stringify(texts[i].slice(0, 40))}): cosine ${cosine}`);
    });
    const meanOverTurns = quantised.slice(0, 300).reduce((sum, vector, i) => sum + dot(vector, expected[i]), 0) / 300;
    expect(meanOverTurns).toBeGreaterThanOrEqual(0.999);
    // Ranking: each of the first 50 turns as a query over the 300 turns; its fp32 top 5 and int8 top 5 share at
    // least 3 (near ties may swap places), and 90 % over all.
    const top5 = (vectors: Float32Array[], query: number) =>
      vectors.slice(0, 300).map((vector, i) => ({ i, score: i === query ? -Infinity : dot(vector, vectors[query]) })).sort((a, b) => b.score - a.score).slice(0, 5).map((hit) => hit.i);
    let shared = 0;
    for (let query = 0; query < 50; query++) {
      const fp32Top = top5(expected, query);
      const int8Top = new Set(top5(quantised, query));
      const overlap = fp32Top.filter((i) => int8Top.has(i)).length;
      expect(overlap).toBeGreaterThanOrEqual(3);
      shared += overlap;
    }
    expect(shared / 250).toBeGreaterThanOrEqual(0.9);
    if (codes === 'signed') {
      // The same codes and exact integer sums: the signed copy gives the unsigned copy's vectors, to the bit
      // (measured: all 300 turns identical), so switching CPUs never moves a stored vector.
      const unsigned = int8.get('unsigned')!;
      let largest = 0;
      for (const text of texts.slice(0, 100)) {
        const [[a], [b]] = [await runner.run([text]), await unsigned.run([text])];
        for (let j = 0; j < a.length; j++) largest = Math.max(largest, Math.abs(a[j] - b[j]));
      }
      expect(largest).toBeLessThanOrEqual(1e-6);
      process.stdout.write(`int8 signed vs unsigned codes: largest difference ${largest} over 100 texts\n`);
    }
    process.stdout.write(`int8 (${codes} codes) vs fp32: min cosine ${minimum.toFixed(6)} over ${texts.length} texts, mean ${meanOverTurns.toFixed(6)} over the turns; top-5 overlap ${((100 * shared) / 250).toFixed(1)} %\n`);
    await Promise.all([viaFp32.close(), viaInt8.close()]);
  }, 300_000);

  it('returns rows in input order for a ragged batch (texts of very different lengths), each as if embedded alone', async () => {
    const texts = ['short', 'a much longer sentence about a trip to the mountains with old friends last summer', 'mid length text'];
    for (const runner of [onnx, ...int8.values()]) {
      const together = await runner.run(texts);
      for (const [i, text] of texts.entries()) {
        const [single] = await runner.run([text]);
        const largestDifference = Math.max(...Array.from(single, (v, j) => Math.abs(v - together[i][j])));
        expect(largestDifference).toBeLessThan(1e-5);
      }
    }
  });
});
