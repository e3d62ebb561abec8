import 'reflect-metadata';
import { runWithBusHeaders } from '@agent-memory/platform';
import { DomainError, newId, RateLimitedError, type RememberBody } from '@agent-memory/shared';
import type { HookedBlobStore } from '@agent-memory/testing';
import type { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import type { MemoryPrismaClient } from '../persistence/prisma';
import type { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { startMemoryReplicas } from './memory-replicas.fixture';
import type { RememberUseCase } from './remember.use-case';

/** The deadline of the calls that must complete: far beyond their work, even on a loaded 2-core machine. */
const WORKING_DEADLINE_MS = 45_000;

/**
 * Remember under a bus request's deadline (docs/api.md "After a 500 or a timeout"), on the machine's
 * PostgreSQL with the real embedder, embedded index and a filesystem blob store that a test can stall:
 * a write whose deadline passed before its commit is not applied (so the gateway's 500 after a bus
 * timeout means "not applied"), and a key whose first request is still in progress (or crashed) answers
 * RATE_LIMITED with the seconds until its claim can be taken over, after which the retry stores it once.
 * The content's blob is written while the model works; a write that fails before its commit deletes it.
 */
describe('remember and the request deadline', () => {
  let prisma: MemoryPrismaClient;
  let index: EmbeddedVectorIndex;
  let blobs: HookedBlobStore;
  let remember: RememberUseCase;
  let embedder: UseLiteEmbedder;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const started = await startMemoryReplicas(1);
    ({ index, blobs, close, embedder } = started);
    ({ prisma, remember } = started.replicas[0]);
    // The model loads here, not inside a case's deadline (tfjs-wasm takes seconds on a loaded machine).
    await embedder.embed(['warm-up']);
  }, 120_000);
  afterAll(() => close?.());

  afterEach(() => {
    blobs.hook = null;
  });

  const agentId = newId('agent');
  /** Runs `fn` as the handler of a bus request whose deadline is `ms` from now. */
  const withDeadline = <T>(ms: number, fn: () => Promise<T>): Promise<T> => runWithBusHeaders({ requestId: newId('record'), deadline: Date.now() + ms }, fn);
  const rows = (recordId: string) => prisma.memory.findMany({ where: { recordId } });

  it('a remember whose deadline passes before its commit writes nothing and frees its key: the retry stores it once', async () => {
    const recordId = newId('record');
    const body: RememberBody = { content: 'The backup tapes go to the off-site vault every Friday.', type: 'fact', idempotency_key: 'k-late' };
    // the blob store stalls past the deadline, as a slow S3 does while the gateway's bus request times out
    blobs.hook = () => new Promise((resolve) => setTimeout(resolve, 800));
    const late = await withDeadline(300, () => remember.execute({ agentId, recordId, body })).then(
      () => 'applied',
      (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
    );

    expect(late).toBe('INTERNAL_ERROR');
    expect(await rows(recordId)).toEqual([]);
    expect(await prisma.memoryWriteLog.count({ where: { recordId } })).toBe(0);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
    expect(await prisma.memoryIdempotencyKey.count({ where: { recordId } })).toBe(0);

    const retry = await withDeadline(WORKING_DEADLINE_MS, () => remember.execute({ agentId, recordId, body }));
    expect(retry.replayed).toBe(false);
    expect((await rows(recordId)).map((r) => r.id)).toEqual([retry.result.id]);
    const replay = await withDeadline(WORKING_DEADLINE_MS, () => remember.execute({ agentId, recordId, body }));
    expect(replay).toMatchObject({ result: retry.result, replayed: true });
    expect(replay.commitId).toBeDefined();
    expect(replay.commitId).toBe(retry.commitId);
  }, 60_000);

  it('writes the content to the blob store while the model works, and a failed model step leaves no blob, row or vector', async () => {
    const recordId = newId('record');
    // The model step waits until the blob store holds the bytes: were the write after the model step, it
    // would never come, and the step fails with its own message instead of the model's.
    let written!: () => void;
    const blobWritten = new Promise<void>((resolve) => (written = resolve));
    blobs.hook = () => {
      written();
      return Promise.resolve();
    };
    let timer: NodeJS.Timeout | undefined;
    const embed = jest.spyOn(embedder, 'embed').mockImplementationOnce(async () => {
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the blob was not written while the model worked')), 10_000)));
      await Promise.race([blobWritten, late]);
      throw new Error('model failure');
    });
    try {
      const outcome = await withDeadline(WORKING_DEADLINE_MS, () => remember.execute({ agentId, recordId, body: { content: 'The badge reader at the lab door fails on rainy mornings.', type: 'fact' } })).then(
        () => 'applied',
        (err: unknown) => (err as Error).message,
      );
      expect(outcome).toBe('model failure');
    } finally {
      clearTimeout(timer);
      embed.mockRestore();
    }
    expect(await rows(recordId)).toEqual([]);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
    expect(await index.count(recordId)).toBe(0);
  }, 60_000);

  it('a new memory whose deadline passes during its vector write is rolled back and leaves no vector in the index', async () => {
    const recordId = newId('record');
    const upsert = index.upsert.bind(index);
    // the vector write takes past the deadline, so the check just before COMMIT rolls the transaction back
    const slow = jest.spyOn(index, 'upsert').mockImplementation(async (points) => {
      await upsert(points);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    });
    try {
      const late = await withDeadline(1_500, () => remember.execute({ agentId, recordId, body: { content: 'The spare keys hang behind the reception desk.', type: 'fact' } })).then(
        () => 'applied',
        (err: unknown) => (err instanceof DomainError ? err.code : String(err)),
      );
      expect(late).toBe('INTERNAL_ERROR');
    } finally {
      slow.mockRestore();
    }
    expect(await rows(recordId)).toEqual([]);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
    expect(await index.count(recordId)).toBe(0);
  }, 60_000);

  it('the same key while the first request is still in progress answers RATE_LIMITED with the seconds until its claim expires; after that the retry stores one memory', async () => {
    const recordId = newId('record');
    const body: RememberBody = { content: 'The fire drill is on the first Tuesday of the quarter.', type: 'fact', idempotency_key: 'k-busy' };
    // the first request stalls after its claim (a hung or crashed process), with a 60 s deadline
    let unstall!: () => void;
    const stalled = new Promise<void>((resolve) => (unstall = resolve));
    let reached!: () => void;
    const atBlobStore = new Promise<void>((resolve) => (reached = resolve));
    blobs.hook = () => {
      reached();
      return stalled;
    };
    const first = withDeadline(60_000, () => remember.execute({ agentId, recordId, body }));
    await atBlobStore;

    const busy = await withDeadline(WORKING_DEADLINE_MS, () => remember.execute({ agentId, recordId, body })).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(busy).toBeInstanceOf(RateLimitedError);
    expect((busy as RateLimitedError).retryAfterSeconds).toBeGreaterThan(30);
    expect((busy as RateLimitedError).retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((busy as RateLimitedError).message).toMatch(/in progress/);

    // the first request's deadline passes (it can no longer commit): its claim is taken over by the retry
    await prisma.memoryIdempotencyKey.updateMany({ where: { recordId, key: 'k-busy' }, data: { expiresAt: new Date(Date.now() - 1) } });
    const retry = await withDeadline(WORKING_DEADLINE_MS, () => remember.execute({ agentId, recordId, body }));
    expect(retry.replayed).toBe(false);

    unstall();
    const original = await first;
    expect(original).toMatchObject({ result: retry.result, replayed: true });
    expect((await rows(recordId)).map((r) => r.id)).toEqual([retry.result.id]);
    expect(await index.count(recordId)).toBe(1);
  }, 60_000);
});
