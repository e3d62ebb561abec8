import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBlobStore, InProcessJobQueue, PgDatabase } from '@agent-memory/platform';
import { createTestDatabase, HookedBlobStore } from '@agent-memory/testing';
import { FilesService } from './files.service';
import { type FilesPrismaClient, openFilesPrisma } from './persistence/prisma';

/** One files-service replica of a race test: its own PostgreSQL pool and Prisma Client. */
export interface FilesReplica {
  db: PgDatabase;
  prisma: FilesPrismaClient;
  files: FilesService;
}

/**
 * Test fixture: `count` replicas of the files service on a fresh database of the machine's PostgreSQL,
 * sharing one {@link HookedBlobStore} (hook run `hookRuns` the put). `close` releases everything.
 */
export async function startFilesReplicas(count: number, hookRuns: 'before' | 'after'): Promise<{ replicas: FilesReplica[]; blobs: HookedBlobStore; close(): Promise<void> }> {
  const testDb = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-files-replicas-'));
  const blobs = new HookedBlobStore(new FilesystemBlobStore(join(dataDir, 'blobs')), hookRuns);
  const replicas: FilesReplica[] = [];
  for (let i = 0; i < count; i++) {
    const db = new PgDatabase({ connectionString: testDb.url, poolSize: 5 });
    const prisma = await openFilesPrisma(db);
    replicas.push({ db, prisma, files: new FilesService(prisma, blobs, new InProcessJobQueue()) });
  }
  return {
    replicas,
    blobs,
    async close() {
      for (const r of replicas) {
        await r.prisma.$disconnect();
        await r.db.close();
      }
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
