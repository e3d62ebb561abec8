import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBlobStore, PgDatabase } from '@agent-memory/platform';
import { ForbiddenError, newId } from '@agent-memory/shared';
import { createTestDatabase, type TestDatabase } from '@agent-memory/testing';
import { WriteFileUseCase } from '../../services/files/src/use-cases/write-file.use-case';
import { PrismaFilesRepository } from '../../services/files/src/persistence/prisma-files.repository';
import { openFilesPrisma } from '../../services/files/src/persistence/prisma';
import type { MemoryRepository } from '../../services/memory/src/persistence/memory.repository';
import { PrismaMemoryRepository } from '../../services/memory/src/persistence/prisma-memory.repository';
import { openMemoryPrisma } from '../../services/memory/src/persistence/prisma';

/**
 * Storage quotas under concurrency on the machine's PostgreSQL (docs/api.md, "Storage quotas"): two
 * replicas (two connection pools) write for one agent at once; the quota is never overshot, and the
 * usage row equals what is stored.
 */
describe('storage quotas under concurrent writes from two replicas (PostgreSQL)', () => {
  let testDb: TestDatabase;
  let dbs: PgDatabase[];
  let dataDir: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    dbs = [new PgDatabase({ connectionString: testDb.url, poolSize: 8 }), new PgDatabase({ connectionString: testDb.url, poolSize: 8 })];
    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-quota-race-'));
  }, 60_000);
  afterAll(async () => {
    for (const db of dbs ?? []) await db.close();
    await testDb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('memories: 20 concurrent new memories against a quota of 5 store exactly 5; 10 of 300 bytes against 1000 bytes store exactly 3', async () => {
    const prismas = await Promise.all(dbs.map((db) => openMemoryPrisma(db)));
    const countRepos = prismas.map((p) => new PrismaMemoryRepository(p, { maxMemories: 5, maxBytes: 1_000_000 }));
    const bytesRepos = prismas.map((p) => new PrismaMemoryRepository(p, { maxMemories: 1000, maxBytes: 1000 }));
    const write = (repo: MemoryRepository, agentId: string, recordId: string, i: number, sizeBytes: number) => {
      const id = newId('memory');
      return repo.saveRemember(
        { id, recordId, agentId, path: `fact/${i}`, type: 'fact', summary: 's', contentHash: `sha256:${i}`, blobKey: `k/${id}`, sizeBytes, embedderId: 'test' },
        (id) => ({ id }),
      );
    };
    const outcomes = async (ps: Promise<unknown>[]) => {
      const settled = await Promise.allSettled(ps);
      for (const s of settled) if (s.status === 'rejected' && !(s.reason instanceof ForbiddenError)) throw s.reason;
      return { ok: settled.filter((s) => s.status === 'fulfilled').length, refused: settled.filter((s) => s.status === 'rejected').length };
    };

    const countAgent = newId('agent');
    const countRecord = newId('record');
    expect(await outcomes(Array.from({ length: 20 }, (_, i) => write(countRepos[i % 2], countAgent, countRecord, i, 10)))).toEqual({ ok: 5, refused: 15 });
    expect(await prismas[0].memory.count({ where: { agentId: countAgent } })).toBe(5);
    expect(await countRepos[0].usage(countAgent)).toEqual({ memories: 5, bytes: 50 });

    const bytesAgent = newId('agent');
    const bytesRecord = newId('record');
    expect(await outcomes(Array.from({ length: 10 }, (_, i) => write(bytesRepos[i % 2], bytesAgent, bytesRecord, i, 300)))).toEqual({ ok: 3, refused: 7 });
    expect(await bytesRepos[1].usage(bytesAgent)).toEqual({ memories: 3, bytes: 900 });

    // Forget gives back exactly what it removed, also when two forgets of one memory race.
    const victim = (await prismas[0].memory.findFirst({ where: { agentId: countAgent } }))!;
    await Promise.all([countRepos[0].forget(victim), countRepos[1].forget(victim)]);
    expect(await countRepos[0].usage(countAgent)).toEqual({ memories: 4, bytes: 40 });
    // Record deletion gives back the rest.
    await countRepos[1].purgeRecordMetadata(countRecord, newId('purgeTask'));
    expect(await countRepos[0].usage(countAgent)).toEqual({ memories: 0, bytes: 0 });
  }, 60_000);

  it('files: concurrent writes of new paths never overshoot; two replicas writing one new path count it once', async () => {
    const blobs = new FilesystemBlobStore(join(dataDir, 'blobs'));
    const prismas = await Promise.all(dbs.map((db) => openFilesPrisma(db)));
    const services = prismas.map((p) => new WriteFileUseCase(new PrismaFilesRepository(p, { maxFiles: 4, maxBytes: 1_000_000 }), blobs));
    const agentId = newId('agent');
    const recordId = newId('record');

    // The same new path from both replicas at once, several times: one file, counted once.
    for (let round = 0; round < 3; round++) {
      await Promise.all(services.map((s, i) => s.execute({ agentId, recordId, body: { path: 'shared.txt', content: `round ${round} from replica ${i}` } })));
    }
    const usage = async () => (await prismas[0].fileAgentUsage.findUnique({ where: { agentId } }))!;
    expect(Number((await usage()).fileCount)).toBe(1);

    const settled = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => services[i % 2].execute({ agentId, recordId, body: { path: `f${i}.txt`, content: `file ${i}` } })));
    for (const s of settled) if (s.status === 'rejected') expect(s.reason).toBeInstanceOf(ForbiddenError);
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
    const rows = await prismas[0].file.findMany({ where: { recordId } });
    expect(rows).toHaveLength(4);
    expect(Number((await usage()).fileCount)).toBe(4);
    expect(Number((await usage()).fileBytes)).toBe(rows.reduce((n, r) => n + r.sizeBytes, 0));
  }, 60_000);
});
