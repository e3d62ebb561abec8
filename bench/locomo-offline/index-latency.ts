/**
 * Latency of `EmbeddedVectorIndex`: upsert throughput (durable, batches of 1,000 and single points) and
 * `searchDense` / `searchSparse` p50/p95 at 1,000 / 10,000 / 100,000 random 512-dim points in one tenant.
 *
 * Run from the repository root: `node -r @swc-node/register bench/locomo-offline/index-latency.ts`
 * (writes ~300 MB under tmp/, removed at the end).
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EmbeddedVectorIndex, encodeKeywords, encodeQuery, type VectorPoint } from '@agent-memory/memory';

const DIM = 512;
const DIRECTORY = path.resolve(__dirname, '../../tmp/index-latency');
const WORDS = 'coffee tea garden violin football paris rome kayak allergy peanut birthday sister brother dog cat painting pottery camping marathon guitar novel recipe pasta sushi museum beach mountain hiking yoga chess'.split(' ');

let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function vector(): Float32Array {
  const v = new Float32Array(DIM);
  let norm = 0;
  for (let d = 0; d < DIM; d++) {
    v[d] = random() * 2 - 1;
    norm += v[d] * v[d];
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < DIM; d++) v[d] /= norm;
  return v;
}

function point(i: number): VectorPoint {
  const text = Array.from({ length: 12 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ') + ` note ${i}`;
  return { tenant: 'bench', id: `mem_${i}`, dense: vector(), sparse: encodeKeywords(text), payload: { type: 'fact' } };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

async function main(): Promise<void> {
  rmSync(DIRECTORY, { recursive: true, force: true });
  const index = new EmbeddedVectorIndex({ directory: DIRECTORY });
  await index.open({ embedderId: 'random@512', dimension: DIM });

  // Single-point durable upserts: one fdatasync each when sequential; group commit when concurrent.
  let start = performance.now();
  for (let i = 0; i < 200; i++) await index.upsert([point(1_000_000 + i)]);
  const sequential = 200 / ((performance.now() - start) / 1000);
  start = performance.now();
  await Promise.all(Array.from({ length: 1000 }, (_, i) => index.upsert([point(2_000_000 + i)])));
  const concurrent = 1000 / ((performance.now() - start) / 1000);
  await index.deleteTenant('bench');
  console.log(`upsert, 1 point per call: ${sequential.toFixed(0)}/s sequential, ${concurrent.toFixed(0)}/s with 1,000 concurrent calls`);

  let count = 0;
  let upsertMs = 0;
  console.log('| points | searchDense p50 | p95 | searchDense types-filtered p50 | searchSparse p50 | upsert (batches of 1,000) |');
  console.log('|---|---|---|---|---|---|');
  for (const target of [1_000, 10_000, 100_000]) {
    while (count < target) {
      const batch = Array.from({ length: 1000 }, (_, i) => point(count + i));
      const t = performance.now();
      await index.upsert(batch);
      upsertMs += performance.now() - t;
      count += batch.length;
    }
    const queries = Array.from({ length: 60 }, () => vector());
    for (const q of queries.slice(0, 5)) await index.searchDense(q, { tenant: 'bench', limit: 10 }); // warm-up
    const dense: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await index.searchDense(q, { tenant: 'bench', limit: 10 });
      dense.push(performance.now() - t);
    }
    const filtered: number[] = [];
    for (const q of queries.slice(0, 20)) {
      const t = performance.now();
      await index.searchDense(q, { tenant: 'bench', limit: 10, types: ['fact', 'skill'] });
      filtered.push(performance.now() - t);
    }
    const sparse: number[] = [];
    for (let i = 0; i < 60; i++) {
      const query = encodeQuery(`${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} note`);
      const t = performance.now();
      await index.searchSparse(query, { tenant: 'bench', limit: 10 });
      sparse.push(performance.now() - t);
    }
    const throughput = count / (upsertMs / 1000);
    console.log(
      `| ${target.toLocaleString('en')} | ${percentile(dense, 0.5).toFixed(2)} ms | ${percentile(dense, 0.95).toFixed(2)} ms | ` +
        `${percentile(filtered, 0.5).toFixed(2)} ms | ${percentile(sparse, 0.5).toFixed(2)} ms | ${throughput.toFixed(0)} points/s |`,
    );
  }
  await index.close();
  start = performance.now();
  const reopened = new EmbeddedVectorIndex({ directory: DIRECTORY });
  await reopened.open({ embedderId: 'random@512', dimension: DIM });
  console.log(`reopen (replay of ${count.toLocaleString('en')} points): ${((performance.now() - start) / 1000).toFixed(1)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
  await reopened.close();
  rmSync(DIRECTORY, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
