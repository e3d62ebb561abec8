import 'reflect-metadata';
import { type BlobStore, InProcessJobQueue } from '@agent-memory/platform';
import { newId } from '@agent-memory/shared';
import type { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import { encodeQuery } from '../recall/keyword-encoder';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { ContextualIndexer } from './contextual-indexer';
import { ForgetUseCase } from './forget.use-case';
import { type MemoryReplica, startMemoryReplicas } from './memory-replicas.fixture';
import { PurgeStoresUseCase } from './purge-stores.use-case';

/**
 * Contextual indexing across two replicas of the memory service on the machine's PostgreSQL (fresh
 * database; real embedder, embedded index, filesystem blobs): "forget stays total" (docs/api.md, "Recall").
 * A forget or replace of a lender marks its borrowers stale in its own transaction (recall leaves them
 * out at once), and a durable purge task re-indexes them, also when a neighbour is written at the same
 * moment on another replica, when the blob store is down during the forget, and across a restart.
 */
describe('contextual indexing with two replicas over PostgreSQL', () => {
  let embedder: UseLiteEmbedder;
  let index: EmbeddedVectorIndex;
  let blobs: BlobStore;
  let replicas: MemoryReplica[];
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ replicas, embedder, index, blobs, close } = await startMemoryReplicas(2));
  }, 120_000);
  afterAll(() => close?.());

  const agentId = newId('agent');
  /** Made up: only M holds it. M, S and N are about one thing (neighbours lend above a cosine of 0.5). */
  const WORD = 'zorblaxian';
  const M = 'Which zorblaxian marmalade did the caterer bring to the picnic last week?';
  const M2 = 'What did the caterer bring to the picnic last week?';
  const S = 'The caterer brought the bitter orange marmalade to the picnic last week.';
  const N = 'The caterer also brought orange marmalade sandwiches to the picnic last week.';

  /** Ids of the record's entries that the keyword search finds for {@link WORD}. */
  async function holdersOfWord(recordId: string): Promise<string[]> {
    return (await index.searchSparse(encodeQuery(WORD), { tenant: recordId, limit: 10 })).map((h) => h.id).sort();
  }

  /** What recall may show of `ids` (stale memories are left out). */
  async function visible(recordId: string, ids: string[]): Promise<string[]> {
    return (await replicas[0].repository.findMany(recordId, ids)).map((r) => r.id).sort();
  }

  async function remember(replica: MemoryReplica, recordId: string, content: string, path: string): Promise<string> {
    const { result } = await replica.remember.execute({ agentId, recordId, body: { content, path, type: 'episode' } });
    // Context is added after the answer (in the background): wait for it, as a later request would see it.
    await replica.remember.contextSettled();
    return result.id;
  }

  /** A blob store that is down: every call fails. */
  const down: BlobStore = new Proxy({} as BlobStore, { get: () => () => Promise.reject(new Error('blob store down')) });

  it('lends M\'s word to its successor, and a forget of M racing a new neighbour on another replica leaves it nowhere', async () => {
    for (let round = 0; round < 3; round++) {
      const recordId = newId('record');
      const m = await remember(replicas[0], recordId, M, 'm');
      const s = await remember(replicas[0], recordId, S, 's');
      expect(await holdersOfWord(recordId)).toEqual([m, s].sort());
      // N's predecessors are S and M: written while M is forgotten, it must not end up holding M's word.
      const [, n] = await Promise.all([
        replicas[0].forget.execute({ agentId, recordId, target: { path: 'm' } }),
        remember(replicas[1], recordId, N, 'n'),
      ]);
      expect(n).toBeDefined();
      expect(await holdersOfWord(recordId)).toEqual([]);
      expect(await index.count(recordId)).toBe(2);
      expect(await visible(recordId, [s, n])).toEqual([s, n].sort());
    }
  }, 120_000);

  it('a forget while the blob store is down forgets at once, hides the borrower until the purge re-indexes it, and the purge survives a restart', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    expect(await holdersOfWord(recordId)).toEqual([m, s].sort());
    // This replica's blob store is down: the purge (blob delete, re-index of S) fails and is queued.
    const jobs = new InProcessJobQueue();
    const purge = new PurgeStoresUseCase(replicas[1].repository, index, down, jobs, undefined, new ContextualIndexer(embedder, down, index, replicas[1].repository));
    await expect(new ForgetUseCase(replicas[1].repository, purge).execute({ agentId, recordId, target: { path: 'm' } })).resolves.toEqual({ deleted: true, path: 'm' });
    expect(await replicas[0].repository.findById(recordId, m)).toBeNull();
    // S's entry still holds the word in the index, but S is stale: recall leaves it out.
    expect(await holdersOfWord(recordId)).toContain(s);
    expect(await visible(recordId, [s])).toEqual([]);
    expect((await replicas[0].repository.pendingPurges()).filter((t) => t.recordId === recordId)).toHaveLength(1);
    // "Restart": that process is gone (its queue never runs); a new one resumes the pending tasks from the database.
    await jobs.close();
    const restarted = new PurgeStoresUseCase(replicas[0].repository, index, blobs, new InProcessJobQueue(), undefined, replicas[0].contextual);
    await restarted.resume();
    await eventually(async () => expect((await replicas[0].repository.pendingPurges()).filter((t) => t.recordId === recordId)).toEqual([]));
    expect(await holdersOfWord(recordId)).toEqual([]);
    expect(await visible(recordId, [s])).toEqual([s]);
    expect(await index.count(recordId)).toBe(1);
  }, 120_000);

  it('a borrower whose own blob is gone loses its entry and stays hidden, without holding up the forget\'s task or the repair of the others', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    const n = await remember(replicas[0], recordId, N, 'n');
    expect(await holdersOfWord(recordId)).toEqual(expect.arrayContaining([m, s]));
    // S's own content is lost (not an outage): it can never be re-indexed.
    const lost = (await replicas[0].repository.findById(recordId, s))!;
    await blobs.delete([lost.blobKey]);
    await replicas[0].forget.execute({ agentId, recordId, target: { path: 'm' } });
    // N is repaired although S (before it in id order or not) fails; S's entry is deleted, S stays out of recall.
    expect(await holdersOfWord(recordId)).toEqual([]);
    expect(await visible(recordId, [s, n])).toEqual([n]);
    expect(await index.count(recordId)).toBe(1);
    expect((await replicas[0].repository.pendingPurges()).filter((t) => t.recordId === recordId)).toEqual([]);
    // A later full repair of the record does not fail on it either.
    await expect(replicas[0].contextual.repairStale(recordId)).resolves.toBe(0);
  }, 120_000);

  it('saveRemember at a path that holds a memory replaces it in place, also without a context task', async () => {
    const recordId = newId('record');
    const write = (content: string) => ({
      id: newId('memory'), recordId, agentId, path: 'same', type: 'episode' as const, summary: content, contentHash: `sha256:${content}`, blobKey: `records/${recordId}/memories/${content}`, sizeBytes: content.length, embedderId: embedder.id,
    });
    const first = await replicas[0].repository.saveRemember(write('one'), () => ({}));
    expect(await replicas[0].repository.saveRemember(write('two'), () => ({}))).toBe(first);
    expect((await replicas[0].repository.findByPath(recordId, 'same'))?.summary).toBe('two');
  }, 60_000);

  it('a replace of a lender and a forget of its borrower at the same moment do not deadlock (memory, borrowers, usage)', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    await eventually(async () => expect((await replicas[0].repository.contextWindow(s, 0))?.self.contextLenders).toContain(m));
    // A forget of S as forget takes its locks (S's row, then the usage row), the usage row held back until the
    // replace of M waits on S; this transaction detects a deadlock first, if there is one (it is the victim).
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const forgetS = replicas[1].prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL deadlock_timeout = '100ms'`);
      await tx.$executeRaw`DELETE FROM "memory"."memories" WHERE id = ${s}`;
      entered();
      await new Promise((r) => setTimeout(r, 700));
      await tx.$executeRaw`UPDATE "memory"."agent_usage" SET memory_count = memory_count - 1 WHERE agent_id = ${agentId}`;
    }, { timeout: 20_000 });
    await holding;
    const replace = remember(replicas[0], recordId, M2, 'm');
    await expect(forgetS).resolves.toBeUndefined();
    expect(await replace).toBe(m);
  }, 120_000);

  it('a forget or replace run inline re-indexes only the borrowers it marked; other stale memories of the record are left to their tasks', async () => {
    const recordId = newId('record');
    const other = await remember(replicas[0], recordId, 'An unrelated note about the quarterly tax return.', 'other');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    await eventually(async () => expect((await replicas[0].repository.contextWindow(s, 0))?.self.contextLenders).toContain(m));
    // Left stale by something else (its own task pending elsewhere).
    await replicas[0].prisma.memory.update({ where: { id: other }, data: { contextStale: true } });
    expect(await remember(replicas[0], recordId, M2, 'm')).toBe(m);
    await eventually(async () => expect(await visible(recordId, [m, s])).toEqual([m, s].sort()));
    expect(await visible(recordId, [other])).toEqual([]);
    await replicas[0].forget.execute({ agentId, recordId, target: { path: 'm' } });
    expect(await visible(recordId, [s, other])).toEqual([s]);
    expect((await replicas[0].repository.pendingPurges()).filter((t) => t.recordId === recordId)).toEqual([]);
  }, 120_000);

  it('replacing M takes its old word back from the successor (context-only purge task)', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    expect(await holdersOfWord(recordId)).toEqual([m, s].sort());
    expect(await remember(replicas[1], recordId, M2, 'm')).toBe(m);
    expect(await holdersOfWord(recordId)).toEqual([]);
    expect(await visible(recordId, [m, s])).toEqual([m, s].sort());
    expect((await replicas[0].repository.pendingPurges()).filter((t) => t.recordId === recordId)).toEqual([]);
  }, 120_000);

  it('a re-index computed with a lender that is then forgotten is never confirmed nor written', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 'm');
    const s = await remember(replicas[0], recordId, S, 's');
    const window = (await replicas[0].repository.contextWindow(s, 2))!;
    expect(window.before.map((r) => r.id)).toEqual([m]);
    // Replica 0 computed S's entry with M (a slow model call); meanwhile replica 1 forgets M.
    await replicas[1].forget.execute({ agentId, recordId, target: { path: 'm' } });
    let written = false;
    const outcome = await replicas[0].repository.applyContext(
      { id: s, contentHash: window.self.contentHash, epoch: window.self.contextEpoch, lenders: [{ id: m, contentHash: window.before[0].contentHash }] },
      async () => {
        written = true;
      },
    );
    expect(outcome).toBe('changed');
    expect(written).toBe(false);
    expect(await holdersOfWord(recordId)).toEqual([]);
  }, 120_000);

  it('a re-index whose lenders were recorded is not confirmed after a forget of one of them (epoch), and the purge re-indexes it', async () => {
    const recordId = newId('record');
    const m = await remember(replicas[0], recordId, M, 's0');
    const s = await remember(replicas[0], recordId, S, 's1');
    const before = (await replicas[0].repository.contextWindow(s, 2))!;
    expect(before.self.contextLenders).toEqual([m]);
    // The forget runs on a replica whose blob store is down: S stays stale, its epoch raised.
    const purge = new PurgeStoresUseCase(replicas[1].repository, index, down, new InProcessJobQueue(), undefined, new ContextualIndexer(embedder, down, index, replicas[1].repository));
    await new ForgetUseCase(replicas[1].repository, purge).execute({ agentId, recordId, target: { id: m } });
    const after = (await replicas[0].repository.contextWindow(s, 2))!;
    expect(after.self.contextStale).toBe(true);
    expect(after.self.contextEpoch).toBe(before.self.contextEpoch + 1);
    let written = false;
    const late = await replicas[0].repository.applyContext({ id: s, contentHash: before.self.contentHash, epoch: before.self.contextEpoch, lenders: [] }, async () => {
      written = true;
    });
    expect([late, written]).toEqual(['changed', false]);
    expect(await replicas[0].contextual.repairStale(recordId)).toBe(1);
    expect(await holdersOfWord(recordId)).toEqual([]);
    expect(await visible(recordId, [s])).toEqual([s]);
  }, 120_000);
});

async function eventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
