import { FairScheduler } from '@agent-memory/platform';
import type { MemoryTypeClassifier } from '../classification/memory-type-classifier.port';
import type { Embedder } from '../embedding/embedder.port';
import { markRolledBack, type MemoryRepository } from '../persistence/memory.repository';
import type { VectorIndex } from '../vector-index/vector-index.port';
import { BackgroundWork } from './background-work';
import type { ContextualIndexer } from './contextual-indexer';
import type { EnrichMemoryUseCase } from './enrich-memory.use-case';
import { RememberUseCase } from './remember.use-case';

/**
 * Remember's write transaction runs outside the fair scheduler's slots (docs/configuration.md, "Fairness
 * between agents"): a save that waits on a database lock (a record purge's advisory lock, another
 * replica's lock on the agent's usage row) must not hold the process's only slot, and a write's save must
 * not queue behind the analyses its agent queued after it.
 */
describe('remember: the save is not a scheduler job', () => {
  const embedder: Embedder = { id: 'fake@2', dimension: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])) };
  const summariser = { summarise: async (text: string) => text.slice(0, 20) };
  const classifier = { classify: async () => 'fact' } as unknown as MemoryTypeClassifier;
  const index = { upsert: async () => undefined, delete: async () => undefined } as unknown as VectorIndex;
  const blobs = { put: async () => undefined, delete: async () => undefined } as never;
  const enrichment = { queueAfterRemember: async () => undefined } as unknown as EnrichMemoryUseCase;

  /** A repository whose saveRemember waits until `release` is called (a transaction blocked on a lock). */
  function blockedRepository() {
    let release!: () => void;
    const unblocked = new Promise<void>((resolve) => (release = resolve));
    const saves: string[] = [];
    const repository = {
      storageQuota: { maxMemories: 1_000, maxBytes: 1e9 },
      quotaView: async () => ({ existing: null, usage: { memories: 0, bytes: 0 } }),
      saveRemember: async (w: { id: string }) => {
        saves.push(w.id);
        await unblocked;
        return w.id;
      },
    } as unknown as MemoryRepository;
    return { repository, release, saves };
  }

  it("lets another agent's job run while a write's save waits on a lock (one slot in the process)", async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 10 });
    const { repository, release, saves } = blockedRepository();
    const remember = new RememberUseCase(repository, embedder, classifier, summariser, index, blobs, enrichment, scheduler);
    const write = remember.execute({ agentId: 'agt_a', recordId: 'rec_a', body: { content: 'The door code is 4711.', type: 'fact' } });
    while (saves.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The save is blocked; a recall of agent B must still get the slot.
    const other = scheduler.run('agt_b', 1, async () => 'recall done');
    const outcome = await Promise.race([other, new Promise((resolve) => setTimeout(() => resolve('blocked'), 2_000))]);
    release();
    await write;
    expect(outcome).toBe('recall done');
  });
});

describe('remember: the contextual re-index runs after the answer', () => {
  const embedder: Embedder = { id: 'fake@2', dimension: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])) };
  const classifier = { classify: async () => 'fact' } as unknown as MemoryTypeClassifier;
  const index = { upsert: async () => undefined, delete: async () => undefined } as unknown as VectorIndex;
  const blobs = { put: async () => undefined, delete: async () => undefined } as never;
  const enrichment = { queueAfterRemember: async () => undefined } as unknown as EnrichMemoryUseCase;
  const repository = {
    storageQuota: { maxMemories: 1_000, maxBytes: 1e9 },
    quotaView: async () => ({ existing: null, usage: { memories: 0, bytes: 0 } }),
    saveRemember: async (w: { id: string }) => w.id,
  } as unknown as MemoryRepository;

  it('answers without waiting for it, and its failure does not fail the remember', async () => {
    let finish!: () => void;
    const started: string[] = [];
    const contextual = {
      enabled: true,
      afterWrite: async (id: string) => {
        started.push(id);
        await new Promise<void>((resolve) => (finish = resolve));
        throw new Error('embedder down');
      },
    } as unknown as ContextualIndexer;
    const remember = new RememberUseCase(repository, embedder, classifier, { summarise: async () => '' }, index, blobs, enrichment, undefined, contextual);
    const answer = await Promise.race([
      remember.execute({ agentId: 'agt_a', recordId: 'rec_a', body: { content: 'The door code is 4711.', type: 'fact' } }),
      new Promise((resolve) => setTimeout(() => resolve('waited for the re-index'), 2_000)),
    ]);
    expect(answer).toMatchObject({ replayed: false });
    expect(started).toHaveLength(1);
    finish();
    await remember.contextSettled();
  });
});

