import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import { DEFAULT_BM25, EmbeddedVectorIndex, type EmbeddedVectorIndexOptions } from './embedded.vector-index';
import { CONTRACT_DESCRIPTOR, describeVectorIndexContract } from './vector-index.contract';
import { TopK } from './top-k';
import { tenantLogPath } from './point-log';
import type { VectorPoint } from './vector-index.port';
import { seededRandom } from '@agent-memory/testing';

/** The log of tenant t1 (one log per tenant). */
const LOG = (directory: string) => tenantLogPath(directory, 't1');

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'embedded-vector-index-'));
}

describeVectorIndexContract('EmbeddedVectorIndex', async () => {
  const directory = await tempDir();
  return {
    index: new EmbeddedVectorIndex({ directory }),
    reopen: async () => new EmbeddedVectorIndex({ directory }),
    cleanup: () => rm(directory, { recursive: true, force: true }),
  };
});


function randomVector(next: () => number, dim = CONTRACT_DESCRIPTOR.dimension): Float32Array {
  const v = Float32Array.from({ length: dim }, () => next() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function point(id: string, dense: Float32Array, text = id, tenant = 't1'): VectorPoint {
  return { tenant, id, dense, sparse: encodeKeywords(text), payload: { type: 'fact' } };
}

describe('EmbeddedVectorIndex (embedded only)', () => {
  let directory: string;
  let instances: EmbeddedVectorIndex[];

  async function openIndex(options: Partial<EmbeddedVectorIndexOptions> = {}): Promise<EmbeddedVectorIndex> {
    const index = new EmbeddedVectorIndex({ directory, ...options });
    instances.push(index);
    await index.open(CONTRACT_DESCRIPTOR);
    return index;
  }

  beforeEach(async () => {
    directory = await tempDir();
    instances = [];
  });

  afterEach(async () => {
    for (const index of instances) await index.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('stores the descriptor and refuses another one with a clear message', async () => {
    const index = await openIndex();
    await index.close();
    expect(JSON.parse(await readFile(path.join(directory, 'descriptor.json'), 'utf8'))).toMatchObject(CONTRACT_DESCRIPTOR);
    const other = new EmbeddedVectorIndex({ directory });
    await expect(other.open({ embedderId: 'openai:text-embedding-3-small', dimension: 8 })).rejects.toThrow(
      /holds vectors of embedder "contract-test@8".*refusing to open it for "openai:text-embedding-3-small"/,
    );
    // A failed open releases the directory.
    await openIndex();
  });

  it('ignores a torn last log line on reopen, and appends cleanly after it', async () => {
    const next = seededRandom(1);
    let index = await openIndex();
    await index.upsert([point('a', randomVector(next)), point('b', randomVector(next))]);
    await index.close();
    const full = JSON.stringify({ o: 'u', t: 't1', i: 'c', y: 'fact', v: 'AAAA', k: [], f: [] });
    await appendFile(LOG(directory), full.slice(0, 25)); // crash mid-append: no newline

    index = await openIndex();
    expect(await index.count('t1')).toBe(2);
    expect(index.stats()).toMatchObject({ logRecords: 2, livePoints: 2 });
    expect(index.stats().tornBytesDropped).toBe(25);
    await index.upsert([point('d', randomVector(next))]);
    await index.close();

    index = await openIndex();
    expect(await index.count('t1')).toBe(3);
    expect(index.stats().tornBytesDropped).toBe(0);
  });

  it('drops a torn tail made of several damaged lines (e.g. zero-filled blocks)', async () => {
    let index = await openIndex();
    await index.upsert([point('a', randomVector(seededRandom(2)))]);
    await index.close();
    await appendFile(LOG(directory), Buffer.concat([Buffer.from('{"o":"u","t":\n'), Buffer.alloc(100)]));
    index = await openIndex();
    expect(await index.count('t1')).toBe(1);
  });

  it('refuses a log whose damage is followed by valid records (corruption, not a crash)', async () => {
    const index = await openIndex();
    await index.upsert([point('a', randomVector(seededRandom(3)))]);
    await index.close();
    const log = LOG(directory);
    const valid = await readFile(log, 'utf8');
    await writeFile(log, `{"broken\n${valid}`);
    // Logs are read when their tenant is first used: that use fails, and keeps failing.
    const reopened = await openIndex();
    await expect(reopened.count('t1')).rejects.toThrow(/corrupt at byte 0/);
    await expect(reopened.searchDense(randomVector(seededRandom(3)), { tenant: 't1', limit: 1 })).rejects.toThrow(/corrupt at byte 0/);
  });

  it('compacts a log when its tenant is loaded, to exactly the live points, with their latest content', async () => {
    const next = seededRandom(4);
    let index = await openIndex();
    await index.upsert(Array.from({ length: 10 }, (_, i) => point(`p${i}`, randomVector(next), `first version ${i}`)));
    const replaced = randomVector(next);
    await index.upsert([point('p0', replaced, 'second version zucchini')]);
    await index.delete('t1', ['p1', 'p2', 'p3']);
    await index.upsert([point('x', randomVector(next), 'other tenant', 't2')]);
    await index.deleteTenant('t2');
    // t1's log: 11 upserts and 1 delete; t2's log was removed with its tenant.
    expect(index.stats()).toMatchObject({ logRecords: 12, livePoints: 7, compacted: false });
    await expect(readFile(tenantLogPath(directory, 't2'))).rejects.toThrow(/ENOENT/);
    await index.close();

    index = await openIndex({ compaction: { minDeadRecords: 1, minDeadRatio: 0.3 } });
    expect(await index.count('t1')).toBe(7);
    // The read queued the compaction without waiting for it; a writer job queued now runs after it.
    await index.deleteTenant('t2');
    expect(index.stats()).toMatchObject({ logRecords: 7, livePoints: 7, compacted: true });
    const lines = (await readFile(LOG(directory), 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).i).sort()).toEqual(['p0', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    expect((await index.scoreDense(replaced, 't1', ['p0'])).get('p0')).toBeCloseTo(1, 5);
    expect((await index.searchSparse(encodeQuery('zucchini'), { tenant: 't1', limit: 5 })).map((h) => h.id)).toEqual(['p0']);
    expect(await index.count('t2')).toBe(0);

    // Writes after compaction go to the new file and survive another reopen.
    await index.upsert([point('after', randomVector(next))]);
    await index.close();
    index = await openIndex();
    expect(await index.count('t1')).toBe(8);
  });

  it('does not compact a log that is mostly live', async () => {
    let index = await openIndex({ compaction: { minDeadRecords: 1, minDeadRatio: 0.5 } });
    const next = seededRandom(5);
    await index.upsert(Array.from({ length: 10 }, (_, i) => point(`p${i}`, randomVector(next))));
    await index.delete('t1', ['p0']);
    await index.close();
    index = await openIndex({ compaction: { minDeadRecords: 1, minDeadRatio: 0.5 } });
    expect(await index.count('t1')).toBe(9);
    expect(index.stats()).toMatchObject({ logRecords: 11, livePoints: 9, compacted: false });
  });

  it('compacts on demand while writes are in flight, losing none', async () => {
    const next = seededRandom(6);
    let index = await openIndex();
    await index.upsert(Array.from({ length: 20 }, (_, i) => point(`p${i}`, randomVector(next))));
    await index.delete('t1', ['p0', 'p1']);
    await Promise.all([
      index.upsert([point('during1', randomVector(next))]),
      index.compact(),
      index.upsert([point('during2', randomVector(next))]),
    ]);
    expect(await index.count('t1')).toBe(20);
    await index.close();
    index = await openIndex();
    expect(await index.count('t1')).toBe(20);
    expect(index.stats().logRecords).toBeLessThanOrEqual(21);
  });

  it('compacts in the background while open once the log is mostly dead', async () => {
    const next = seededRandom(14);
    let index = await openIndex({ compaction: { minDeadRecords: 10, minDeadRatio: 0.5 } });
    for (let round = 0; round < 5; round++) {
      await index.upsert(Array.from({ length: 10 }, (_, i) => point(`p${i}`, randomVector(next), `round ${round}`)));
    }
    // Background compaction runs in the writer between commits; the next write waits for it.
    await index.upsert([point('last', randomVector(next))]);
    // Bounded: at most about twice the live points plus one check interval.
    expect(index.stats()).toMatchObject({ compacted: true, livePoints: 11 });
    expect(index.stats().logRecords).toBeLessThanOrEqual(2 * 11 + 10);
    const lines = (await readFile(LOG(directory), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(index.stats().logRecords);
    await index.close();
    index = await openIndex();
    expect(await index.count('t1')).toBe(11);
  });

  it('ignores a leftover compaction file from a crash before its rename', async () => {
    let index = await openIndex();
    await index.upsert([point('a', randomVector(seededRandom(7)))]);
    await index.close();
    await writeFile(`${LOG(directory)}.compact`, '{"o":"u","t":"t1","i":"ghost"');
    index = await openIndex();
    expect(await index.count('t1')).toBe(1);
  });

  it('commits concurrent writes together and keeps them all', async () => {
    const next = seededRandom(8);
    let index = await openIndex();
    await Promise.all(Array.from({ length: 50 }, (_, i) => index.upsert([point(`p${i}`, randomVector(next))])));
    await Promise.all([index.delete('t1', ['p0']), index.upsert([point('p0', randomVector(next))]), index.delete('t1', ['p1'])]);
    expect(await index.count('t1')).toBe(49);
    await index.close();
    index = await openIndex();
    expect(await index.count('t1')).toBe(49);
    expect(await index.scoreDense(randomVector(next), 't1', ['p0', 'p1'])).toEqual(new Map([['p0', expect.any(Number)]]));
  });

  it('refuses a second open instance on the same directory', async () => {
    await openIndex();
    await expect(new EmbeddedVectorIndex({ directory }).open(CONTRACT_DESCRIPTOR)).rejects.toThrow(/already open/);
  });

  it('throws when used before open or after close', async () => {
    const index = new EmbeddedVectorIndex({ directory });
    await expect(index.count('t1')).rejects.toThrow(/not open/);
    await index.open(CONTRACT_DESCRIPTOR);
    await index.close();
    await expect(index.upsert([point('a', randomVector(seededRandom(9)))])).rejects.toThrow(/not open/);
  });

  it('uses k1 = 1.2, b = 0.3 unless told otherwise', async () => {
    expect(DEFAULT_BM25).toEqual({ k1: 1.2, b: 0.3 });
    const index = await openIndex();
    const next = seededRandom(12);
    const sparse = (tf: number, len: number) => ({ indices: [7, 8], values: [tf, len - tf] });
    await index.upsert([
      { tenant: 't1', id: 'short', dense: randomVector(next), sparse: sparse(1, 2), payload: { type: 'fact' } },
      { tenant: 't1', id: 'long', dense: randomVector(next), sparse: sparse(1, 10), payload: { type: 'fact' } },
    ]);
    const hits = await index.searchSparse({ indices: [7], values: [1] }, { tenant: 't1', limit: 5 });
    const idf = Math.log(1 + (2 - 2 + 0.5) / (2 + 0.5));
    const part = (len: number) => 2.2 / (1 + 1.2 * (0.7 + (0.3 * len) / 6));
    expect(hits.map((h) => h.id)).toEqual(['short', 'long']);
    expect(hits[0].score).toBeCloseTo(idf * part(2), 10);
    expect(hits[1].score).toBeCloseTo(idf * part(10), 10);
  });

  it('returns the same top k as a full sort, after deletes moved points around', async () => {
    const next = seededRandom(10);
    const index = await openIndex();
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < 400; i++) vectors.set(`p${i}`, randomVector(next));
    await index.upsert([...vectors].map(([id, v]) => point(id, v)));
    const removed = [...vectors.keys()].filter((_, i) => i % 3 === 0);
    await index.delete('t1', removed);
    for (const id of removed) vectors.delete(id);
    const query = randomVector(next);
    const expected = [...vectors]
      .map(([id, v]) => ({ id, score: v.reduce((sum, x, d) => sum + x * query[d], 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 25);
    const hits = await index.searchDense(query, { tenant: 't1', limit: 25 });
    expect(hits.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    hits.forEach((hit, i) => expect(hit.score).toBeCloseTo(expected[i].score, 5));
  });

  it('computes Okapi BM25 exactly (DEFAULT_BM25: k1 = 1.2, b = 0.3; IDF = ln(1 + (N - df + 0.5)/(df + 0.5)))', async () => {
    const index = await openIndex();
    const next = seededRandom(11);
    const sparse = (pairs: [number, number][]) => ({ indices: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) });
    await index.upsert([
      { tenant: 't1', id: 'd1', dense: randomVector(next), sparse: sparse([[1, 2], [2, 1]]), payload: { type: 'fact' } },
      { tenant: 't1', id: 'd2', dense: randomVector(next), sparse: sparse([[2, 3]]), payload: { type: 'fact' } },
      { tenant: 't1', id: 'd3', dense: randomVector(next), sparse: sparse([[3, 1]]), payload: { type: 'fact' } },
    ]);
    const hits = await index.searchSparse(sparse([[1, 1], [2, 1]]), { tenant: 't1', limit: 10 });
    const n = 3;
    const avg = (3 + 3 + 1) / 3;
    const idf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
    const { k1, b } = DEFAULT_BM25;
    expect([k1, b]).toEqual([1.2, 0.3]);
    const part = (tf: number, len: number) => (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * len) / avg));
    const d1 = idf(1) * part(2, 3) + idf(2) * part(1, 3);
    const d2 = idf(2) * part(3, 3);
    expect(hits.map((h) => h.id)).toEqual(d1 > d2 ? ['d1', 'd2'] : ['d2', 'd1']);
    expect(hits.find((h) => h.id === 'd1')!.score).toBeCloseTo(d1, 10);
    expect(hits.find((h) => h.id === 'd2')!.score).toBeCloseTo(d2, 10);
  });
});

describe('TopK', () => {
  it('keeps the k best, best first, ties by lower slot', () => {
    const top = new TopK(3);
    [0.5, 0.9, 0.1, 0.9, 0.7, 0.3].forEach((score, slot) => top.push(score, slot));
    const { slots, scores } = top.drain();
    expect(Array.from(slots)).toEqual([1, 3, 4]);
    expect(Array.from(scores)).toEqual([0.9, 0.9, 0.7]);
    top.reset(0);
    top.push(1, 0);
    expect(top.drain().slots.length).toBe(0);
  });
});

describe('EmbeddedVectorIndex lock', () => {
  it('refuses a directory locked by another live process, takes over a stale lock', async () => {
    const directory = await tempDir();
    try {
      // pid 1 is always alive (init); a different live process holds the lock.
      await writeFile(path.join(directory, 'LOCK'), '1\n');
      await expect(new EmbeddedVectorIndex({ directory }).open(CONTRACT_DESCRIPTOR)).rejects.toThrow(/in use by process 1/);
      // A pid that cannot exist: its process is gone.
      await writeFile(path.join(directory, 'LOCK'), '2147483646\n');
      const index = new EmbeddedVectorIndex({ directory });
      await index.open(CONTRACT_DESCRIPTOR);
      expect((await readFile(path.join(directory, 'LOCK'), 'utf8')).trim()).toBe(String(process.pid));
      await index.close();
      await expect(readFile(path.join(directory, 'LOCK'))).rejects.toThrow();
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('EmbeddedVectorIndex crash', () => {
  it('keeps every acknowledged upsert when its process is killed mid-write', async () => {
    const directory = await tempDir();
    try {
      const child = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'embedded.vector-index.crash-child.ts'), directory], {
        cwd: path.resolve(__dirname, '../../../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const acknowledged: string[] = [];
      let buffered = '';
      let errors = '';
      child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        child.on('exit', () => resolve());
        child.on('error', reject);
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          acknowledged.push(...lines);
          if (acknowledged.length >= 300) child.kill('SIGKILL');
        });
      });
      expect(errors).toBe('');
      expect(acknowledged.length).toBeGreaterThanOrEqual(300);
      const index = new EmbeddedVectorIndex({ directory });
      await index.open(CONTRACT_DESCRIPTOR);
      try {
        const found = await index.scoreDense(randomVector(seededRandom(13)), 't1', acknowledged);
        expect(found.size).toBe(acknowledged.length);
        expect(await index.count('t1')).toBeGreaterThanOrEqual(acknowledged.length);
      } finally {
        await index.close();
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
