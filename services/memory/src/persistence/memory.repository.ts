import { Inject, Injectable } from '@nestjs/common';
import { type MemoryType, newId } from '@agent-memory/shared';
import type { Memory } from './generated/client';
import { MEMORY_PRISMA, type MemoryPrismaClient } from './prisma';

export type MemoryRow = Memory;

/** What remember writes in one transaction: the memory row, its write log entry and the idempotency result. */
export interface RememberWrite {
  id: string;
  recordId: string;
  agentId: string;
  path: string;
  type: MemoryType;
  summary: string;
  contentHash: string;
  blobKey: string;
  sizeBytes: number;
  embedderId: string;
  idempotencyKey?: string;
  response: unknown;
}

/** A purge still to run against the vector index and blob store. */
export interface PurgeTask {
  id: string;
  recordId: string;
  memoryId: string | null;
  blobKeys: string[];
}

/**
 * Repository of the memory service's tables (memories, write log, idempotency keys, purge tasks).
 * Every multi-row change is one transaction, so the metadata never shows a half-done write or forget.
 */
@Injectable()
export class MemoryRepository {
  constructor(@Inject(MEMORY_PRISMA) private readonly prisma: MemoryPrismaClient) {}

  findByPath(recordId: string, path: string): Promise<MemoryRow | null> {
    return this.prisma.memory.findUnique({ where: { recordId_path: { recordId, path } } });
  }

  async findById(recordId: string, id: string): Promise<MemoryRow | null> {
    const row = await this.prisma.memory.findUnique({ where: { id } });
    return row && row.recordId === recordId ? row : null;
  }

  /** Rows of the given ids within the record (absent or foreign ids are left out). */
  findMany(recordId: string, ids: readonly string[]): Promise<MemoryRow[]> {
    return this.prisma.memory.findMany({ where: { recordId, id: { in: [...ids] } } });
  }

  /** Newest first, at most `perType` of each type. */
  async listForContext(recordId: string, types: readonly MemoryType[], perType: number): Promise<MemoryRow[]> {
    const groups = await Promise.all(
      types.map((type) => this.prisma.memory.findMany({ where: { recordId, type }, orderBy: [{ updatedAt: 'desc' }, { id: 'desc' }], take: perType })),
    );
    return groups.flat();
  }

  /** Inserts or replaces the memory at (record, path), logs the write and completes the idempotency key. */
  async saveRemember(w: RememberWrite): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const now = new Date();
      await tx.memory.upsert({
        where: { recordId_path: { recordId: w.recordId, path: w.path } },
        create: {
          id: w.id,
          recordId: w.recordId,
          agentId: w.agentId,
          path: w.path,
          type: w.type,
          summary: w.summary,
          contentHash: w.contentHash,
          blobKey: w.blobKey,
          sizeBytes: w.sizeBytes,
          embedderId: w.embedderId,
        },
        update: { type: w.type, summary: w.summary, contentHash: w.contentHash, blobKey: w.blobKey, sizeBytes: w.sizeBytes, embedderId: w.embedderId, updatedAt: now },
      });
      await tx.memoryWriteLog.create({
        data: { recordId: w.recordId, memoryId: w.id, op: 'remember', path: w.path, contentHash: w.contentHash, blobKey: w.blobKey, idempotencyKey: w.idempotencyKey ?? null },
      });
      if (w.idempotencyKey) {
        await tx.memoryIdempotencyKey.update({
          where: { recordId_key: { recordId: w.recordId, key: w.idempotencyKey } },
          data: { status: 'completed', response: w.response as object },
        });
      }
    });
  }

  /**
   * Forget, metadata side: deletes the memory row, its write log entries and the idempotency results
   * that name it, logs the forget (path only, no content), and records a durable purge task holding every
   * blob key of every version. Returns the task, or null when the memory is already gone.
   */
  async forget(memory: MemoryRow): Promise<PurgeTask | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.memory.deleteMany({ where: { id: memory.id } });
      if (count === 0) return null;
      const versions = await tx.memoryWriteLog.findMany({ where: { memoryId: memory.id }, select: { blobKey: true } });
      const blobKeys = [...new Set([memory.blobKey, ...versions.map((v) => v.blobKey).filter((k): k is string => k !== null)])];
      await tx.memoryWriteLog.deleteMany({ where: { memoryId: memory.id } });
      await tx.memoryIdempotencyKey.deleteMany({ where: { recordId: memory.recordId, response: { path: ['id'], equals: memory.id } } });
      await tx.memoryWriteLog.create({ data: { recordId: memory.recordId, memoryId: memory.id, op: 'forget', path: memory.path } });
      const task = { id: newId('purgeTask'), recordId: memory.recordId, memoryId: memory.id, blobKeys };
      await tx.memoryPurgeTask.create({ data: task });
      return task;
    });
  }

  /** Record deletion, metadata side: every row of the record goes, with one purge task for its stores. */
  async purgeRecordMetadata(recordId: string, taskId: string): Promise<PurgeTask> {
    return this.prisma.$transaction(async (tx) => {
      await tx.memory.deleteMany({ where: { recordId } });
      await tx.memoryWriteLog.deleteMany({ where: { recordId } });
      await tx.memoryIdempotencyKey.deleteMany({ where: { recordId } });
      await tx.memoryPurgeTask.createMany({ data: [{ id: taskId, recordId, memoryId: null, blobKeys: [] }], skipDuplicates: true });
      return { id: taskId, recordId, memoryId: null, blobKeys: [] };
    });
  }

  pendingPurges(): Promise<PurgeTask[]> {
    return this.prisma.memoryPurgeTask.findMany({ orderBy: { createdAt: 'asc' } });
  }

  findPurge(id: string): Promise<PurgeTask | null> {
    return this.prisma.memoryPurgeTask.findUnique({ where: { id } });
  }

  async completePurge(id: string): Promise<void> {
    await this.prisma.memoryPurgeTask.deleteMany({ where: { id } });
  }

  releaseIdempotencyKey(recordId: string, key: string): Promise<unknown> {
    return this.prisma.memoryIdempotencyKey.deleteMany({ where: { recordId, key, status: 'pending' } });
  }
}
