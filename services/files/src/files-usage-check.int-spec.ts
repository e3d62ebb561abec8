import 'reflect-metadata';
import { FilesystemBlobStore, InProcessJobQueue } from '@agent-memory/platform';
import { newId } from '@agent-memory/shared';
import { openTestPrisma } from '@agent-memory/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFiles } from './files-check';
import { PrismaFilesRepository } from './persistence/prisma-files.repository';
import { assembleFiles } from './files-replicas.fixture';
import { type FilesPrismaClient, openFilesPrisma } from './persistence/prisma';

/**
 * data:check reports storage quota counters that drifted from the rows (docs/deployment.md, "Checking and
 * repairing a data directory": e.g. a rolling upgrade from a version without quotas) and, with repair,
 * recomputes them from the rows (the machine's PostgreSQL).
 */
describe('data check of the files usage counters', () => {
  let prisma: FilesPrismaClient;
  let close: () => Promise<void>;
  let dir: string;
  beforeAll(async () => {
    ({ prisma, close } = await openTestPrisma(openFilesPrisma, 3));
    dir = mkdtempSync(join(tmpdir(), 'agent-memory-usage-check-'));
  }, 60_000);
  afterAll(async () => {
    await close?.();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports a drifted counter and recomputes it with repair', async () => {
    const blobs = new FilesystemBlobStore(join(dir, 'blobs'));
    const files = assembleFiles(prisma, blobs, new InProcessJobQueue());
    const agentId = newId('agent');
    const recordId = newId('record');
    await files.write.execute({ agentId, recordId, body: { path: 'a.md', content: 'alpha' } });
    await files.rawPut.execute({ agentId, recordId, body: { path: 'b.bin', content: Buffer.from('beta!').toString('base64') } });
    // an old replica wrote a file without charging it
    await prisma.$executeRaw`UPDATE "files"."agent_usage" SET file_count = 1, file_bytes = 5 WHERE agent_id = ${agentId}`;

    const found = await checkFiles(new PrismaFilesRepository(prisma), blobs, undefined, { repair: false });
    expect(found.usageDrift).toEqual([{ agentId, stored: { files: 1, bytes: 5 }, actual: { files: 2, bytes: 10 } }]);
    expect(found.repairedUsage).toBe(0);
    const repaired = await checkFiles(new PrismaFilesRepository(prisma), blobs, undefined, { repair: true });
    expect(repaired.repairedUsage).toBe(1);
    expect(await prisma.$queryRaw`SELECT file_count::int AS n, file_bytes::int AS b FROM "files"."agent_usage" WHERE agent_id = ${agentId}`).toEqual([{ n: 2, b: 10 }]);
    expect((await checkFiles(new PrismaFilesRepository(prisma), blobs, undefined, { repair: false })).usageDrift).toEqual([]);
  }, 60_000);
});
