import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemBlobStore, InProcessJobQueue, type PgDatabase } from '@agent-memory/platform';
import { HookedBlobStore, openTestPrismaReplicas } from '@agent-memory/testing';
import { PrototypeMemoryTypeClassifier } from '../classification/prototype.memory-type-classifier';
import { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import { PrismaMemoryRepository } from '../persistence/prisma-memory.repository';
import { type MemoryPrismaClient, openMemoryPrisma } from '../persistence/prisma';
import { ExtractiveSummariser } from '../summary/extractive.summariser';
import { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { ContextualIndexer } from './contextual-indexer';
import { EnrichMemoryUseCase } from './enrich-memory.use-case';
import { ForgetUseCase } from './forget.use-case';
import { PurgeRecordUseCase } from './purge-record.use-case';
import { PurgeStoresUseCase } from './purge-stores.use-case';
import { RememberUseCase } from './remember.use-case';

/** One memory-service replica of a race test: its own PostgreSQL pool and Prisma Client, sharing the index and blob store. */
export interface MemoryReplica {
  db: PgDatabase;
  prisma: MemoryPrismaClient;
  repository: PrismaMemoryRepository;
  remember: RememberUseCase;
  /** Forget with contextual indexing (the production default), as `remember`. */
  forget: ForgetUseCase;
  purge: PurgeStoresUseCase;
  purgeRecord: PurgeRecordUseCase;
  /** The replica's contextual indexer (re-indexes after writes; repairs stale borrowers in purges). */
  contextual: ContextualIndexer;
}

/** What {@link startMemoryReplicas} gives a test: the replicas, the shared stores, and `close` to release them all. */
export interface MemoryReplicas {
  replicas: MemoryReplica[];
  embedder: UseLiteEmbedder;
  index: EmbeddedVectorIndex;
  blobs: HookedBlobStore;
  close(): Promise<void>;
}

/**
 * Test fixture: `count` replicas of the memory service's remember, forget and purge use cases (contextual
 * indexing on, as in production) on a fresh database
 * of the machine's PostgreSQL, with the real embedder, one embedded vector index (standing in for the
 * shared Qdrant) and one filesystem blob store a test can stall ({@link HookedBlobStore}; standing in for
 * S3), all in a new temporary directory. `close` disconnects, drops the database and deletes the directory.
 */
export async function startMemoryReplicas(count: number): Promise<MemoryReplicas> {
  const { clients, close } = await openTestPrismaReplicas(openMemoryPrisma, count, 5);
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-replicas-'));
  const embedder = new UseLiteEmbedder();
  const index = new EmbeddedVectorIndex({ directory: join(dataDir, 'vectors') });
  await index.open({ embedderId: embedder.id, dimension: embedder.dimension });
  const blobs = new HookedBlobStore(new FilesystemBlobStore(join(dataDir, 'blobs')));
  const replicas = clients.map(({ db, prisma }): MemoryReplica => {
    const repository = new PrismaMemoryRepository(prisma);
    const jobs = new InProcessJobQueue();
    const contextual = new ContextualIndexer(embedder, blobs, index, repository);
    const enrichment = new EnrichMemoryUseCase(repository, null, embedder, index, blobs, jobs, contextual);
    const purge = new PurgeStoresUseCase(repository, index, blobs, jobs, undefined, contextual);
    const remember = new RememberUseCase(repository, embedder, new PrototypeMemoryTypeClassifier(embedder), new ExtractiveSummariser(), index, blobs, enrichment, undefined, contextual, purge);
    return { db, prisma, repository, remember, forget: new ForgetUseCase(repository, purge), purge, purgeRecord: new PurgeRecordUseCase(repository, purge), contextual };
  });
  return {
    replicas,
    embedder,
    index,
    blobs,
    async close() {
      await close();
      await index.close();
      await embedder.close?.();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