describe('BackgroundWork', () => {
  it('runs at most `concurrency` tasks at once, keeps at most `backlog` waiting, skips the rest, and survives failures', async () => {
    const work = new BackgroundWork('test', 2, 1);
    const releases: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const task = () => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      throw new Error('fails');
    };
    expect([work.submit(task()), work.submit(task()), work.submit(task()), work.submit(task())]).toEqual([true, true, true, false]);
    expect(work.skipped).toBe(1);
    while (releases.length < 3) {
      releases.splice(0).forEach((release) => release());
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (releases.length === 0) break;
    }
    releases.forEach((release) => release());
    await work.settled();
    expect(peak).toBe(2);
  });
});

/**
 * The clean-up after a write transaction that wrote a new memory's vector under its fresh id (before its
 * quota charge, MemoryRepository.saveRemember): the vector and blob go when the transaction rolled back
 * (any error raised inside it), stay when the outcome is unknown (an error at COMMIT), and a fresh id that
 * no row uses after a deadlock retry (a row appeared at the path meanwhile) loses its vector.
 */
describe('remember: a vector under the fresh id that no row uses is deleted', () => {
  const embedder: Embedder = { id: 'fake@2', dimension: 2, embed: async (texts) => texts.map(() => Float32Array.from([1, 0])) };
  const classifier = { classify: async () => 'fact' } as unknown as MemoryTypeClassifier;
  const enrichment = { queueAfterRemember: async () => undefined } as unknown as EnrichMemoryUseCase;

  function setup(save: (w: { id: string }, writeVector: (id: string) => Promise<void>) => Promise<string>) {
    const deleted: string[][] = [];
    const blobsDeleted: string[][] = [];
    const index = { upsert: async () => undefined, delete: async (_tenant: string, ids: string[]) => void deleted.push(ids) } as unknown as VectorIndex;
    const blobs = { put: async () => undefined, delete: async (keys: string[]) => void blobsDeleted.push(keys) } as never;
    const repository = {
      storageQuota: { maxMemories: 1_000, maxBytes: 1e9 },
      quotaView: async () => ({ existing: null, usage: { memories: 0, bytes: 0 } }),
      saveRemember: (w: { id: string }, _respond: unknown, writeVector: (id: string) => Promise<void>) => save(w, writeVector),
    } as unknown as MemoryRepository;
    const remember = new RememberUseCase(repository, embedder, classifier, { summarise: async () => '' }, index, blobs, enrichment);
    return { remember, deleted, blobsDeleted };
  }
  const body = { content: 'The lab key is in the blue box.', type: 'fact' as const, path: 'facts/key' };

  it('a transaction that rolled back for any reason (here a lost connection) deletes the vector and the blob', async () => {
    let fresh = '';
    const { remember, deleted, blobsDeleted } = setup(async (w, writeVector) => {
      fresh = w.id;
      await writeVector(w.id);
      throw markRolledBack(new Error('Connection terminated unexpectedly'));
    });
    await expect(remember.execute({ agentId: 'agt_a', recordId: 'rec_a', body })).rejects.toThrow('Connection terminated');
    expect(deleted).toEqual([[fresh]]);
    expect(blobsDeleted).toHaveLength(1);
  });

  it('an error whose outcome is unknown (not raised inside the transaction) deletes nothing', async () => {
    const { remember, deleted, blobsDeleted } = setup(async (w, writeVector) => {
      await writeVector(w.id);
      throw new Error('COMMIT failed: connection lost');
    });
    await expect(remember.execute({ agentId: 'agt_a', recordId: 'rec_a', body })).rejects.toThrow('COMMIT failed');
    expect(deleted).toEqual([]);
    expect(blobsDeleted).toEqual([]);
  });

  it('a deadlock retry that replaced a row written meanwhile deletes the vector of the unused fresh id', async () => {
    let fresh = '';
    const { remember, deleted, blobsDeleted } = setup(async (w, writeVector) => {
      fresh = w.id;
      await writeVector(w.id); // first attempt: a new memory, then a deadlock
      await writeVector('mem_existing'); // second attempt: the row at the path is there now
      return 'mem_existing';
    });
    const { result } = await remember.execute({ agentId: 'agt_a', recordId: 'rec_a', body });
    expect(result.id).toBe('mem_existing');
    expect(deleted).toEqual([[fresh]]);
    expect(blobsDeleted).toEqual([]); // the replaced row now uses this write's blob
  });
});
