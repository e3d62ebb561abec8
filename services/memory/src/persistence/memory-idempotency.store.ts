import type { IdempotencyEntry, IdempotencyStore } from '@agent-memory/platform';
import { Prisma } from './generated/client';
import type { MemoryPrismaClient } from './prisma';

/** {@link IdempotencyStore} over `memory.idempotency_keys`; the scope is the record id. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  constructor(private readonly prisma: MemoryPrismaClient) {}

  async claim(recordId: string, key: string, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<IdempotencyEntry | null> {
    const { count } = await this.prisma.memoryIdempotencyKey.createMany({ data: [{ recordId, key, requestHash, status: 'pending', createdAt: claimedAt, expiresAt }], skipDuplicates: true });
    if (count === 1) return null;
    const row = await this.prisma.memoryIdempotencyKey.findUnique({ where: { recordId_key: { recordId, key } } });
    if (!row) return this.claim(recordId, key, requestHash, claimedAt, expiresAt);
    return { requestHash: row.requestHash, status: row.status as IdempotencyEntry['status'], response: row.response, createdAt: row.createdAt, expiresAt: row.expiresAt };
  }

  async takeOver(recordId: string, key: string, seen: IdempotencyEntry, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<boolean> {
    const { count } = await this.prisma.memoryIdempotencyKey.updateMany({
      where: { recordId, key, createdAt: seen.createdAt, status: seen.status },
      data: { requestHash, status: 'pending', response: Prisma.DbNull, createdAt: claimedAt, expiresAt },
    });
    return count === 1;
  }

  async release(recordId: string, key: string, claimedAt: Date): Promise<void> {
    await this.prisma.memoryIdempotencyKey.deleteMany({ where: { recordId, key, status: 'pending', createdAt: claimedAt } });
  }

  /** The entry of `key`, or null (what a request whose claim was taken over answers from). */
  async find(recordId: string, key: string): Promise<IdempotencyEntry | null> {
    const row = await this.prisma.memoryIdempotencyKey.findUnique({ where: { recordId_key: { recordId, key } } });
    return row && { requestHash: row.requestHash, status: row.status as IdempotencyEntry['status'], response: row.response, createdAt: row.createdAt, expiresAt: row.expiresAt };
  }
}
