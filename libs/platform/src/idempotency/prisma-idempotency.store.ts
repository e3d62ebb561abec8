import type { IdempotencyEntry, IdempotencyStore } from './idempotency';
import { expiredIdempotencyKeysWhere } from './idempotency-cleanup';

/** A row of a service's idempotency-key table (`<schema>.idempotency_keys`, primary key record id + key). */
export interface IdempotencyKeyRow {
  recordId: string;
  key: string;
  requestHash: string;
  status: string;
  response: unknown;
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * The Prisma model delegate of an idempotency-key table (`prisma.memoryIdempotencyKey`,
 * `prisma.fileIdempotencyKey`): the few calls {@link PrismaIdempotencyStore} makes, typed loosely enough
 * for any service's generated client.
 */
export interface IdempotencyKeyDelegate {
  createMany(args: { data: Array<Omit<IdempotencyKeyRow, 'response'>>; skipDuplicates: boolean }): PromiseLike<{ count: number }>;
  findUnique(args: { where: { recordId_key: { recordId: string; key: string } } }): PromiseLike<IdempotencyKeyRow | null>;
  updateMany(args: { where: { recordId: string; key: string; createdAt: Date; status: string }; data: { requestHash: string; status: string; response: never; createdAt: Date; expiresAt: Date | null } }): PromiseLike<{ count: number }>;
  deleteMany(args: { where: { recordId: string; key: string; status: string; createdAt: Date } | ReturnType<typeof expiredIdempotencyKeysWhere> }): PromiseLike<{ count: number }>;
}

/**
 * {@link IdempotencyStore} over a service's own idempotency-key table through its Prisma Client (memory
 * and files each own one; the scope is the record id). `dbNull` is that client's `Prisma.DbNull` (what
 * clears the JSON `response` column). Also deletes expired keys ({@link deleteExpired}).
 */
export class PrismaIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly keys: IdempotencyKeyDelegate,
    private readonly dbNull: unknown,
  ) {}

  async claim(recordId: string, key: string, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<IdempotencyEntry | null> {
    const { count } = await this.keys.createMany({ data: [{ recordId, key, requestHash, status: 'pending', createdAt: claimedAt, expiresAt }], skipDuplicates: true });
    if (count === 1) return null;
    const entry = await this.find(recordId, key);
    return entry ?? this.claim(recordId, key, requestHash, claimedAt, expiresAt);
  }

  async takeOver(recordId: string, key: string, seen: IdempotencyEntry, requestHash: string, claimedAt: Date, expiresAt: Date | null): Promise<boolean> {
    const { count } = await this.keys.updateMany({
      where: { recordId, key, createdAt: seen.createdAt, status: seen.status },
      data: { requestHash, status: 'pending', response: this.dbNull as never, createdAt: claimedAt, expiresAt },
    });
    return count === 1;
  }

  async release(recordId: string, key: string, claimedAt: Date): Promise<void> {
    await this.keys.deleteMany({ where: { recordId, key, status: 'pending', createdAt: claimedAt } });
  }

  /** The entry of `key`, or null (what a request whose claim was taken over answers from). */
  async find(recordId: string, key: string): Promise<IdempotencyEntry | null> {
    const row = await this.keys.findUnique({ where: { recordId_key: { recordId, key } } });
    return row && { requestHash: row.requestHash, status: row.status as IdempotencyEntry['status'], response: row.response, createdAt: row.createdAt, expiresAt: row.expiresAt };
  }

  /** Deletes expired keys (`IDEMPOTENCY_CLEANUP`) in one statement; returns how many. */
  async deleteExpired(now = Date.now()): Promise<number> {
    const { count } = await this.keys.deleteMany({ where: expiredIdempotencyKeysWhere(now) });
    return count;
  }
}

/** What a repository port exposes of its idempotency-key table: the {@link IdempotencyStore} calls, `find` and `deleteExpired`. */
export type IdempotencyKeys = Pick<PrismaIdempotencyStore, 'claim' | 'takeOver' | 'release' | 'find' | 'deleteExpired'>;
