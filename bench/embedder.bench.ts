/**
 * `node -r @swc-node/register bench/embedder.bench.ts`: Universal Sentence Encoder lite on its two
 * engines (docs/architecture.md, "The embedder"), model calls only (no HTTP, no embedder cache):
 * 1. conversion of the tfjs graph to ONNX (read + map + write, fresh directory) and load time of each engine;
 * 2. single-query latency: BENCH_QUERIES (default 200) distinct LoCoMo turns, one per call, p50/p95;
 * 3. batch throughput: the same texts in model calls of 64, texts/s.
 * Each measurement runs BENCH_REPEATS times (default 3); the table shows min and median over the
 * repeats, because the 2-core machines this runs on are often shared. onnx runs with 1 and 2 intra-op
 * threads (EMBEDDER threads default: 1, see onnx-use-lite.runner.ts), and the int8 copy (the default,
 * `EMBEDDER_PRECISION`; quantise-int8.ts) with 1 thread, one text per model run as the service runs it:
 * its unsigned weight codes, and on a CPU with VNNI also the signed ones the service uses there
 * (cpu-int8-codes.ts).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureUseLiteOnnxModel, type Int8WeightCodes, int8WeightCodesToCompare, loadOnnxUseLiteRunner, loadUseLiteRunner } from '@agent-memory/memory';
import { percentile } from './lib/stats';
import { printTable, type Cell } from './lib/table';

const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BATCH = 64;

async function turns(count: number): Promise<string[]> {
  const data = JSON.parse(await readFile(join(__dirname, 'data/locomo10.json'), 'utf8')) as { conversation: Record<string, unknown> }[];
  const out = new Set<string>();
  for (const sample of data) {
    for (const [key, value] of Object.entries(sample.conversation)) {
      if (/^session_\d+$/.test(key) && Array.isArray(value)) for (const turn of value as { text: string }[]) if (out.size < count) out.add(turn.text);
    }
  }
  return [...out];
}

const median = (values: number[]) => percentile(values, 50);

interface EngineResult {
  name: string;
  loadMs: number;
  p50: number[];
  p95: number[];
  throughput: number[];
}

async function measure(name: string, runner: Awaited<ReturnType<typeof loadUseLiteRunner>>, loadMs: number, texts: string[]): Promise<EngineResult> {
  const result: EngineResult = { name, loadMs, p50: [], p95: [], throughput: [] };
  await runner.run(texts.slice(0, 8)); // warm-up
  for (let r = 0; r < REPEATS; r++) {
    const latencies: number[] = [];
    for (const text of texts) {
      const start = performance.now();
      await runner.run([text]);
      latencies.push(performance.now() - start);
    }
    result.p50.push(percentile(latencies, 50));
    result.p95.push(percentile(latencies, 95));
    const start = performance.now();
    for (let i = 0; i < texts.length; i += BATCH) await runner.run(texts.slice(i, i + BATCH));
    result.throughput.push(texts.length / ((performance.now() - start) / 1000));
  }
  return result;
}

async function main(): Promise<void> {
  const texts = await turns(QUERIES);
  process.stdout.write(`# USE-lite engines: ${texts.length} LoCoMo turns, ${REPEATS} repeats, batches of ${BATCH}; node ${process.version}, ${cpus().length} CPUs\n\n`);
  const conversions: number[] = [];
  let modelPath = '';
  const int8Codes = int8WeightCodesToCompare();
  const int8Paths = new Map<Int8WeightCodes, string>();
  const directories: string[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const directory = await mkdtemp(join(tmpdir(), 'embedder-bench-'));
    directories.push(directory);
    const file = await ensureUseLiteOnnxModel(directory);
    conversions.push(file.conversionMs);
    modelPath = file.path;
    for (const codes of int8Codes) int8Paths.set(codes, (await ensureUseLiteOnnxModel(directory, { precision: 'int8', int8Codes: codes })).path);
  }
  const results: EngineResult[] = [];
  let start = performance.now();
  const tfjs = await loadUseLiteRunner();
  results.push(await measure('tfjs-wasm', tfjs, performance.now() - start, texts));
  tfjs.dispose();
  for (const threads of [1, 2]) {
    start = performance.now();
    const onnx = await loadOnnxUseLiteRunner({ modelPath, intraOpThreads: threads });
    results.push(await measure(`onnx, ${threads} thread${threads > 1 ? 's' : ''}`, onnx, performance.now() - start, texts));
    onnx.dispose();
  }
  for (const [codes, path] of int8Paths) {
    start = performance.now();
    const int8 = await loadOnnxUseLiteRunner({ modelPath: path, textPerRun: true });
    results.push(await measure(`onnx int8 ${codes} codes, 1 thread`, int8, performance.now() - start, texts));
    int8.dispose();
  }
  for (const directory of directories) await rm(directory, { recursive: true, force: true });
  process.stdout.write(`conversion to ONNX: min ${Math.min(...conversions).toFixed(0)} ms, median ${median(conversions).toFixed(0)} ms\n\n`);
  const rows: Cell[][] = results.map((r) => [
    r.name,
    r.loadMs.toFixed(0),
    `${Math.min(...r.p50).toFixed(2)} / ${median(r.p50).toFixed(2)}`,
    `${Math.min(...r.p95).toFixed(2)} / ${median(r.p95).toFixed(2)}`,
    `${Math.max(...r.throughput).toFixed(0)} / ${median(r.throughput).toFixed(0)}`,
  ]);
  printTable(['engine', 'load ms', 'query p50 ms (min / median)', 'query p95 ms (min / median)', `texts/s in batches of ${BATCH} (max / median)`], rows);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
