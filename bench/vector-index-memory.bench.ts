/**
 * `npm run bench:index-memory`: memory of the embedded vector index for large memories of distinct words.
 *
 * Data: BENCH_MEMORIES (default 1,000) memories of about 50 KB of distinct random words each, encoded
 * by the service's own keyword encoder (recall/keyword-encoder.ts), with random 512-d unit vectors,
 * 10 memories per record (tenant). Each phase runs in a fresh child process (`--expose-gc`), so its
 * heap and RSS are its own:
 * 1. write: upsert every memory (all kept in memory: budget unbounded); heap (V8 used heap plus array
 *    buffers, where typed arrays keep their elements, after a full GC) and RSS growth, and both scaled to 1,000 memories; the index's own byte estimate; log size;
 * 2. reopen: open the written directory (start-up time, heap and RSS right after), first search on one
 *    record (its load time), then one search on every record (default budget: 256 MiB), heap and RSS
 *    after;
 * 3. search latency on a loaded record (dense and BM25, 200 queries each, p50/p99).
 *
 * BEFORE/AFTER: `BENCH_BEFORE_REV=801bc7d` also measures the implementation of that commit (its
 * `embedded.vector-index.ts`, `top-k.ts`, `vector-index.port.ts` extracted into a temp dir), on
 * BENCH_BEFORE_MEMORIES (default 200) memories, since it needs several GB for 1,000; its figures are
 * scaled to 1,000 memories linearly. Timings are from this machine and vary with load.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { encodeKeywords, encodeQuery, type EmbeddedVectorIndex, type EmbeddedVectorIndexOptions } from '@agent-memory/memory';
import { percentile, seededRandom } from './lib/stats';
import { printTable } from './lib/table';

// The file each child process loads, the same way as an extracted BENCH_BEFORE_REV copy (a path, not an import).
const AFTER_MODULE = path.resolve(__dirname, '../services/memory/src/vector-index/embedded.vector-index');
const DIM = 512;
const PER_TENANT = 10;
const QUERIES = 200;
const MiB = 1024 * 1024;

interface WriteResult { memories: number; terms: number; heapMiB: number; rssMiB: number; indexMiB: number; diskMiB: number; seconds: number }
interface ReopenResult { openMs: number; openHeapMiB: number; openRssMiB: number; firstLoadMs: number; allHeapMiB: number; allRssMiB: number; peakRssMiB: number; allMs: number; dense: number[]; sparse: number[] }

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  // Typed arrays keep their elements outside the V8 heap (array buffers): count both.
  const { heapUsed: onHeap, arrayBuffers } = process.memoryUsage();
  return onHeap + arrayBuffers;
}

/** About 50 KB of random lower-case words (4-9 letters): nearly all distinct. */
function text(seed: number): string {
  const next = seededRandom(seed);
  const words: string[] = [];
  let length = 0;
  while (length < 50_000) {
    let word = '';
    const n = 4 + Math.floor(next() * 6);
    for (let i = 0; i < n; i++) word += String.fromCharCode(97 + Math.floor(next() * 26));
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

function unitVector(next: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => next() * 2 - 1);
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

async function openIndex(module: string, directory: string, budget?: number): Promise<EmbeddedVectorIndex> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EmbeddedVectorIndex: Index } = require(module) as { EmbeddedVectorIndex: new (o: EmbeddedVectorIndexOptions) => EmbeddedVectorIndex };
  const index = new Index({ directory, memoryBudgetBytes: budget });
  await index.open({ embedderId: 'bench-index-memory', dimension: DIM });
  return index;
}

function diskBytes(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    total += entry.isDirectory() ? diskBytes(file) : statSync(file).size;
  }
  return total;
}

async function childWrite(module: string, directory: string, memories: number): Promise<WriteResult> {
  const index = await openIndex(module, directory, Number.MAX_SAFE_INTEGER);
  const next = seededRandom(7);
  const heap0 = heapUsed();
  const rss0 = process.memoryUsage().rss;
  const start = performance.now();
  let terms = 0;
  for (let i = 0; i < memories; i++) {
    const sparse = encodeKeywords(text(i + 1));
    terms += sparse.indices.length;
    await index.upsert([{ tenant: `record-${Math.floor(i / PER_TENANT)}`, id: `m${i}`, dense: unitVector(next), sparse, payload: { type: 'fact' } }]);
  }
  const seconds = (performance.now() - start) / 1000;
  const heapMiB = (heapUsed() - heap0) / MiB;
  const rssMiB = (process.memoryUsage().rss - rss0) / MiB;
  const stats = (index as unknown as { stats(): { residentBytes?: number } }).stats();
  await index.close();
  return { memories, terms, heapMiB, rssMiB, indexMiB: stats.residentBytes === undefined ? -1 : stats.residentBytes / MiB, diskMiB: diskBytes(directory) / MiB, seconds };
}

