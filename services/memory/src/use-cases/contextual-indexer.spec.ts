import 'reflect-metadata';
import { contentHash, type BlobStore } from '@agent-memory/platform';
import type { Embedder } from '../embedding/embedder.port';
import type { ContextState, ContextWrite, GuardedWriteOutcome, MemoryRepository, MemoryRow } from '../persistence/memory.repository';
import { DEFAULT_CONTEXT } from '../recall/contextual-index';
import type { VectorIndex, VectorPoint } from '../vector-index/vector-index.port';
import { ContextualIndexer } from './contextual-indexer';

/**
 * ContextualIndexer.reindex with in-memory fakes (docs/api.md, "Recall"): which predecessors lend, that
 * the time gap cuts the context, that an unconfirmed write is computed again, and that a memory borrowing
 * nothing is left as it is. Every text embeds to the same unit vector (cosine 1: the similarity gate passes),
 * but a text containing "unrelated", which embeds orthogonal to the others (cosine 0: the gate fails).
 */
const embedder: Embedder = { id: 'fake@2', dimension: 2, embed: async (texts: readonly string[]) => texts.map((t) => Float32Array.from(t.includes('unrelated') ? [0, 1] : [1, 0])) };

function row(id: string, content: string, createdAt: Date): MemoryRow & { content: string } {
  const hash = contentHash(Buffer.from(content));
  return { id, recordId: 'rec_1', agentId: 'agt_1', path: id, type: 'episode', summary: '', contentHash: hash, blobKey: `b/${id}`, sizeBytes: content.length, embedderId: 'fake@2', createdAt, updatedAt: createdAt, content };
}

/** `missing`: blob keys that are gone (final); `down`: blob keys whose reads fail (a store outage). */
function setup(rows: Array<MemoryRow & { content: string }>, outcomes: GuardedWriteOutcome[] = [], missing = new Set<string>(), stale = true, down = new Set<string>()) {
  const upserts: VectorPoint[][] = [];
  const confirms: ContextWrite[] = [];
  const deleted: string[] = [];
  const reads: string[] = [];
  const staleIds = new Set(stale ? rows.map((r) => r.id) : []);
  const blobs = {
    get: async (key: string) => {
      reads.push(key);
      if (down.has(key)) throw new Error('blob store down');
      return missing.has(key) ? null : Buffer.from(rows.find((r) => r.blobKey === key)!.content);
    },
  } as unknown as BlobStore;
  const index = { upsert: async (points: VectorPoint[]) => void upserts.push(points), delete: async (_tenant: string, ids: readonly string[]) => void deleted.push(...ids) } as unknown as VectorIndex;
  const repository = {
    contextWindow: async (id: string, depth: number) => {
      const i = rows.findIndex((r) => r.id === id);
      if (i < 0) return null;
      const self: ContextState = { ...rows[i], contextLenders: [], contextStale: staleIds.has(id), contextEpoch: 0 };
      return { self, before: depth > 0 ? rows.slice(Math.max(0, i - depth), i).reverse() : [] };
    },
    applyContext: async (w: ContextWrite, write: (type: string) => Promise<void>) => {
      confirms.push(w);
      const outcome = outcomes.shift() ?? 'applied';
      if (outcome === 'applied') {
        await write('episode');
        staleIds.delete(w.id);
      }
      return outcome;
    },
    staleContext: async (_recordId: string, limit: number, { after }: { after?: string } = {}) =>
      [...staleIds].sort().filter((id) => after === undefined || id > after).slice(0, limit),
    dropContext: async (_w: ContextWrite, deleteEntry: () => Promise<void>) => {
      await deleteEntry();
      return 'applied';
    },
  } as unknown as MemoryRepository;
  return { indexer: new ContextualIndexer(embedder, blobs, index, repository, { ...DEFAULT_CONTEXT, gapSeconds: 60 }), upserts, confirms, deleted, staleIds, reads };
}

const t0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1_000);

