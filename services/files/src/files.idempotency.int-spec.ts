import 'reflect-metadata';
import { newId, type WriteFileResponse } from '@agent-memory/shared';
import type { HookedBlobStore } from '@agent-memory/testing';
import { type FilesReplica, startFilesReplicas } from './files-replicas.fixture';

/**
 * Idempotent file writes across two replicas of the files service on the machine's PostgreSQL (a fresh
 * database): a claim taken over after IDEMPOTENCY_ABANDONED_AFTER_MS must not let the original request
 * commit a second write.
 */
describe('files write idempotency with two replicas over PostgreSQL', () => {
  let blobs: HookedBlobStore;
  let replicas: FilesReplica[];
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ replicas, blobs, close } = await startFilesReplicas(2, 'after'));
  }, 60_000);
  afterAll(() => close?.());

  it('an idempotent write whose claim was taken over commits nothing and answers like a replay of the new owner', async () => {
    const recordId = newId('record');
    const agentId = newId('agent');
    const body = { path: 'notes/todo.md', content: '- buy milk\n', idempotency_key: 'k-files-takeover' };
    let taker: { result: WriteFileResponse; replayed: boolean } | undefined;
    blobs.hook = async () => {
      // Replica 0 stalls past the abandonment age after its claim; the client's retry reaches replica 1.
      await replicas[1]!.prisma.fileIdempotencyKey.updateMany({ where: { recordId, key: body.idempotency_key }, data: { createdAt: new Date(Date.now() - 31_000) } });
      taker = await replicas[1]!.files.write(agentId, recordId, body);
    };
    const original = await replicas[0]!.files.write(agentId, recordId, body);

    expect(taker?.replayed).toBe(false);
    expect(original).toEqual({ result: taker!.result, replayed: true });
    const log = await replicas[0]!.prisma.fileWriteLog.findMany({ where: { recordId } });
    expect(log.map((e) => e.op)).toEqual(['write']);
    expect(await replicas[0]!.files.read(recordId, body.path)).toEqual({ path: body.path, content: body.content });
  }, 60_000);
});
