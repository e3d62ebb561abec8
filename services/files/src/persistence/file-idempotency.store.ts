import type { IdempotencyEntry, IdempotencyStore } from '@agent-memory/platform';
import { Prisma } from './generated/client';
import type { FilesPrismaClient } from './prisma';

/** {@link IdempotencyStore} over `files.idempotency_keys`; the scope is the record id. */
export class FileIdempotencyStore implements IdempotencyStore {
  constructor(private readonly prisma: FilesPrismaClient) {}

  async claim(recordId: string, key: string, requestHash: string): Promise<IdempotencyEntry | null> {
    const { count } = await this.prisma.fileIdempotencyKey.createMany({ data: [{ recordId, key, requestHash, status: 'pending' }], skipDuplicates: true });
    if (count === 1) return null;
    const row = await this.prisma.fileIdempotencyKey.findUnique({ where: { recordId_key: { recordId, key } } });
    if (!row) return this.claim(recordId, key, requestHash);
    return { requestHash: row.requestHash, status: row.status as IdempotencyEntry['status'], response: row.response, createdAt: row.createdAt };
  }

  async takeOver(recordId: string, key: string, seen: IdempotencyEntry, requestHash: string): Promise<boolean> {
    const { count } = await this.prisma.fileIdempotencyKey.updateMany({
      where: { recordId, key, createdAt: seen.createdAt, status: seen.status },
      data: { requestHash, status: 'pending', response: Prisma.DbNull, createdAt: new Date() },
    });
    return count === 1;
  }

  async release(recordId: string, key: string): Promise<void> {
    await this.prisma.fileIdempotencyKey.deleteMany({ where: { recordId, key, status: 'pending' } });
  }
}
