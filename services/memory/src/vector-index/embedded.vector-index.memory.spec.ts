import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { once } from 'node:events';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import { EmbeddedVectorIndex } from './embedded.vector-index';
import { CONTRACT_DESCRIPTOR } from './vector-index.contract';
import type { VectorPoint } from './vector-index.port';
import { seededRandom } from '@agent-memory/testing';

const ROOT = path.resolve(__dirname, '../../../..');
const CHILD = path.join(__dirname, 'embedded.vector-index.memory-child.ts');


function unitVector(next: () => number, dim: number): Float32Array {
  const v = Float32Array.from({ length: dim }, () => next() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function runChild(args: string[], nodeFlags: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [...nodeFlags, '--expose-gc', '-r', '@swc-node/register', CHILD, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('EmbeddedVectorIndex memory', () => {
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'embedded-index-memory-'));
  });

  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('accounts a few dozen bytes per stored term and about the vector for a tiny memory', async () => {
    const index = new EmbeddedVectorIndex({ directory });
    await index.open({ embedderId: 'memory-test', dimension: 512 });
    try {
      const next = seededRandom(1);
      await index.upsert([{ tenant: 'tiny', id: 'm', dense: unitVector(next, 512), sparse: encodeKeywords('hi'), payload: { type: 'fact' } }]);
      // One 2-byte memory: its 2 KB vector plus a small constant (was a 64-row matrix, 128 KB).
      expect(index.stats().residentBytes).toBeLessThan(4096);

      let terms = 0;
      for (let m = 0; m < 20; m++) {
        const indices = Array.from({ length: 5000 }, (_, j) => m * 5000 + j + 1);
        terms += indices.length;
        await index.upsert([{ tenant: 'big', id: `m${m}`, dense: unitVector(next, 512), sparse: { indices, values: indices.map(() => 1) }, payload: { type: 'fact' } }]);
      }
      const perTerm = (index.stats().residentBytes - 20 * 512 * 4) / terms;
      expect(perTerm).toBeLessThan(100);
    } finally {
      await index.close();
    }
  });

  it('keeps the V8 heap per stored term and per tiny tenant small (child process, heap after GC)', () => {
    const { status, stdout, stderr } = runChild(['heap', directory]);
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    const { perTerm, perTinyTenant } = JSON.parse(stdout) as { perTerm: number; perTinyTenant: number };
    // Was about 600 bytes per term and 130 KB per tenant of one memory.
    expect(perTerm).toBeLessThan(150);
    expect(perTinyTenant).toBeLessThan(8 * 1024);
  }, 120_000);

  it('evicts tenants beyond the memory budget and reloads them with the same hits', async () => {
    const budget = 48 * 1024;
    const index = new EmbeddedVectorIndex({ directory, memoryBudgetBytes: budget });
    await index.open(CONTRACT_DESCRIPTOR);
    try {
      const next = seededRandom(2);
      const tenants = Array.from({ length: 40 }, (_, t) => `record-${t}`);
      const points = new Map<string, VectorPoint[]>();
      for (const tenant of tenants) {
        const list = Array.from({ length: 30 }, (_, i): VectorPoint => ({
          tenant,
          id: `${tenant}-p${i}`,
          dense: unitVector(next, CONTRACT_DESCRIPTOR.dimension),
          sparse: encodeKeywords(`memory ${i} of ${tenant} with word${i} and ${tenant.replace('-', '')}marker${i % 5}`),
          payload: { type: 'fact' },
        }));
        points.set(tenant, list);
        await index.upsert(list);
        expect(index.stats().residentBytes).toBeLessThanOrEqual(budget);
      }
      const query = unitVector(next, CONTRACT_DESCRIPTOR.dimension);
      const expectedDense = (tenant: string) =>
        points
          .get(tenant)!
          .map((p) => ({ id: p.id, score: p.dense.reduce((sum, x, d) => sum + x * query[d], 0) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 5)
          .map((hit) => hit.id);
      for (const tenant of tenants) {
        expect((await index.searchDense(query, { tenant, limit: 5 })).map((h) => h.id)).toEqual(expectedDense(tenant));
        expect((await index.searchSparse(encodeQuery('word7'), { tenant, limit: 3 })).map((h) => h.id)).toEqual([`${tenant}-p7`]);
        expect(index.stats().residentBytes).toBeLessThanOrEqual(budget);
      }
      expect(index.stats().residentTenants).toBeLessThan(tenants.length);
      // Writes to an evicted tenant, and deletes, still land and are seen after reloading.
      await index.delete(tenants[0], [`${tenants[0]}-p7`]);
      for (const tenant of tenants.slice(1)) await index.count(tenant);
      expect(await index.searchSparse(encodeQuery('word7'), { tenant: tenants[0], limit: 3 })).toEqual([]);
      expect(await index.count(tenants[0])).toBe(29);
    } finally {
      await index.close();
    }
  });

  it('loads a tenant larger than the whole budget alone', async () => {
    const index = new EmbeddedVectorIndex({ directory, memoryBudgetBytes: 1024 });
    await index.open(CONTRACT_DESCRIPTOR);
    try {
      const next = seededRandom(3);
      const list = Array.from({ length: 50 }, (_, i) => ({
        tenant: 'big',
        id: `p${i}`,
        dense: unitVector(next, 8),
        sparse: encodeKeywords(`word${i} shared`),
        payload: { type: 'fact' as const },
      }));
      await index.upsert(list);
      await index.upsert([{ ...list[0], tenant: 'other', id: 'o' }]);
      expect(await index.count('big')).toBe(50);
      expect(index.stats().residentTenants).toBe(1);
      expect((await index.searchSparse(encodeQuery('word3'), { tenant: 'big', limit: 1 })).map((h) => h.id)).toEqual(['p3']);
    } finally {
      await index.close();
    }
  });

  it('splits a single log of an earlier version into per-tenant logs on open, and compact() erases deleted vectors', async () => {
    const next = seededRandom(4);
    const line = (record: object) => JSON.stringify(record) + '\n';
    const upsert = (t: string, i: string, text: string) => {
      const dense = unitVector(next, 8);
      const sparse = encodeKeywords(text);
      return line({ o: 'u', t, i, y: 'fact', v: Buffer.from(dense.buffer).toString('base64'), k: sparse.indices, f: sparse.values });
    };
    await writeFile(path.join(directory, 'descriptor.json'), JSON.stringify({ format: 1, ...CONTRACT_DESCRIPTOR }));
    await writeFile(
      path.join(directory, 'points.wal.jsonl'),
      upsert('t1', 'a', 'sailing in croatia') +
        upsert('t2', 'secretcanary', 'forgotten canary text') +
        upsert('t1', 'b', 'allergic to peanuts') +
        line({ o: 'd', t: 't2', i: ['secretcanary'] }) +
        upsert('t2', 'kept', 'kept text') +
        upsert('t3', 'x', 'tenant to delete') +
        line({ o: 'x', t: 't3' }) +
        '{"o":"u","t":"t1","i":"torn"',
    );
    const index = new EmbeddedVectorIndex({ directory });
    await index.open(CONTRACT_DESCRIPTOR);
    try {
      expect(await readdir(directory)).not.toContain('points.wal.jsonl');
      expect((await readdir(path.join(directory, 'tenants'))).length).toBe(2);
      expect(await index.count('t1')).toBe(2);
      expect(await index.count('t2')).toBe(1);
      expect(await index.count('t3')).toBe(0);
      expect((await index.searchSparse(encodeQuery('peanuts'), { tenant: 't1', limit: 5 })).map((h) => h.id)).toEqual(['b']);
      const t2Log = path.join(directory, 'tenants', (await readdir(path.join(directory, 'tenants'))).find((f) => f.includes(Buffer.from('t2').toString('base64url')))!);
      expect(await readFile(t2Log, 'utf8')).toContain('secretcanary');
      await index.compact();
      expect(await readFile(t2Log, 'utf8')).not.toContain('secretcanary');
      expect(await index.count('t2')).toBe(1);
    } finally {
      await index.close();
    }
  });

  it('starts with a heap smaller than its index files, serves searches on several tenants and accepts writes (child process)', async () => {
    // An index of format 1 (one log) of about 160 MB: 100 tenants × 30 memories × 5,000 distinct terms, 512 dimensions.
    const next = seededRandom(5);
    await writeFile(path.join(directory, 'descriptor.json'), JSON.stringify({ format: 1, embedderId: 'memory-test', dimension: 512 }));
    const out = createWriteStream(path.join(directory, 'points.wal.jsonl'));
    const targets: string[] = [];
    let term = 1;
    for (let t = 0; t < 100; t++) {
      for (let m = 0; m < 30; m++) {
        const dense = unitVector(next, 512);
        const first = term;
        const k = Array.from({ length: 5000 }, () => term++);
        const record = { o: 'u', t: `tenant-${t}`, i: `m${m}`, y: 'fact', v: Buffer.from(dense.buffer).toString('base64'), k, f: k.map(() => 1) };
        if (t % 20 === 0 && m === 3) targets.push(`tenant-${t},${first + 17}`);
        if (!out.write(JSON.stringify(record) + '\n')) await once(out, 'drain');
      }
    }
    out.end();
    await once(out, 'close');
    expect((await stat(path.join(directory, 'points.wal.jsonl'))).size).toBeGreaterThan(128 * 1024 * 1024);

    const { status, stdout, stderr } = runChild(['serve', directory, ...targets], ['--max-old-space-size=128']);
    expect({ status, stderr: stderr.slice(0, 2000) }).toEqual({ status: 0, stderr: '' });
    const { found } = JSON.parse(stdout) as { found: Record<string, { sparse: string[]; dense: number; count: number }> };
    expect(Object.keys(found)).toHaveLength(targets.length);
    for (const target of targets) {
      expect(found[target.split(',')[0]]).toEqual({ sparse: ['m3'], dense: 5, count: 31 });
    }
  }, 300_000);
});
