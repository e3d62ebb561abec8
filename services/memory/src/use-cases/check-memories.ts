import type { Logger } from '@nestjs/common';
import { type BlobStore, verifyBlob } from '@agent-memory/platform';
import type { MemoryType } from '@agent-memory/shared';
import type { Embedder } from '../embedding/embedder.port';
import type { MemoryUsageDrift } from '../persistence/memory-usage-check';
import type { MemoryRepository } from '../persistence/memory.repository';
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

/**
 * The pieces {@link checkMemories} works on: the service's ports, their adapters opened by the caller
 * (`openMemoryCheckStores` in memory-check.stores.ts).
 */
export interface MemoryCheckStores {
  repository: Pick<MemoryRepository, 'listAfter' | 'checkUsage'>;
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
  const { repository, blobs, index, embedder } = stores;
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
  report.usageDrift = await repository.checkUsage(options);
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
 * progress) and persists only after a crash or a failed clean-up of a rolled-back write (invisible to
 * recall: rows are the source of truth). Logs
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
