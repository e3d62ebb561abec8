/**
 * `node -r @swc-node/register bench/dense-scan.bench.ts`: the embedded index's dense search alone, exact
 * against the fast-scan pre-filter with exact re-scoring (docs/configuration.md, "Which search"), at the
 * record sizes where the choice between them is made.
 *
 * BENCH_DENSE_SCAN_N (default 16,384) synthetic memories (bench/synthetic-memories.ts) and 300 of their
 * questions are embedded with the service's default USE-lite model (ONNX, int8, one text per run, as
 * `EMBEDDER_PRECISION=int8`; converted into a temp directory), each size's first memories loaded into two
 * tenant indexes: one without the fast-scan layout (searched exactly, natively, up to 16,384 points) and
 * one with it (the production layout: fast scan from 4,096 points). For k = 10 and 50 (a recall of limit
 * 10 asks the dense search for 50), after one warm-up pass, it prints the min and median over
 * BENCH_ROUNDS (default 3) rounds of each search's p50 over the questions (one thread), and the share of
 * the exact top k that the production search found. The vectors are the memories' own embeddings and the
 * questions are embedded as they are: the service's stored entries also blend in neighbours' vectors
 * (contextual indexing) and its queries are rewritten as statements, so recall's own figures are
 * `npm run bench`'s. Figures are this machine's; a diagnostic for the thresholds in quantised-scan.ts and
 * fast-scan.ts, not a benchmark of record.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DenseScan, ensureUseLiteOnnxModel, loadNativeDenseScorer, loadOnnxUseLiteRunner, normaliseL2, TenantIndex, TopK } from '@agent-memory/memory';
import { percentile } from './lib/stats';
import { printTable, type Cell } from './lib/table';
import { generateMemories } from './synthetic-memories';

const N = Number(process.env.BENCH_DENSE_SCAN_N ?? 16_384);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = [1024, 2048, 4096, 8192, 10_000, 16_384].filter((size) => size <= N);
const QUESTIONS = 300;
const BATCH = 64;

function indexOf(vectors: readonly Float32Array[], fastScan: boolean): TenantIndex {
  const index = new TenantIndex(vectors[0].length, fastScan);
  vectors.forEach((dense, i) => index.upsert({ tenant: 'bench', id: `m${i}`, type: 0, dense, terms: new Uint32Array(0), tfs: new Float32Array(0) }));
  return index;
}

/** One search per question (after a warm-up pass): the p50 of each of {@link ROUNDS} rounds (ms), and the ids each question found. */
function measure(scan: DenseScan, index: TenantIndex, queries: readonly Float32Array[], k: number): { p50s: number[]; found: string[][] } {
  const top = new TopK(k);
  const found: string[][] = [];
  const p50s: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const times: number[] = [];
    for (const query of queries) {
      const start = performance.now();
      top.reset(k);
      scan.search(index, query, null, k, top);
      const { slots } = top.drain();
      times.push(performance.now() - start);
      if (round === -1) found.push(Array.from(slots, (slot) => index.ids[slot]));
    }
    if (round >= 0) p50s.push(percentile(times, 50));
  }
  return { p50s, found };
}

/** "min / median" of a list of p50s, in ms. */
function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[0].toFixed(3)} / ${sorted[Math.floor(sorted.length / 2)].toFixed(3)}`;
}

async function main(): Promise<void> {
  const memories = generateMemories(N, 7);
  const directory = await mkdtemp(join(tmpdir(), 'dense-scan-bench-'));
  try {
    const runner = await loadOnnxUseLiteRunner({ modelPath: (await ensureUseLiteOnnxModel(directory, { precision: 'int8' })).path, textPerRun: true });
    const embed = async (texts: readonly string[]): Promise<Float32Array[]> => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += BATCH) for (const row of await runner.run(texts.slice(i, i + BATCH))) out.push(normaliseL2(row));
      return out;
    };
    const vectors = await embed(memories.map((m) => m.content));
    const step = Math.max(1, Math.floor(N / QUESTIONS));
    const queries = await embed(Array.from({ length: Math.min(QUESTIONS, N) }, (_, i) => memories[i * step].query));
    runner.dispose();
    const native = await loadNativeDenseScorer();
    if ('reason' in native) throw new Error(`the native products did not load: ${native.reason}`);
    const scan = Object.assign(new DenseScan(), { native });
    process.stdout.write(`# dense search: ${N} synthetic memories, ${queries.length} questions, ${ROUNDS} rounds after a warm-up, USE-lite int8 512-d; node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()})\n\n`);
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
        rows.push([String(size), String(k), fastIndex.fastCodes ? 'fast scan' : 'exact', spread(exact.p50s), spread(fast.p50s), `${(100 * share).toFixed(2)} %`]);
      }
    }
    printTable(['memories', 'k', 'production search', 'exact p50 ms (min / median)', 'production p50 ms (min / median)', 'exact top k found by production'], rows);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