describe('ContextualIndexer.reindex', () => {
  it('borrows from up to two predecessors, newest first, and records them as lenders', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1)), row('m2', 'charlie', at(2)), row('m3', 'delta', at(3))];
    const { indexer, upserts, confirms } = setup(rows);
    expect(await indexer.reindex('m3')).toBe(true);
    expect(confirms.map((c) => c.lenders.map((l) => l.id))).toEqual([['m2', 'm1']]);
    expect(upserts[0][0].sparse.indices.length).toBeGreaterThan(1);
  });

  it('cuts the context at a write gap longer than gapSeconds', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(100)), row('m2', 'charlie', at(130))];
    const { indexer, confirms } = setup(rows);
    await indexer.reindex('m2');
    expect(confirms[0].lenders.map((l) => l.id)).toEqual(['m1']);
  });

  it('reads a predecessor only when the chain reaches it, and stops at one that fails the similarity gate', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'unrelated bravo', at(1)), row('m2', 'charlie', at(2))];
    const gate = setup(rows);
    await gate.indexer.reindex('m2');
    expect(gate.confirms[0].lenders).toEqual([]);
    // Its own content, then m1 (which fails the gate); m0, behind it, is never read.
    expect(gate.reads).toEqual(['b/m2', 'b/m1']);
    // A predecessor beyond the time gap is not read at all.
    const gap = setup([row('m0', 'alpha', at(0)), row('m1', 'bravo', at(100))]);
    await gap.indexer.reindex('m1');
    expect(gap.reads).toEqual(['b/m1']);
  });

  it('stops at a predecessor whose content cannot be read (it lends nothing, nor do those before it)', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1)), row('m2', 'charlie', at(2))];
    const { indexer, confirms } = setup(rows, [], new Set(['b/m1']));
    await indexer.reindex('m2');
    expect(confirms[0].lenders).toEqual([]);
  });

  it('computes again when the write is not confirmed, and gives up after 4 attempts', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1))];
    const once = setup(rows, ['changed']);
    expect(await once.indexer.reindex('m1')).toBe(true);
    expect([once.confirms.length, once.upserts.length]).toEqual([2, 1]);
    const never = setup(rows, ['changed', 'changed', 'changed', 'changed']);
    await expect(never.indexer.reindex('m1')).rejects.toThrow('did not settle');
    expect(never.upserts).toEqual([]);
  });

  it('writes nothing for a memory that is not stale and borrows nothing, and reports a forgotten memory', async () => {
    const rows = [row('m0', 'alpha', at(0))];
    const fresh = setup(rows, [], new Set(), false);
    expect(await fresh.indexer.reindex('gone')).toBe(false);
    expect(await fresh.indexer.reindex('m0')).toBe(true);
    expect([fresh.confirms.length, fresh.upserts.length]).toEqual([0, 0]);
    // Stale, it is written (its own entry) and confirmed with no lenders, which clears the flag.
    const stale = setup(rows);
    expect(await stale.indexer.reindex('m0')).toBe(true);
    expect([stale.confirms.map((c) => c.lenders), stale.upserts.length]).toEqual([[[]], 1]);
  });

  it('a memory whose own content cannot be read is not re-indexed (it stays stale)', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1))];
    const { indexer, upserts } = setup(rows, [], new Set(['b/m1']));
    await expect(indexer.reindex('m1')).rejects.toThrow('missing');
    expect(upserts).toEqual([]);
  });
});

describe('ContextualIndexer.repairStale', () => {
  it('a store outage on one memory does not stop the repair of the others; it throws at the end and that memory stays stale', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1)), row('m2', 'charlie', at(2))];
    const { indexer, staleIds, deleted } = setup(rows, [], new Set(), true, new Set(['b/m1']));
    await expect(indexer.repairStale('rec_1')).rejects.toThrow('1 stale memories of record rec_1 failed (first: m1)');
    expect([...staleIds]).toEqual(['m1']);
    expect(deleted).toEqual([]);
  });

  it('a memory whose own content is missing loses its entry, stays stale and does not fail the repair; the others are re-indexed', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1)), row('m2', 'charlie', at(2))];
    const { indexer, staleIds, deleted } = setup(rows, [], new Set(['b/m1']));
    expect(await indexer.repairStale('rec_1')).toBe(2);
    expect([...staleIds]).toEqual(['m1']);
    expect(deleted).toEqual(['m1']);
  });

  it('with the ids a forget marked, re-indexes only those', async () => {
    const rows = [row('m0', 'alpha', at(0)), row('m1', 'bravo', at(1)), row('m2', 'charlie', at(2))];
    const { indexer, staleIds } = setup(rows);
    expect(await indexer.repairStale('rec_1', ['m2'])).toBe(1);
    expect([...staleIds].sort()).toEqual(['m0', 'm1']);
  });
});
