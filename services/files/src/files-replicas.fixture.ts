import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BlobStore, FilesystemBlobStore, InProcessJobQueue, type JobQueue, type PgDatabase } from '@agent-memory/platform';
import { HookedBlobStore, openTestPrismaReplicas } from '@agent-memory/testing';
import { FilesLifecycle } from './files.lifecycle';
import type { FileQuota } from './persistence/file-quota';
import { type FilesPrismaClient, openFilesPrisma } from './persistence/prisma';
import { PrismaFilesRepository } from './persistence/prisma-files.repository';
import { GetRawBlobUseCase } from './use-cases/get-raw-blob.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { PutRawBlobUseCase } from './use-cases/put-raw-blob.use-case';
import { ReadFileUseCase } from './use-cases/read-file.use-case';
import { WriteFileUseCase } from './use-cases/write-file.use-case';

/** The files service's use cases and lifecycle over one Prisma Client, wired by hand as FilesModule does (tests). */
export interface FilesUnderTest {
  repository: PrismaFilesRepository;
  write: WriteFileUseCase;
  read: ReadFileUseCase;
  rawPut: PutRawBlobUseCase;
  rawGet: GetRawBlobUseCase;
  purge: PurgeStoresUseCase;
  purgeRecord: PurgeRecordUseCase;
  lifecycle: FilesLifecycle;
}

/** Test fixture: wires the files service's use cases over `prisma`, `blobs` and `jobs` (optional quota). */
export function assembleFiles(prisma: FilesPrismaClient, blobs: BlobStore, jobs: JobQueue, quota?: FileQuota): FilesUnderTest {
  const repository = new PrismaFilesRepository(prisma, quota);
  const purge = new PurgeStoresUseCase(repository, blobs, jobs);
  return {
    repository,
    write: new WriteFileUseCase(repository, blobs),
    read: new ReadFileUseCase(repository, blobs),
    rawPut: new PutRawBlobUseCase(repository, blobs),
    rawGet: new GetRawBlobUseCase(repository, blobs),
    purge,
    purgeRecord: new PurgeRecordUseCase(repository, purge),
    lifecycle: new FilesLifecycle(purge, repository),
  };
}

/** One files-service replica of a race test: its own PostgreSQL pool and Prisma Client. */
export interface FilesReplica {
  db: PgDatabase;
  prisma: FilesPrismaClient;
  files: FilesUnderTest;
}

/**
 * Test fixture: `count` replicas of the files service on a fresh database of the machine's PostgreSQL,
 * sharing one {@link HookedBlobStore} (hook run `hookRuns` the put). `close` releases everything.
 */
export async function startFilesReplicas(count: number, hookRuns: 'before' | 'after'): Promise<{ replicas: FilesReplica[]; blobs: HookedBlobStore; close(): Promise<void> }> {
  const { clients, close } = await openTestPrismaReplicas(openFilesPrisma, count, 5);
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-files-replicas-'));
  const blobs = new HookedBlobStore(new FilesystemBlobStore(join(dataDir, 'blobs')), hookRuns);
  const replicas = clients.map(({ db, prisma }): FilesReplica => ({ db, prisma, files: assembleFiles(prisma, blobs, new InProcessJobQueue()) }));
  return {
    replicas,
    blobs,
    async close() {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
