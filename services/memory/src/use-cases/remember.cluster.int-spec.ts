import 'reflect-metadata';
import { newId, type RememberBody } from '@agent-memory/shared';
import { domainCode, type HookedBlobStore } from '@agent-memory/testing';
import { embedDocument } from '../recall/document-embedding';
import type { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import type { MemoryRepository } from '../persistence/memory.repository';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { type MemoryReplica, startMemoryReplicas } from './memory-replicas.fixture';
import type { RememberUseCase } from './remember.use-case';

/**
 * Remember across two replicas of the memory service on the machine's PostgreSQL (a fresh database), with
 * the real embedder, embedded vector index (standing in for the shared Qdrant) and filesystem blob store
 * (standing in for S3): the path lock, forget and record-deletion races, and idempotency takeover.
 */
describe('remember with two replicas over PostgreSQL', () => {
  let embedder: UseLiteEmbedder;
  let index: EmbeddedVectorIndex;
  let blobs: HookedBlobStore;
  let replicas: MemoryReplica[];
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ replicas, embedder, index, blobs, close } = await startMemoryReplicas(2));
  }, 120_000);
  afterAll(() => close?.());

  afterEach(() => {
    blobs.hook = null;
  });

  const agentId = newId('agent');
  const rows = (recordId: string) => replicas[0].prisma.memory.findMany({ where: { recordId } });
  /** Cosine similarity of the stored vector of `id` to the embedding of `content` (absent vector: undefined). */
  async function vectorScore(recordId: string, id: string, content: string): Promise<number | undefined> {
    return (await index.scoreDense(await embedDocument(embedder, content, { scope: recordId }), recordId, [id])).get(id);
  }

  it('two replicas remembering the same new path at once end with one memory whose id, blob and vector agree, named by both answers', async () => {
    const recordId = newId('record');
    const path = 'notes/coffee';
    const bodies: RememberBody[] = [
      { content: 'The espresso machine descales every second Monday of the month.', type: 'fact', path },
      { content: 'Ground coffee for the office is ordered from the roaster on Elm Street.', type: 'fact', path },
    ];
    // Both replicas reach their write transaction only after both have written their blobs (the barrier
    // releases the two puts together; each model step runs meanwhile), so the two transactions race.
    blobs.barrier(2);
    const answers = await Promise.all(bodies.map((body, i) => replicas[i].remember.execute({ agentId, recordId, body })));

    const stored = await rows(recordId);
    expect(stored).toHaveLength(1);
    const row = stored[0];
    // Defined outcome: the later transaction replaced the earlier memory in place; both answers name it.
    expect(answers.map((a) => a.result.id)).toEqual([row.id, row.id]);
    const content = (await blobs.get(row.blobKey))!.toString('utf8');
    const later = bodies.findIndex((b) => b.content === content);
    expect(later).toBeGreaterThanOrEqual(0);
    const other = bodies[1 - later].content;
    expect(await vectorScore(recordId, row.id, content)).toBeGreaterThan(0.99);
    expect(await vectorScore(recordId, row.id, other)).toBeLessThan(0.99);
    expect(await index.count(recordId)).toBe(1);
    const log = await replicas[0].prisma.memoryWriteLog.findMany({ where: { recordId } });
    expect(log.map((e) => e.memoryId)).toEqual([row.id, row.id]);
  }, 60_000);

  it('a remember that found a memory which a forget then removed writes a new memory that the forget purge leaves intact', async () => {
    const recordId = newId('record');
    const body: RememberBody = { content: 'The office Wi-Fi password rotates on the first of each month.', type: 'fact', path: 'notes/wifi' };
    const first = await replicas[0].remember.execute({ agentId, recordId, body });
    const forgotten = (await replicas[1].repository.findByPath(recordId, 'notes/wifi'))!;
    // The forget (replica 1) commits its metadata while replica 0's remember of the same content is between
    // its reads and its write transaction; its store purge runs after that remember has committed.
    let task: Awaited<ReturnType<MemoryRepository['forget']>> = null;
    blobs.hook = async () => {
      task = await replicas[1].repository.forget(forgotten);
    };
    const second = await replicas[0].remember.execute({ agentId, recordId, body });
    expect(task).not.toBeNull();
    await replicas[1].purge.runOrQueue(task!);

    expect(second.result.id).not.toBe(first.result.id);
    const stored = await rows(recordId);
    expect(stored.map((r) => r.id)).toEqual([second.result.id]);
    expect((await blobs.get(stored[0].blobKey))?.toString('utf8')).toBe(body.content);
    expect(await vectorScore(recordId, second.result.id, body.content)).toBeGreaterThan(0.99);
    expect(await index.count(recordId)).toBe(1);
  }, 60_000);

  it('an idempotent remember whose claim was taken over after 30 s commits nothing and answers with the new owner’s memory', async () => {
    const recordId = newId('record');
    const body: RememberBody = { content: 'Invoices are approved by the finance lead before payment.', type: 'fact', idempotency_key: 'k-takeover' };
    let takerAnswer: Awaited<ReturnType<RememberUseCase['execute']>> | undefined;
    blobs.hook = async () => {
      // Replica 0 stalls past IDEMPOTENCY_ABANDONED_AFTER_MS after its claim; a retry reaches replica 1.
      await replicas[1].prisma.memoryIdempotencyKey.updateMany({ where: { recordId, key: 'k-takeover' }, data: { createdAt: new Date(Date.now() - 31_000) } });
      takerAnswer = await replicas[1].remember.execute({ agentId, recordId, body });
    };
    const original = await replicas[0].remember.execute({ agentId, recordId, body });

    expect(takerAnswer?.replayed).toBe(false);
    expect(original).toEqual({ result: takerAnswer!.result, replayed: true, commitId: takerAnswer!.commitId });
    const stored = await rows(recordId);
    expect(stored.map((r) => r.id)).toEqual([takerAnswer!.result.id]);
    expect(await index.count(recordId)).toBe(1);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([stored[0].blobKey]);
  }, 60_000);

  it('a remember whose transaction starts after its record was purged gets NOT_FOUND and leaves nothing', async () => {
    const recordId = newId('record');
    await replicas[0].remember.execute({ agentId, recordId, body: { content: 'Standup is at 9:30 on weekdays.', type: 'fact', path: 'notes/standup' } });
    blobs.hook = async () => {
      await replicas[1].purgeRecord.execute({ eventId: newId('record'), agentId, recordIds: [recordId], deletedAt: new Date().toISOString() });
    };
    const code = await domainCode(
      replicas[0].remember.execute({ agentId, recordId, body: { content: 'Retro is on Friday afternoons.', type: 'fact', path: 'notes/retro', idempotency_key: 'k-deleted' } }),
    );

    expect(code).toBe('NOT_FOUND');
    expect(await rows(recordId)).toEqual([]);
    expect(await index.count(recordId)).toBe(0);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
    expect(await replicas[0].prisma.memoryWriteLog.count({ where: { recordId } })).toBe(0);
    expect(await replicas[0].prisma.memoryIdempotencyKey.count({ where: { recordId } })).toBe(0);
    // Later remembers into the deleted record are refused too.
    expect(await domainCode(replicas[1].remember.execute({ agentId, recordId, body: { content: 'Anything.', type: 'fact' } }))).toBe('NOT_FOUND');
  }, 60_000);
});
