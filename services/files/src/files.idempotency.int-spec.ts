import 'reflect-metadata';
import { runWithBusHeaders } from '@agent-memory/platform';
import { DomainError, newId, RateLimitedError, type WriteFileResponse } from '@agent-memory/shared';
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
    let taker: { result: WriteFileResponse; replayed: boolean; commitId?: string } | undefined;
    blobs.hook = async () => {
      // Replica 0 stalls past the abandonment age after its claim; the client's retry reaches replica 1.
      await replicas[1].prisma.fileIdempotencyKey.updateMany({ where: { recordId, key: body.idempotency_key }, data: { createdAt: new Date(Date.now() - 31_000) } });
      taker = await replicas[1].files.write.execute({ agentId, recordId, body });
    };
    const original = await replicas[0].files.write.execute({ agentId, recordId, body });

    expect(taker?.replayed).toBe(false);
    expect(original).toEqual({ result: taker!.result, replayed: true, commitId: taker!.commitId });
    const log = await replicas[0].prisma.fileWriteLog.findMany({ where: { recordId } });
    expect(log.map((e) => e.op)).toEqual(['write']);
    expect(await replicas[0].files.read.execute({ agentId, recordId, path: body.path })).toEqual({ path: body.path, content: body.content });
  }, 60_000);
  /** Runs `fn` as the handler of a bus request whose deadline is `ms` from now. */
  const withDeadline = <T>(ms: number, fn: () => Promise<T>): Promise<T> => runWithBusHeaders({ requestId: newId('record'), deadline: Date.now() + ms }, fn);

  it('a write whose deadline passes before its commit is not applied and frees its key; the retry writes once, a replay names the same commit', async () => {
    const recordId = newId('record');
    const agentId = newId('agent');
    const body = { path: 'notes/late.md', content: 'written late\n', idempotency_key: 'k-files-late' };
    blobs.hook = () => new Promise((resolve) => setTimeout(resolve, 800)); // a slow blob store (S3)
    const late = await withDeadline(300, () => replicas[0].files.write.execute({ agentId, recordId, body })).then(
      () => 'applied',
      (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
    );
    expect(late).toBe('INTERNAL_ERROR');
    await expect(replicas[0].files.read.execute({ agentId, recordId, path: body.path })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await replicas[0].prisma.fileIdempotencyKey.count({ where: { recordId } })).toBe(0);

    const retry = await withDeadline(10_000, () => replicas[1].files.write.execute({ agentId, recordId, body }));
    expect(retry.replayed).toBe(false);
    const replay = await withDeadline(10_000, () => replicas[0].files.write.execute({ agentId, recordId, body }));
    expect(replay).toEqual({ result: retry.result, replayed: true, commitId: retry.commitId });
    expect(retry.commitId).toMatch(/^files:[0-9a-f]{40}$/);
    expect((await replicas[0].prisma.fileWriteLog.findMany({ where: { recordId } })).map((e) => e.op)).toEqual(['write']);
  }, 60_000);

  it('the same key while the first write is in progress answers RATE_LIMITED with Retry-After until the first request\'s deadline', async () => {
    const recordId = newId('record');
    const agentId = newId('agent');
    const body = { path: 'notes/busy.md', content: 'busy\n', idempotency_key: 'k-files-busy' };
    let unstall!: () => void;
    let reached!: () => void;
    const atBlobStore = new Promise<void>((resolve) => (reached = resolve));
    blobs.hook = () => {
      reached();
      return new Promise<void>((resolve) => (unstall = resolve));
    };
    const first = withDeadline(40_000, () => replicas[0].files.write.execute({ agentId, recordId, body }));
    await atBlobStore;
    const busy = await withDeadline(10_000, () => replicas[1].files.write.execute({ agentId, recordId, body })).catch((err: unknown) => err);
    expect(busy).toBeInstanceOf(RateLimitedError);
    expect((busy as RateLimitedError).retryAfterSeconds).toBeGreaterThan(20);
    expect((busy as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(40);
    unstall();
    const done = await first;
    expect(done.replayed).toBe(false);
    expect(await withDeadline(10_000, () => replicas[1].files.write.execute({ agentId, recordId, body }))).toEqual({ ...done, replayed: true });
  }, 60_000);
});
