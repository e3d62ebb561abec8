import { Inject, Injectable } from '@nestjs/common';
import { expiredIdempotencyKeysWhere } from '@agent-memory/platform';
import { MEMORY_PRISMA, type MemoryPrismaClient } from './prisma';

/** Queries of the memory service's background upkeep: the purge sweep and the idempotency-key clean-up. */
@Injectable()
export class MemoryMaintenanceRepository {
  constructor(@Inject(MEMORY_PRISMA) private readonly prisma: MemoryPrismaClient) {}

  /** Ids of purge tasks created before `before`, oldest first (at most `limit`). */
  async purgeTaskIdsCreatedBefore(before: Date, limit = 1_000): Promise<string[]> {
    const rows = await this.prisma.memoryPurgeTask.findMany({ where: { createdAt: { lt: before } }, orderBy: { createdAt: 'asc' }, take: limit, select: { id: true } });
    return rows.map((r) => r.id);
  }

  /** Deletes expired idempotency keys (see `IDEMPOTENCY_CLEANUP`, libs/platform) in one statement; returns how many. */
  async deleteExpiredIdempotencyKeys(now = Date.now()): Promise<number> {
    const { count } = await this.prisma.memoryIdempotencyKey.deleteMany({ where: expiredIdempotencyKeysWhere(now) });
    return count;
  }
}
