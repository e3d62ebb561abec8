import type { MemoryType } from '@agent-memory/shared';
import { encodeKeywords, encodeQuery } from '../recall/keyword-encoder';
import type { IndexDescriptor, VectorIndex, VectorPoint } from './vector-index.port';

/** What a contract run needs from an adapter. */
export interface VectorIndexUnderTest {
  /** A new index over empty storage, not yet opened: the contract opens it with its own descriptor. */
  index: VectorIndex;
  /**
   * Optional: a new, unopened instance over the same storage. The contract calls it only after it has
   * closed `index` (and any earlier reopened instance). Without it, the persistence cases are skipped.
   */
  reopen?: () => Promise<VectorIndex>;
  /** Removes the storage; called after each case, after the contract has closed the instances. */
  cleanup: () => Promise<void>;
}

/** Dimension and embedder of the contract's vectors. */
export const CONTRACT_DESCRIPTOR: IndexDescriptor = { embedderId: 'contract-test@8', dimension: 8 };

/** A unit vector of the contract's dimension from its first few components. */
function vec(...components: number[]): Float32Array {
  const out = new Float32Array(CONTRACT_DESCRIPTOR.dimension);
  out.set(components);
  const norm = Math.hypot(...out);
  return out.map((x) => x / norm);
}

function point(tenant: string, id: string, dense: Float32Array, text: string, type: MemoryType = 'fact'): VectorPoint {
  return { tenant, id, dense, sparse: encodeKeywords(text), payload: { type } };
}

const ids = (hits: { id: string }[]) => hits.map((hit) => hit.id);

/**
 * Registers the Jest cases that every {@link VectorIndex} adapter must pass (docs/architecture.md, "Ports and adapters": the embedded
 * index and the Qdrant adapter run the same cases). Call it inside a test file:
 * `describeVectorIndexContract('EmbeddedVectorIndex', async () => ({ index, reopen, cleanup }))`.
 * `makeIndex` is called once per case and must give empty, isolated storage.
 * Sparse vectors come from the real keyword encoder, so the cases also pin its contract with the index.
 */
