/**
 * `node -r @swc-node/register bench/dense-scan.bench.ts`: the embedded index's dense search alone, exact
 * against the fast-scan pre-filter with exact re-scoring (docs/configuration.md, "Which search"), at the
 * record sizes where the choice between them is made.
 *
 * DENSE_SCAN_N (default 16,384) synthetic memories (bench/synthetic-memories.ts) and 300 of their
 * questions are embedded with the service's USE-lite ONNX model (converted into a temp directory), each
 * size's first memories loaded into two tenant indexes: one without the fast-scan layout (searched exactly,
 * natively, up to 16,384 points) and one with it (the production layout: fast scan from 4,096 points).
 * For k = 10 and 50 (a recall of limit 10 asks the dense search for 50), it prints each search's p50 over
 * 3 passes of the questions, one thread, and the share of the exact top k the other search found.
 * Figures are this machine's; a diagnostic for the thresholds in quantised-scan.ts and fast-scan.ts, not
 * a benchmark of record (that is `npm run bench`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DenseScan, ensureUseLiteOnnxModel, loadNativeDenseScorer, loadOnnxUseLiteRunner, TenantIndex, TopK } from '@agent-memory/memory';
import { percentile } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { generateMemories } from './synthetic-memories';

const N = Number(process.env.DENSE_SCAN_N ?? 16_384);
const SIZES = [1024, 2048, 4096, 8192, 10_000, 16_384].filter((size) => size <= N);
const QUESTIONS = 300;
const PASSES = 3;
const BATCH = 64;

function unit(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

function indexOf(vectors: readonly Float32Array[], fastScan: boolean): TenantIndex {
  const index = new TenantIndex(vectors[0].length, fastScan);
  vectors.forEach((dense, i) => index.upsert({ tenant: 'bench', id: `m${i}`, type: 0, dense, terms: new Uint32Array(0), tfs: new Float32Array(0) }));
  return index;
}

/** p50 of one search per question over {@link PASSES} passes (ms), and the ids each question found. */
function measure(scan: DenseScan, index: TenantIndex, queries: readonly Float32Array[], k: number): { p50: number; found: string[][] } {
  const top = new TopK(k);
  const times: number[] = [];
  const found: string[][] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    for (const query of queries) {
      const start = performance.now();
      top.reset(k);
      scan.search(index, query, null, k, top);
      const { slots } = top.drain();
      times.push(performance.now() - start);
      if (pass === 0) found.push(Array.from(slots, (slot) => index.ids[slot]));
    }
  }
  return { p50: percentile(times, 50), found };
}

async function main(): Promise<void> {
  const memories = generateMemories(N, 7);
  const directory = await mkdtemp(join(tmpdir(), 'dense-scan-bench-'));
  try {
    const runner = await loadOnnxUseLiteRunner({ modelPath: (await ensureUseLiteOnnxModel(directory)).path });
    const embed = async (texts: readonly string[]): Promise<Float32Array[]> => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) for (const row of await runner.run(texts.slice(i, i + BATCH))) out.push(unit(row));
      return out;
    };
    const vectors = await embed(memories.map((m) => m.content));
    const step = Math.max(1, Math.floor(N / QUESTIONS));
    const queries = await embed(Array.from({ length: Math.min(QUESTIONS, N) }, (_, i) => memories[i * step].query));
    runner.dispose();
    const native = await loadNativeDenseScorer();
    if ('reason' in native) throw new Error(`the native products did not load: ${native.reason}`);
    const scan = Object.assign(new DenseScan(), { native });
    process.stdout.write(`# dense search: ${N} synthetic memories, ${queries.length} questions x ${PASSES} passes, USE-lite 512-d; node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})\n\n`);
    const rows: Cell[][] = [];
    for (const size of SIZES) {
      const exactIndex = indexOf(vectors.slice(0, size), false);
      const fastIndex = indexOf(vectors.slice(0, size), true);
      for (const k of [10, 50]) {
        const exact = measure(scan, exactIndex, queries, k);
        const fast = measure(scan, fastIndex, queries, k);
        let kept = 0;
        exact.found.forEach((ids, q) => {
          const got = new Set(fast.found[q]);
          kept += ids.filter((id) => got.has(id)).length;
        });
        const share = kept / exact.found.reduce((sum, ids) => sum + ids.length, 0);
        rows.push([String(size), String(k), fastIndex.fastCodes ? 'fast scan' : 'exact', exact.p50.toFixed(3), fast.p50.toFixed(3), `${(100 * share).toFixed(2)} %`]);
      }
    }
    printTable(['memories', 'k', 'production search', 'exact p50 ms', 'production p50 ms', 'exact top k found by production'], rows);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
