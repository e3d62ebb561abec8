/**
 * Child process of `embedded.vector-index.memory.spec.ts`, run with `--expose-gc` (and, for `serve`, a
 * small `--max-old-space-size`). Prints one JSON line with what it measured or found.
 *
 * - `heap <dir>`: heap bytes (V8 used heap plus array buffers, after a full GC) per stored term for 20 memories of 5,000
 *   distinct terms in one tenant (512 dimensions), and per tenant for 200 tenants of one 2-byte memory.
 * - `serve <dir> <tenant,term>...`: opens the index in `dir`, runs a dense and a sparse search on each
 *   given tenant (the term is one of its memories'), upserts one point into each, and reports the hits.
 *
 * `VECTOR_INDEX_MODULE` may name another implementation's module (to measure an older version).
 */
import { getHeapStatistics } from 'node:v8';
import type { EmbeddedVectorIndex as Index, EmbeddedVectorIndexOptions } from './embedded.vector-index';

const DIM = 512;

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc!();
  (globalThis as { gc?: () => void }).gc!();
  // Typed arrays keep their elements outside the V8 heap (array buffers): count both.
  const { heapUsed: onHeap, arrayBuffers } = process.memoryUsage();
  return onHeap + arrayBuffers;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVector(next: () => number): Float32Array {
  const v = Float32Array.from({ length: DIM }, () => next() * 2 - 1);
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

async function load(options: EmbeddedVectorIndexOptions): Promise<Index> {
  const module = (await import(process.env.VECTOR_INDEX_MODULE ?? './embedded.vector-index')) as { EmbeddedVectorIndex: new (o: EmbeddedVectorIndexOptions) => Index };
  return new module.EmbeddedVectorIndex(options);
}

async function heap(directory: string): Promise<void> {
  const next = random(1);
  const index = await load({ directory: `${directory}/big` });
  await index.open({ embedderId: 'memory-test', dimension: DIM });
  const before = heapUsed();
  let terms = 0;
  for (let m = 0; m < 20; m++) {
    const indices = Array.from({ length: 5000 }, (_, j) => m * 5000 + j + 1);
    terms += indices.length;
    await index.upsert([{ tenant: 't1', id: `m${m}`, dense: unitVector(next), sparse: { indices, values: indices.map(() => 1) }, payload: { type: 'fact' } }]);
  }
  const perTerm = (heapUsed() - before) / terms;
  await index.close();

  const tiny = await load({ directory: `${directory}/tiny` });
  await tiny.open({ embedderId: 'memory-test', dimension: DIM });
  const start = heapUsed();
  for (let t = 0; t < 200; t++) {
    await tiny.upsert([{ tenant: `tenant-${t}`, id: 'm', dense: unitVector(next), sparse: { indices: [7], values: [1] }, payload: { type: 'fact' } }]);
  }
  const perTinyTenant = (heapUsed() - start) / 200;
  await tiny.close();
  process.stdout.write(JSON.stringify({ perTerm, perTinyTenant }) + '\n');
}

async function serve(directory: string, targets: string[]): Promise<void> {
  const index = await load({ directory, memoryBudgetBytes: 24 * 1024 * 1024 });
  await index.open({ embedderId: 'memory-test', dimension: DIM });
  const next = random(2);
  const found: Record<string, { sparse: string[]; dense: number; count: number }> = {};
  for (const target of targets) {
    const [tenant, term] = target.split(',');
    const sparse = await index.searchSparse({ indices: [Number(term)], values: [1] }, { tenant, limit: 3 });
    const dense = await index.searchDense(unitVector(next), { tenant, limit: 5 });
    await index.upsert([{ tenant, id: 'written-by-child', dense: unitVector(next), sparse: { indices: [1], values: [1] }, payload: { type: 'fact' } }]);
    found[tenant] = { sparse: sparse.map((hit) => hit.id), dense: dense.length, count: await index.count(tenant) };
  }
  await index.close();
  process.stdout.write(JSON.stringify({ found, heapLimit: getHeapStatistics().heap_size_limit }) + '\n');
}

const [mode, directory, ...rest] = process.argv.slice(2);
(mode === 'heap' ? heap(directory) : serve(directory, rest)).catch((error) => {
  process.stderr.write(String((error as Error).stack ?? error));
  process.exit(1);
});
