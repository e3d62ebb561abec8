import 'reflect-metadata';
import { newId } from '@agent-memory/shared';
import { openEmbeddedTestPrisma, openTestPrisma } from '@agent-memory/testing';
import { openMemoryPrisma } from './prisma';
import { PrismaMemoryRepository } from './prisma-memory.repository';

/**
 * `MemoryRepository.contextWindow` (one statement, read by the contextual indexer after almost every
 * remember) on both databases the service runs on, the machine's PostgreSQL and the embedded PGlite: the
 * memory's contextual state, then up to `depth` predecessors of its own record in write order (newest
 * first, ties by id), nothing of other records, and null for a memory that does not exist.
 */
const KINDS = [
  { name: 'PostgreSQL', open: () => openTestPrisma(openMemoryPrisma, 2) },
  { name: 'PGlite', open: () => openEmbeddedTestPrisma(openMemoryPrisma) },
];

describe.each(KINDS)('contextWindow on $name', (kind) => {
  let close: (() => Promise<void>) | undefined;
  let prisma: Awaited<ReturnType<typeof openMemoryPrisma>>;
  let repository: PrismaMemoryRepository;

  beforeAll(async () => {
    ({ prisma, close } = await kind.open());
    repository = new PrismaMemoryRepository(prisma, { maxMemories: 1_000, maxBytes: 1_000_000 });
  }, 60_000);
  afterAll(() => close?.());

  const agentId = newId('agent');
  const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));
  async function insert(recordId: string, path: string, createdAt: Date, id = newId('memory')): Promise<string> {
    await prisma.memory.create({
      data: { id, recordId, agentId, path, type: 'fact', summary: path, contentHash: `sha256:${path}`, blobKey: `k/${id}`, sizeBytes: 1, embedderId: 'test', createdAt, updatedAt: createdAt },
    });
    return id;
  }

  it('returns the memory, then up to depth predecessors of its record, newest first; ties in time by id', async () => {
    const recordId = newId('record');
    const other = newId('record');
    const m0 = await insert(recordId, 'm0', at(0));
    // Two memories written in the same millisecond: the one with the smaller id comes first in write order.
    // Ids of one case and length, so that every collation orders them as JavaScript does.
    const tie = newId('memory').toLowerCase();
    const [a, b] = [`${tie}a`, `${tie}b`];
    await insert(recordId, 'a', at(1), a);
    await insert(recordId, 'b', at(1), b);
    await insert(other, 'elsewhere', at(2));
    const self = await insert(recordId, 'self', at(3));
    await insert(recordId, 'later', at(4));
    await prisma.memory.update({ where: { id: self }, data: { contextLenders: [b, a], contextStale: true, contextEpoch: 3 } });

    const window = (await repository.contextWindow(self, 2))!;
    expect(window.self).toEqual({ id: self, recordId, type: 'fact', contentHash: 'sha256:self', blobKey: `k/${self}`, createdAt: at(3), contextLenders: [b, a], contextStale: true, contextEpoch: 3 });
    expect(window.before.map((r) => r.id)).toEqual([b, a]);
    expect(window.before[0]).toMatchObject({ recordId, agentId, path: 'b', contentHash: 'sha256:b', blobKey: `k/${b}`, sizeBytes: 1, createdAt: at(1) });
    expect((await repository.contextWindow(self, 5))!.before.map((r) => r.id)).toEqual([b, a, m0]);
    expect((await repository.contextWindow(b, 5))!.before.map((r) => r.id)).toEqual([a, m0]);
    expect((await repository.contextWindow(self, 0))!.before).toEqual([]);
    expect((await repository.contextWindow(m0, 2))!).toMatchObject({ self: { id: m0, contextLenders: [], contextStale: false, contextEpoch: 0 }, before: [] });
  });

  it('is null for a memory that does not exist', async () => {
    expect(await repository.contextWindow(newId('memory'), 2)).toBeNull();
  });
});
