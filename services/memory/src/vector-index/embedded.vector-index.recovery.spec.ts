import { mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import { EmbeddedVectorIndex, type EmbeddedVectorIndexOptions } from './embedded.vector-index';
import { LogWriter } from './log-writer';
import { tenantLogPath } from './point-log';
import type { ResidentTenant } from './tenant-cache';
import type { TenantIndex } from './tenant-index';
import { CONTRACT_DESCRIPTOR } from './vector-index.contract';
import type { MemoryType } from '@agent-memory/shared';
import type { VectorPoint } from './vector-index.port';

/** A unit vector along axis `axis` (distinct, recognisable points). */
function axisVector(axis: number, dim = CONTRACT_DESCRIPTOR.dimension): Float32Array {
  const v = new Float32Array(dim);
  v[axis % dim] = 1;
  return v;
}

function point(tenant: string, id: string, type: MemoryType, axis: number, text = id): VectorPoint {
  return { tenant, id, dense: axisVector(axis), sparse: encodeKeywords(text), payload: { type } };
}

describe('EmbeddedVectorIndex recovery and limits', () => {
  let directory: string;
  let instances: EmbeddedVectorIndex[];

  async function openIndex(options: Partial<EmbeddedVectorIndexOptions> = {}): Promise<EmbeddedVectorIndex> {
    const index = new EmbeddedVectorIndex({ directory, ...options });
    instances.push(index);
    await index.open(CONTRACT_DESCRIPTOR);
    return index;
  }

  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'embedded-index-recovery-'));
    instances = [];
  });

  afterEach(async () => {
    for (const index of instances) await index.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('filters by type on the first search after a restart (types are known once the tenant is loaded)', async () => {
    const first = await openIndex();
    await first.upsert([point('t1', 'f1', 'fact', 0, 'alpha'), point('t1', 'e1', 'episode', 1, 'alpha beta')]);
    await first.close();

    const dense = await openIndex();
    expect((await dense.searchDense(axisVector(0), { tenant: 't1', limit: 10, types: ['fact'] })).map((h) => h.id)).toEqual(['f1']);
    await dense.close();

    const sparse = await openIndex();
    expect((await sparse.searchSparse(encodeQuery('alpha'), { tenant: 't1', limit: 10, types: ['episode'] })).map((h) => h.id)).toEqual(['e1']);
  });

  it('with syncWrites false, writes upserts of new points without fdatasync but syncs replaces and deletes, and keeps them across a reopen', async () => {
    // FileHandle is not exported: its prototype, from a handle.
    const probe = await open(path.join(directory, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const datasync = jest.spyOn(proto, 'datasync');
    try {
      const index = await openIndex({ syncWrites: false });
      // (open writes its descriptor, synced)
      datasync.mockClear();
      await index.upsert([point('t1', 'a', 'fact', 0, 'alpha'), point('t1', 'b', 'fact', 1, 'beta')]);
      // the new log's directory is synced; its records are not
      expect(datasync).not.toHaveBeenCalled();
      await index.upsert([point('t1', 'c', 'fact', 2, 'gamma')]);
      expect(datasync).not.toHaveBeenCalled();
      // replacing a point the tenant holds (a replace, a re-index after a forget): synced, with the new point beside it
      await index.upsert([point('t1', 'e', 'fact', 4, 'epsilon'), point('t1', 'c', 'fact', 5, 'gamma again')]);
      expect(datasync).toHaveBeenCalledTimes(1);
      await index.delete('t1', ['a']);
      // the tenant's erasure marker, then the log with its delete record
      expect(datasync).toHaveBeenCalledTimes(3);
      await index.close();

      const synced = await openIndex();
      datasync.mockClear();
      await synced.upsert([point('t1', 'd', 'fact', 3, 'delta')]);
      expect(datasync).toHaveBeenCalledTimes(1);
      expect((await synced.searchDense(axisVector(5), { tenant: 't1', limit: 10 })).map((h) => h.id).sort()).toEqual(['b', 'c', 'd', 'e']);
      // the replaced point holds its new vector
      expect((await synced.scoreDense(axisVector(5), 't1', ['c'])).get('c')).toBeCloseTo(1, 5);
    } finally {
      datasync.mockRestore();
    }
  });

  it('rejects (does not hang) a write whose in-memory apply throws, and every later write', async () => {
    const writer = new LogWriter(directory, () => undefined);
    const tenant: ResidentTenant = {
      id: 't1', index: {} as TenantIndex, file: tenantLogPath(directory, 't1'), fileBytes: 0, records: 0, pins: 0, accounted: 0, deleted: false,
    };
    await mkdir(path.dirname(tenant.file), { recursive: true });
    const line = Buffer.from('{"o":"d","t":"t1","i":["x"]}\n');
    const failing = writer.append(tenant, [line], () => {
      throw new RangeError('apply failed');
    });
    const queued = writer.append(tenant, [line], () => undefined);
    await expect(failing).rejects.toThrow(/apply failed/);
    await expect(queued).rejects.toThrow(/reopen/);
    await expect(writer.append(tenant, [line], () => undefined)).rejects.toThrow(/reopen/);
    await expect(writer.job(async () => 1)).rejects.toThrow(/reopen/);
    await writer.close();
  });

  it('keeps writing and serving when a compaction fails before its rename, and compacts later', async () => {
    const index = await openIndex({ compaction: { minDeadRecords: 1, minDeadRatio: 0.1 } });
    await index.upsert([point('t1', 'a', 'fact', 0), point('t1', 'b', 'fact', 1)]);
    // The compaction's temporary file cannot be created (a folder is in its way): it fails before its rename.
    await mkdir(tenantLogPath(directory, 't1') + '.compact');
    await index.upsert([point('t1', 'a', 'fact', 2)]);
    await index.upsert([point('t1', 'c', 'fact', 3)]);
    await index.delete('t1', ['b']);
    expect((await index.searchDense(axisVector(3), { tenant: 't1', limit: 1 })).map((h) => h.id)).toEqual(['c']);
    expect(await index.count('t1')).toBe(2);
    await expect(index.compact()).rejects.toThrow();

    await rm(tenantLogPath(directory, 't1') + '.compact', { recursive: true });
    await index.compact();
    const lines = (await readFile(tenantLogPath(directory, 't1'), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { i: string }).i).sort()).toEqual(['a', 'c']);
  });

  it('erases a deleted vector on compact() after a restart that lost the in-memory list of logs to rewrite', async () => {
    const first = await openIndex();
    const secret = axisVector(5).map((x, i) => x + i / 1000);
    await first.upsert([{ ...point('t1', 'secret', 'fact', 0), dense: secret }, point('t1', 'kept', 'fact', 1)]);
    await first.delete('t1', ['secret']);
    // A crash before the scheduled compaction: nothing rewrote the log.
    await first.close();
    const reopened = await openIndex();
    const base64 = (v: Float32Array) => {
      const unit = v.map((x) => x / Math.hypot(...v));
      return Buffer.from(unit.buffer).toString('base64');
    };
    expect(await readFile(tenantLogPath(directory, 't1'), 'utf8')).toContain(base64(secret));
    await reopened.compact();
    const log = await readFile(tenantLogPath(directory, 't1'), 'utf8');
    expect(log).not.toContain(base64(secret));
    expect(log).toContain('kept');
  });

  it('loads evicted tenants one at a time, evicting first: concurrent searches hold about the budget plus one tenant', async () => {
    const tenants = Array.from({ length: 24 }, (_, t) => `t${t}`);
    const writer = await openIndex();
    for (const tenant of tenants) {
      await writer.upsert(Array.from({ length: 40 }, (_, i) => point(tenant, `m${i}`, 'fact', i, `word${i} common text ${tenant}`)));
    }
    await writer.close();
    const sizes = await Promise.all(tenants.map(async (t) => (await stat(tenantLogPath(directory, t))).size));
    const one = await openIndex();
    await one.count('t0');
    const tenantBytes = one.stats().residentBytes;
    await one.close();

    const budget = 2 * tenantBytes;
    const index = await openIndex({ memoryBudgetBytes: budget });
    const results = await Promise.all(tenants.map((tenant) => index.searchDense(axisVector(3), { tenant, limit: 1 })));
    expect(results.map((hits) => hits.map((h) => h.id))).toEqual(tenants.map(() => ['m3']));
    const { peakBytes, residentBytes } = index.stats();
    expect(residentBytes).toBeLessThanOrEqual(budget + tenantBytes);
    expect(peakBytes).toBeLessThanOrEqual(budget + Math.max(tenantBytes, ...sizes));
  });

  it('erases deleted vectors of a migrated single log on compact() even after a restart that skipped it', async () => {
    const line = (record: object) => JSON.stringify(record) + '\n';
    const vector = Buffer.from(axisVector(2).buffer).toString('base64');
    const upsert = (i: string) => line({ o: 'u', t: 't2', i, y: 'fact', v: vector, k: [1], f: [1] });
    await writeFile(path.join(directory, 'descriptor.json'), JSON.stringify({ format: 1, ...CONTRACT_DESCRIPTOR }));
    await writeFile(path.join(directory, 'points.wal.jsonl'), upsert('secretcanary') + line({ o: 'd', t: 't2', i: ['secretcanary'] }) + upsert('kept'));
    // The split happens on open; a crash before the compaction loses the in-memory list of logs with deletes.
    await (await openIndex()).close();
    const reopened = await openIndex();
    await reopened.compact();
    const log = await readFile(tenantLogPath(directory, 't2'), 'utf8');
    expect(log).not.toContain('secretcanary');
    expect(log).toContain('kept');
  });
});