export function describeVectorIndexContract(name: string, makeIndex: () => Promise<VectorIndexUnderTest>): void {
  describe(`VectorIndex contract: ${name}`, () => {
    let subject: VectorIndexUnderTest;
    let index: VectorIndex;
    let opened: VectorIndex[] = [];

    beforeEach(async () => {
      subject = await makeIndex();
      index = subject.index;
      opened = [index];
      await index.open(CONTRACT_DESCRIPTOR);
    });

    afterEach(async () => {
      for (const instance of opened) await instance.close();
      await subject.cleanup();
    });

    /** Closes the current instance and opens a new one over the same storage. */
    async function reopen(descriptor = CONTRACT_DESCRIPTOR): Promise<VectorIndex> {
      await index.close();
      index = await subject.reopen!();
      opened.push(index);
      await index.open(descriptor);
      return index;
    }

    /** Persistence cases pass trivially (with a note) for adapters without `reopen`. */
    function persistent(title: string, body: () => Promise<void>): void {
      it(title, async () => {
        if (!subject.reopen) {
          console.warn(`${name}: no reopen given, "${title}" not checked`);
          return;
        }
        await body();
      });
    }

    it('returns the nearest points first by cosine similarity, at most `limit`', async () => {
      await index.upsert([
        point('t1', 'far', vec(0, 1), 'far away'),
        point('t1', 'near', vec(1, 0), 'right here'),
        point('t1', 'mid', vec(0.8, 0.6), 'in between'),
      ]);
      const hits = await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10 });
      expect(ids(hits)).toEqual(['near', 'mid', 'far']);
      expect(hits[0].score).toBeCloseTo(1, 5);
      expect(hits[1].score).toBeCloseTo(0.8, 5);
      expect(hits[2].score).toBeCloseTo(0, 5);
      expect(ids(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 2 }))).toEqual(['near', 'mid']);
      expect(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 0 })).toEqual([]);
    });

    it('keeps tenants apart in every method, even for the same point id', async () => {
      await index.upsert([
        point('alice', 'shared', vec(1, 0), 'violin lessons on tuesday'),
        point('alice', 'a2', vec(0.9, 0.1), 'violin concert'),
        point('bob', 'shared', vec(0, 1), 'football practice'),
        point('bob', 'b2', vec(1, 0), 'violin repair shop'),
      ]);
      expect(ids(await index.searchDense(vec(1, 0), { tenant: 'alice', limit: 10 })).sort()).toEqual(['a2', 'shared']);
      expect(ids(await index.searchSparse(encodeQuery('violin'), { tenant: 'alice', limit: 10 })).sort()).toEqual(['a2', 'shared']);
      expect(await index.searchSparse(encodeQuery('football'), { tenant: 'alice', limit: 10 })).toEqual([]);
      const scored = await index.scoreDense(vec(0, 1), 'alice', ['shared', 'b2']);
      expect([...scored.keys()]).toEqual(['shared']);
      expect(scored.get('shared')).toBeCloseTo(0, 5); // alice's vector, not bob's
      expect(await index.count('alice')).toBe(2);
      expect(await index.count('bob')).toBe(2);
      expect(await index.count('nobody')).toBe(0);
      expect(await index.searchDense(vec(1, 0), { tenant: 'nobody', limit: 10 })).toEqual([]);

      await index.delete('alice', ['shared', 'b2']);
      expect(await index.count('alice')).toBe(1);
      expect(ids(await index.searchDense(vec(0, 1), { tenant: 'bob', limit: 10 }))).toEqual(['shared', 'b2']);

      await index.deleteTenant('bob');
      expect(await index.count('bob')).toBe(0);
      expect(ids(await index.searchDense(vec(1, 0), { tenant: 'alice', limit: 10 }))).toEqual(['a2']);
    });

    it('filters by memory type in dense and sparse search', async () => {
      await index.upsert([
        point('t1', 'fact', vec(1, 0), 'coffee with oat milk', 'fact'),
        point('t1', 'skill', vec(1, 0.1), 'brewing coffee', 'skill'),
        point('t1', 'episode', vec(1, 0.2), 'coffee in Rome', 'episode'),
      ]);
      const dense = await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10, types: ['skill', 'episode'] });
      expect(ids(dense)).toEqual(['skill', 'episode']);
      const sparse = await index.searchSparse(encodeQuery('coffee'), { tenant: 't1', limit: 10, types: ['fact'] });
      expect(ids(sparse)).toEqual(['fact']);
      expect(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10, types: ['identity'] })).toEqual([]);
      expect(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10, types: [] })).toEqual([]);
    });

    it('replaces a point upserted twice: one point, the new vector, terms and type win', async () => {
      await index.upsert([point('t1', 'p', vec(1, 0), 'apples in the garden', 'fact')]);
      await index.upsert([point('t1', 'p', vec(0, 1), 'bananas at the market', 'skill')]);
      expect(await index.count('t1')).toBe(1);
      const dense = await index.searchDense(vec(0, 1), { tenant: 't1', limit: 10 });
      expect(ids(dense)).toEqual(['p']);
      expect(dense[0].score).toBeCloseTo(1, 5);
      expect(await index.searchSparse(encodeQuery('apples'), { tenant: 't1', limit: 10 })).toEqual([]);
      expect(ids(await index.searchSparse(encodeQuery('bananas'), { tenant: 't1', limit: 10 }))).toEqual(['p']);
      expect(await index.searchDense(vec(0, 1), { tenant: 't1', limit: 10, types: ['fact'] })).toEqual([]);
      expect(ids(await index.searchDense(vec(0, 1), { tenant: 't1', limit: 10, types: ['skill'] }))).toEqual(['p']);
    });

    it('deletes points by id, ignoring unknown ids', async () => {
      await index.upsert([
        point('t1', 'a', vec(1, 0), 'red kite'),
        point('t1', 'b', vec(0.9, 0.1), 'red squirrel'),
        point('t1', 'c', vec(0, 1), 'grey heron'),
      ]);
      await index.delete('t1', ['a', 'does-not-exist']);
      expect(await index.count('t1')).toBe(2);
      expect(ids(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10 }))).toEqual(['b', 'c']);
      expect(ids(await index.searchSparse(encodeQuery('red'), { tenant: 't1', limit: 10 }))).toEqual(['b']);
      expect((await index.scoreDense(vec(1, 0), 't1', ['a', 'b'])).has('a')).toBe(false);
      await index.delete('t1', []);
      await index.delete('nobody', ['a']);
      expect(await index.count('t1')).toBe(2);
    });

    it('deletes a whole tenant', async () => {
      await index.upsert([point('t1', 'a', vec(1, 0), 'kayak trip'), point('t1', 'b', vec(0, 1), 'kayak paddle')]);
      await index.deleteTenant('t1');
      expect(await index.count('t1')).toBe(0);
      expect(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10 })).toEqual([]);
      expect(await index.searchSparse(encodeQuery('kayak'), { tenant: 't1', limit: 10 })).toEqual([]);
      await index.deleteTenant('never-existed');
      // The tenant can be used again afterwards.
      await index.upsert([point('t1', 'c', vec(1, 0), 'kayak again')]);
      expect(await index.count('t1')).toBe(1);
    });

    it('ranks a rare query term above common ones in sparse search and leaves out zero scores', async () => {
      const common = Array.from({ length: 6 }, (_, i) => point('t1', `common${i}`, vec(1, i), `my dog went to the park on day ${i}`));
      await index.upsert([
        ...common,
        point('t1', 'rare', vec(0, 1), 'the dog saw a zebra'),
        point('t1', 'unrelated', vec(1, 1), 'tax return deadline'),
      ]);
      const hits = await index.searchSparse(encodeQuery('zebra and a dog'), { tenant: 't1', limit: 20 });
      expect(hits[0].id).toBe('rare');
      expect(hits).toHaveLength(7);
      expect(ids(hits)).not.toContain('unrelated');
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score).toBeGreaterThanOrEqual(hits[i].score);
      expect(await index.searchSparse(encodeQuery('zebra dog'), { tenant: 't1', limit: 3 })).toHaveLength(3);
      expect(await index.searchSparse(encodeQuery('the and of'), { tenant: 't1', limit: 10 })).toEqual([]);
      expect(await index.searchSparse({ indices: [], values: [] }, { tenant: 't1', limit: 10 })).toEqual([]);
    });

    it('scores given points by cosine similarity, leaving out missing ids', async () => {
      await index.upsert([point('t1', 'x', vec(1, 0), 'x'), point('t1', 'y', vec(0.6, 0.8), 'y')]);
      const scores = await index.scoreDense(vec(1, 0), 't1', ['y', 'x', 'missing']);
      expect(scores.size).toBe(2);
      expect(scores.get('x')).toBeCloseTo(1, 5);
      expect(scores.get('y')).toBeCloseTo(0.6, 5);
      expect((await index.scoreDense(vec(1, 0), 't1', [])).size).toBe(0);
    });

    it('searchCandidates: dense and sparse top `limit` and the cosines of the sparse-only hits, as the separate calls give them', async () => {
      await index.upsert([
        point('t1', 'a', vec(1, 0), 'apple orchard'),
        point('t1', 'b', vec(0.8, 0.6), 'banana'),
        point('t1', 'c', vec(0, 1), 'zebra apple'),
        point('t2', 'z', vec(1, 0), 'apple'),
      ]);
      const search = { tenant: 't1', limit: 2 };
      const found = await index.searchCandidates({ vector: vec(1, 0), sparse: encodeQuery('zebra'), search });
      expect(found.dense.map((h) => h.id)).toEqual(['a', 'b']);
      expect(found.sparse.map((h) => h.id)).toEqual(['c']);
      // 'c' is a keyword hit the dense top 2 did not return: its cosine comes with it; nothing of t2 shows.
      expect([...found.cosines.keys()]).toEqual(['c']);
      expect(found.cosines.get('c')).toBeCloseTo(0, 5);
      expect(found.dense).toEqual(await index.searchDense(vec(1, 0), search));
      expect(found.sparse).toEqual(await index.searchSparse(encodeQuery('zebra'), search));
      // A sparse hit that is also a dense hit ('a') needs no cosine; a query without terms searches dense only.
      const apple = await index.searchCandidates({ vector: vec(1, 0), sparse: encodeQuery('apple'), search });
      expect(ids(apple.sparse).sort()).toEqual(['a', 'c']);
      expect([...apple.cosines.keys()]).toEqual(['c']);
      const denseOnly = await index.searchCandidates({ vector: vec(0, 1), sparse: { indices: [], values: [] }, search });
      expect(denseOnly).toEqual({ dense: await index.searchDense(vec(0, 1), search), sparse: [], cosines: new Map() });
    });

    it('counts the points of a tenant', async () => {
      expect(await index.count('t1')).toBe(0);
      await index.upsert(Array.from({ length: 25 }, (_, i) => point('t1', `p${i}`, vec(1, i), `note ${i}`)));
      expect(await index.count('t1')).toBe(25);
    });

    it('rejects vectors of the wrong dimension and writes nothing', async () => {
      const short = new Float32Array(CONTRACT_DESCRIPTOR.dimension - 1).fill(0.5);
      await expect(
        index.upsert([point('t1', 'ok', vec(1, 0), 'fine'), { ...point('t1', 'bad', vec(1, 0), 'bad'), dense: short }]),
      ).rejects.toThrow();
      await expect(index.searchDense(short, { tenant: 't1', limit: 5 })).rejects.toThrow();
      await expect(index.scoreDense(short, 't1', ['ok'])).rejects.toThrow();
      expect(await index.count('t1')).toBe(0);
    });

    it('refuses to open for another embedder or dimension', async () => {
      await index.upsert([point('t1', 'a', vec(1, 0), 'anything')]);
      await expect(index.open({ ...CONTRACT_DESCRIPTOR, embedderId: 'other-model@8' })).rejects.toThrow();
      await expect(index.open({ ...CONTRACT_DESCRIPTOR, dimension: 16 })).rejects.toThrow();
      expect(await index.count('t1')).toBe(1);
    });

    persistent('refuses to reopen stored vectors for another embedder', async () => {
      await index.upsert([point('t1', 'a', vec(1, 0), 'anything')]);
      await index.close();
      const other = await subject.reopen!();
      await expect(other.open({ embedderId: 'other-model@16', dimension: 16 })).rejects.toThrow(/embedder/);
      await other.close();
      index = await subject.reopen!();
      opened.push(index);
      await index.open(CONTRACT_DESCRIPTOR);
      expect(await index.count('t1')).toBe(1);
    });

    persistent('keeps upserts, replacements and deletes across a reopen', async () => {
      await index.upsert([
        point('t1', 'a', vec(1, 0), 'sailing in Croatia', 'episode'),
        point('t1', 'b', vec(0, 1), 'allergic to peanuts', 'fact'),
        point('t1', 'c', vec(1, 1), 'prefers tea', 'fact'),
        point('t2', 'z', vec(1, 0), 'other tenant'),
        point('t3', 'gone', vec(1, 0), 'tenant to delete'),
      ]);
      await index.upsert([point('t1', 'b', vec(0.6, 0.8), 'allergic to shellfish', 'identity')]);
      await index.delete('t1', ['c']);
      await index.deleteTenant('t3');
      const before = await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10 });

      await reopen();
      expect(await index.count('t1')).toBe(2);
      expect(await index.count('t2')).toBe(1);
      expect(await index.count('t3')).toBe(0);
      const after = await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10 });
      expect(ids(after)).toEqual(ids(before));
      after.forEach((hit, i) => expect(hit.score).toBeCloseTo(before[i].score, 5));
      expect(ids(await index.searchSparse(encodeQuery('shellfish'), { tenant: 't1', limit: 10 }))).toEqual(['b']);
      expect(await index.searchSparse(encodeQuery('peanuts'), { tenant: 't1', limit: 10 })).toEqual([]);
      expect(ids(await index.searchDense(vec(1, 0), { tenant: 't1', limit: 10, types: ['identity'] }))).toEqual(['b']);
    });
  });
}
