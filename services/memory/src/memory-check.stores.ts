import type { BlobStore, Database } from '@agent-memory/platform';
import type { Embedder } from './embedding/embedder.port';
import { OpenAiCompatibleEmbedder } from './embedding/openai-compatible.embedder';
import { createUseLiteEmbedder } from './embedding/use-lite-runtime';
import type { EmbedderConfig } from './memory.options';
import { openMemoryPrisma } from './persistence/prisma';
import { PrismaMemoryRepository } from './persistence/prisma-memory.repository';
import type { MemoryCheckStores } from './use-cases/check-memories';
import { EmbeddedVectorIndex } from './vector-index/embedded.vector-index';
import { QdrantVectorIndex } from './vector-index/qdrant.vector-index';
import type { VectorIndex } from './vector-index/vector-index.port';

// The adapters the data check (`checkMemories`) works on, built outside the running service by the
// launchers' `data:check` commands (docs/deployment.md, "Checking and repairing a data directory").

/** The configured embedder (as `MemoryModule` builds it). */
export function createEmbedder(config: EmbedderConfig): Embedder {
  return config.kind === 'use-lite'
    ? createUseLiteEmbedder({ runtime: config.runtime, precision: config.precision, modelCacheDirectory: config.modelCacheDirectory })
    : new OpenAiCompatibleEmbedder({ baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey, dimension: config.dimension, timeoutMs: config.timeoutMs });
}

/** The vector index {@link openMemoryCheckStores} checks: an embedded index's directory (its process stopped) or Qdrant. */
export type CheckedIndexConfig = { kind: 'embedded'; directory: string } | { kind: 'qdrant'; url: string; apiKey?: string; collectionPrefix?: string };

/**
 * Opens the memory service's stores for `checkMemories`, outside the running service: the vector
 * index first (an embedded index's lock file refuses a directory a running process holds, so the check
 * never runs beside it; Qdrant may stay in use), then the memory schema of `db`. `close` releases both.
 */
export async function openMemoryCheckStores(db: Database, blobs: BlobStore, embedderConfig: EmbedderConfig, indexConfig: CheckedIndexConfig): Promise<MemoryCheckStores & { close(): Promise<void> }> {
  const embedder = createEmbedder(embedderConfig);
  const index: VectorIndex =
    indexConfig.kind === 'embedded'
      ? new EmbeddedVectorIndex({ directory: indexConfig.directory })
      : new QdrantVectorIndex({ url: indexConfig.url, apiKey: indexConfig.apiKey, collectionPrefix: indexConfig.collectionPrefix });
  await index.open({ embedderId: embedder.id, dimension: embedder.dimension });
  try {
    const prisma = await openMemoryPrisma(db);
    return {
      repository: new PrismaMemoryRepository(prisma),
      blobs,
      index,
      embedder,
      async close() {
        await prisma.$disconnect();
        await index.close();
        await embedder.close?.();
      },
    };
  } catch (err) {
    await index.close();
    throw err;
  }
}
