import type { Logger } from '@nestjs/common';
import { type BlobStore, verifyBlob } from '@agent-memory/platform';
import type { MemoryType } from '@agent-memory/shared';
import type { Database } from '@agent-memory/platform';
import type { Embedder } from '../embedding/embedder.port';
import { OpenAiCompatibleEmbedder } from '../embedding/openai-compatible.embedder';
import { UseLiteEmbedder } from '../embedding/use-lite.embedder';
import type { EmbedderConfig } from '../memory.options';
import { checkMemoryUsage, type MemoryUsageDrift } from '../persistence/memory-usage-check';
import type { MemoryRepository } from '../persistence/memory.repository';
import { PrismaMemoryRepository } from '../persistence/prisma-memory.repository';
import { type MemoryPrismaClient, openMemoryPrisma } from '../persistence/prisma';
import { EmbeddedVectorIndex } from '../vector-index/embedded.vector-index';
import { QdrantVectorIndex } from '../vector-index/qdrant.vector-index';
import { embedDocument } from '../recall/document-embedding';
import { encodeKeywords } from '../recall/keyword-encoder';
import type { VectorIndex } from '../vector-index/vector-index.port';

/** Rows read per batch of {@link checkMemories} (one blob read each, one index probe per record in the batch). */
const CHECK_BATCH = 256;

/** What {@link checkMemories} found (memory ids) and repaired; docs/deployment.md, "Checking and repairing a data directory". */
export interface MemoryCheckReport {
  /** Memory rows checked. */
  checked: number;
  /** Rows whose blob is gone: content lost (recall still shows the summary; context answers 500). */
  missingBlob: string[];
  /** Rows whose blob does not hash to the row's `contentHash`: altered content, never served. */
  hashMismatch: string[];
  /** Rows without a vector in the index (recall cannot find them). */
  missingVector: string[];
  /** Vectors rebuilt from the blob (re-embedded) with `repair`. */
  repairedVectors: number;
  /** Agents whose storage quota counters differ from their rows (drift after a rolling upgrade). */
  usageDrift: MemoryUsageDrift[];
  /** Of those, counters recomputed from the rows with `repair`. */
  repairedUsage: number;
}

/** The pieces {@link checkMemories} works on: the service's own adapters, opened by the caller. */
export interface MemoryCheckStores {
  prisma: MemoryPrismaClient;
  blobs: BlobStore;
  index: VectorIndex;
  embedder: Embedder;
}

/**
 * Checks every memory: row -> blob exists and hashes to `contentHash` -> vector present in the index
 * (probed with `scoreDense`, which answers only for ids the index holds). With `repair`, a missing vector
 * whose blob is intact is rebuilt from the content (`embedDocument` + `encodeKeywords`, as remember
 * writes it) when the row's embedder is the configured one (otherwise the re-embedding job at start-up
 * rewrites it anyway). Lost or altered blobs cannot be repaired here: they are reported. Linear in the
 * number of memories and their bytes; reads in id order, {@link CHECK_BATCH} rows at a time. The agents'
 * storage quota counters are compared with the rows and, with `repair`, recomputed from them.
 */
export async function checkMemories(stores: MemoryCheckStores, options: { repair: boolean; logger?: Logger }): Promise<MemoryCheckReport> {
  const { prisma, blobs, index, embedder } = stores;
  const repository = new PrismaMemoryRepository(prisma);
  const report: MemoryCheckReport = { checked: 0, missingBlob: [], hashMismatch: [], missingVector: [], repairedVectors: 0, usageDrift: [], repairedUsage: 0 };
  const probe = new Float32Array(embedder.dimension);
  probe[0] = 1;
  let cursor: string | undefined;
  for (;;) {
    const rows = await repository.listAfter(cursor, CHECK_BATCH);
    if (rows.length === 0) break;
    cursor = rows[rows.length - 1].id;
    report.checked += rows.length;
    const byRecord = new Map<string, string[]>();
    for (const row of rows) byRecord.set(row.recordId, [...(byRecord.get(row.recordId) ?? []), row.id]);
    const present = new Set<string>();
    for (const [recordId, ids] of byRecord) for (const id of (await index.scoreDense(probe, recordId, ids)).keys()) present.add(id);
    for (const row of rows) {
      const bytes = await blobs.get(row.blobKey);
      const damaged = bytes === null ? 'missing' : verifyBlob(row.blobKey, bytes, row.contentHash) ? 'mismatch' : null;
      if (damaged === 'missing') report.missingBlob.push(row.id);
      if (damaged === 'mismatch') report.hashMismatch.push(row.id);
      if (damaged) options.logger?.error({ memoryId: row.id, recordId: row.recordId, blobKey: row.blobKey, damage: damaged }, 'Memory blob lost or altered');
      if (present.has(row.id)) continue;
      report.missingVector.push(row.id);
      if (options.repair && !damaged && row.embedderId === embedder.id) {
        const content = bytes!.toString('utf8');
        const dense = await embedDocument(embedder, content, { scope: row.recordId });
        await index.upsert([{ id: row.id, tenant: row.recordId, dense, sparse: encodeKeywords(content), payload: { type: row.type as MemoryType } }]);
        report.repairedVectors++;
      }
    }
  }
  report.usageDrift = await checkMemoryUsage(prisma, options);
  if (report.usageDrift.length > 0) options.logger?.warn({ agents: report.usageDrift.length, repaired: options.repair }, 'Memory storage quota counters differ from the rows');
  if (options.repair) report.repairedUsage = report.usageDrift.length;
  return report;
}

/** One record whose memory rows and index points disagree in number. */
export interface IndexDrift {
  recordId: string;
  rows: number;
  points: number;
}

/**
 * Compares, per record, the number of memory rows with the number of points in the vector index (one
 * `count` per record). More rows than points means memories recall cannot find (a lost or damaged index);
 * more points than rows is normal for a short while (a write between its vector and its row, a purge in
 * progress) and persists only after a crash (invisible to recall: rows are the source of truth). Logs
 * each drift (warn) and a summary naming `npm run data:check`. Returns the drifts.
 */
export async function compareIndexWithDatabase(repository: Pick<MemoryRepository, 'countByRecord'>, index: VectorIndex, logger: Logger): Promise<IndexDrift[]> {
  const groups = await repository.countByRecord();
  const drifts: IndexDrift[] = [];
  for (const group of groups) {
    const points = await index.count(group.recordId);
    if (points < group.rows) {
      const drift = { recordId: group.recordId, rows: group.rows, points };
      drifts.push(drift);
      logger.warn(drift, 'Vector index is missing memories of this record: recall cannot find them');
    }
  }
  if (drifts.length > 0) {
    logger.error({ records: drifts.length }, 'Vector index and database disagree; run `npm run data:check -- --repair` (standalone) to rebuild the missing vectors');
  }
  return drifts;
}

/** The configured embedder (as `MemoryModule` builds it). */
export function createEmbedder(config: EmbedderConfig): Embedder {
  return config.kind === 'use-lite'
    ? new UseLiteEmbedder()
    : new OpenAiCompatibleEmbedder({ baseUrl: config.baseUrl, model: config.model, apiKey: config.apiKey, dimension: config.dimension, timeoutMs: config.timeoutMs });
}

/** The vector index {@link openMemoryCheckStores} checks: an embedded index's directory (its process stopped) or Qdrant. */
export type CheckedIndexConfig = { kind: 'embedded'; directory: string } | { kind: 'qdrant'; url: string; apiKey?: string; collectionPrefix?: string };

/**
 * Opens the memory service's stores for {@link checkMemories}, outside the running service: the vector
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
      prisma,
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
