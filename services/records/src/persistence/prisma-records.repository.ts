import { Inject, Injectable } from '@nestjs/common';
import { runInTransaction } from '@agent-memory/platform';
import type { RecordDto } from '@agent-memory/shared';
import type { Prisma, Record as RecordRow } from './generated/client';
import { RECORDS_PRISMA, type RecordsPrismaClient } from './prisma';
import { type NewRecord, type OutboxEvent, type RecordChanges, RecordsRepository } from './records.repository';

/** The records store on PostgreSQL through Prisma: the only code of the records service that touches Prisma. */
@Injectable()
export class PrismaRecordsRepository extends RecordsRepository {
  constructor(@Inject(RECORDS_PRISMA) private readonly db: RecordsPrismaClient | Prisma.TransactionClient) {
    super();
  }

  transaction<T>(work: (tx: RecordsRepository) => Promise<T>): Promise<T> {
    return runInTransaction(this.db, this, (tx) => new PrismaRecordsRepository(tx), work);
  }

  async lockHierarchy(agentId: string): Promise<void> {
    await this.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`records\nhierarchy\n${agentId}`}::text, 0))`;
  }

  async find(recordId: string): Promise<{ record: RecordDto; agentId: string } | null> {
    const row = await this.db.record.findUnique({ where: { id: recordId } });
    return row ? { record: toDto(row), agentId: row.agentId } : null;
  }

  async parentOf(recordId: string): Promise<string | null | undefined> {
    const row = await this.db.record.findUnique({ where: { id: recordId }, select: { parentRecordId: true } });
    return row ? row.parentRecordId : undefined;
  }

  async create(record: NewRecord): Promise<RecordDto> {
    return toDto(await this.db.record.create({ data: record }));
  }

  async update(recordId: string, changes: RecordChanges): Promise<RecordDto> {
    return toDto(await this.db.record.update({ where: { id: recordId }, data: changes }));
  }

  async list(agentId: string, limit: number, offset: number): Promise<{ records: RecordDto[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db.record.findMany({ where: { agentId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.db.record.count({ where: { agentId } }),
    ]);
    return { records: rows.map(toDto), total };
  }

  async childrenOf(parentIds: string[]): Promise<string[]> {
    const rows = await this.db.record.findMany({ where: { parentRecordId: { in: parentIds } }, select: { id: true } });
    return rows.map((r) => r.id);
  }

  async delete(recordId: string): Promise<void> {
    await this.db.record.delete({ where: { id: recordId } });
  }

  async addOutboxEvent(event: OutboxEvent): Promise<void> {
    await this.db.outboxEvent.create({ data: { id: event.id, subject: event.subject, payload: event.payload as Prisma.InputJsonValue } });
  }

  async pendingOutboxEvents(limit: number): Promise<OutboxEvent[]> {
    const rows = await this.db.outboxEvent.findMany({ where: { publishedAt: null }, orderBy: { createdAt: 'asc' }, take: limit });
    return rows.map((r) => ({ id: r.id, subject: r.subject, payload: r.payload }));
  }

  async recordOutboxAttempt(eventId: string, publishedAt?: Date): Promise<void> {
    await this.db.outboxEvent.update({ where: { id: eventId }, data: { ...(publishedAt ? { publishedAt } : {}), attempts: { increment: 1 } } });
  }

  async deletePublishedOutboxEvents(before: Date): Promise<number> {
    const { count } = await this.db.outboxEvent.deleteMany({ where: { publishedAt: { lt: before } } });
    return count;
  }
}

function toDto(row: RecordRow): RecordDto {
  return {
    id: row.id,
    name: row.name,
    tags: row.tags,
    category: row.category,
    parentRecordId: row.parentRecordId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