async function childReopen(module: string, directory: string, memories: number): Promise<ReopenResult> {
  const rss0 = process.memoryUsage().rss;
  const heap0 = heapUsed();
  let start = performance.now();
  const index = await openIndex(module, directory);
  const openMs = performance.now() - start;
  const openHeapMiB = (heapUsed() - heap0) / MiB;
  const openRssMiB = (process.memoryUsage().rss - rss0) / MiB;
  const next = seededRandom(11);
  start = performance.now();
  await index.searchDense(unitVector(next), { tenant: 'record-0', limit: 10 });
  const firstLoadMs = performance.now() - start;
  start = performance.now();
  const tenants = Math.ceil(memories / PER_TENANT);
  for (let t = 0; t < tenants; t++) await index.searchDense(unitVector(next), { tenant: `record-${t}`, limit: 10 });
  const allMs = performance.now() - start;
  const allHeapMiB = (heapUsed() - heap0) / MiB;
  const allRssMiB = (process.memoryUsage().rss - rss0) / MiB;
  // Latency on one loaded record: queries of 3 words of one of its memories.
  await index.count('record-0');
  const words = text(1).split(' ');
  const dense: number[] = [];
  const sparse: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const vector = unitVector(next);
    let t0 = performance.now();
    await index.searchDense(vector, { tenant: 'record-0', limit: 10 });
    dense.push(performance.now() - t0);
    const query = encodeQuery(`${words[q * 3]} ${words[q * 3 + 1]} ${words[q * 3 + 2]}`);
    t0 = performance.now();
    await index.searchSparse(query, { tenant: 'record-0', limit: 10 });
    sparse.push(performance.now() - t0);
  }
  await index.close();
  return { openMs, openHeapMiB, openRssMiB, firstLoadMs, allHeapMiB, allRssMiB, peakRssMiB: process.resourceUsage().maxRSS / 1024, allMs, dense, sparse };
}

function runChild<T>(phase: string, module: string, directory: string, memories: number): T {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=16384', '-r', '@swc-node/register', __filename, phase, module, directory, String(memories)],
    { cwd: path.resolve(__dirname, '..'), encoding: 'utf8', maxBuffer: 64 * MiB, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (result.status !== 0) throw new Error(`${phase} child failed with status ${result.status}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as T;
}

/** Extracts the embedded index of commit `rev` into a temp dir; returns its module path. */
function extractRevision(rev: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `vector-index-${rev}-`));
  mkdirSync(dir, { recursive: true });
  for (const file of ['embedded.vector-index.ts', 'top-k.ts', 'vector-index.port.ts']) {
    const source = execFileSync('git', ['show', `${rev}:services/memory/src/vector-index/${file}`], { cwd: path.resolve(__dirname, '..'), maxBuffer: 16 * MiB });
    writeFileSync(path.join(dir, file), source);
  }
  return path.join(dir, 'embedded.vector-index');
}

function main(): void {
  const memories = Number(process.env.BENCH_MEMORIES ?? 1000);
  const beforeRev = process.env.BENCH_BEFORE_REV;
  const beforeMemories = Number(process.env.BENCH_BEFORE_MEMORIES ?? 200);
  const runs: { name: string; module: string; memories: number }[] = [];
  if (beforeRev) runs.push({ name: `before (${beforeRev})`, module: extractRevision(beforeRev), memories: beforeMemories });
  runs.push({ name: 'after', module: AFTER_MODULE, memories });
  const writes: (string | number)[][] = [];
  const reopens: (string | number)[][] = [];
  for (const run of runs) {
    const directory = mkdtempSync(path.join(tmpdir(), 'bench-index-memory-'));
    try {
      process.stderr.write(`${run.name}: writing ${run.memories} memories…\n`);
      const w = runChild<WriteResult>('write', run.module, directory, run.memories);
      const scale = 1000 / w.memories;
      writes.push([run.name, w.memories, Math.round(w.terms / w.memories), w.heapMiB, w.heapMiB * scale, w.rssMiB * scale, (w.heapMiB * MiB) / w.terms, w.indexMiB < 0 ? '–' : w.indexMiB * scale, w.diskMiB * scale, w.seconds]);
      process.stderr.write(`${run.name}: reopening…\n`);
      const r = runChild<ReopenResult>('reopen', run.module, directory, run.memories);
      reopens.push([run.name, w.diskMiB, r.openMs, r.openHeapMiB, r.openRssMiB, r.firstLoadMs, r.allMs, r.allHeapMiB, r.peakRssMiB, percentile(r.dense, 50), percentile(r.dense, 99), percentile(r.sparse, 50), percentile(r.sparse, 99)]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }
  process.stdout.write(`\n## Writing memories of ~50 KB distinct words (${PER_TENANT} per record, ${DIM}-d), all in memory\n\n`);
  printTable(['implementation', 'memories', 'terms/memory', 'heap+buffers MiB', 'heap+buffers MiB /1k', 'RSS MiB /1k', 'heap+buffers B/term', 'index estimate MiB /1k', 'log MiB /1k', 'write s'], writes);
  process.stdout.write('## Reopening that directory (default budget), loading every record, searching one loaded record\n\n');
  printTable(['implementation', 'log MiB', 'open ms', 'heap+buffers after open MiB', 'RSS after open MiB', 'first search ms', 'all records ms', 'heap+buffers after all MiB', 'peak RSS MiB', 'dense p50 ms', 'dense p99 ms', 'BM25 p50 ms', 'BM25 p99 ms'], reopens, 2);
}

const [phase, modulePath, directory, count] = process.argv.slice(2);
if (phase === 'write' || phase === 'reopen') {
  (phase === 'write' ? childWrite(modulePath, directory, Number(count)) : childReopen(modulePath, directory, Number(count)))
    .then((result) => process.stdout.write(JSON.stringify(result) + '\n'))
    .catch((error) => {
      process.stderr.write(`${(error as Error).stack}\n`);
      process.exit(1);
    });
} else {
  try {
    main();
  } catch (error) {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  }
}
