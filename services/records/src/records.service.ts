import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  type CreateRecordBody,
  EVENTS,
  newId,
  NotFoundError,
  type RecordDeletedEvent,
  type RecordDto,
  type RecordList,
  type UpdateRecordBody,
  ValidationError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import type { Record as RecordRow } from './persistence/generated/client';
import { RecordsPrismaClient } from './persistence/prisma';

export const RECORDS_PRISMA = Symbol('RecordsPrisma');

/** Published outbox events are deleted once older than this, ms (1 h: consumers took them long before). */
export const OUTBOX_RETENTION_MS = 60 * 60 * 1000;
/** How often published outbox events are cleaned up, ms. */
export const OUTBOX_CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/** A Prisma transaction client of the records schema. */
type RecordsTx = Parameters<Parameters<RecordsPrismaClient['$transaction']>[0]>[0];

/**
 * Serialises changes to one agent's record hierarchy until the transaction ends (a PostgreSQL advisory
 * lock): a parent check and the write it guards see each other's results, so two concurrent moves
 * (A under B, B under A) cannot both pass the cycle check, and a cascade delete cannot miss a child moved
 * into its subtree meanwhile. Parents are always the same agent's records, so one lock per agent suffices.
 */
async function lockHierarchy(tx: RecordsTx, agentId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`records\nhierarchy\n${agentId}`}::text, 0))`;
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

/**
 * Records: memory containers with a hierarchy (spec, "Records"; DESIGN.md §3–4). Every method is
 * scoped to the owning agent: another agent's record is NOT_FOUND. Deleting records writes a
 * `records.v1.record-deleted` event to the outbox in the same transaction; {@link publishOutbox}
 * delivers it, retrying until every consumer has taken it.
 */
@Injectable()
export class RecordsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RecordsService.name);
  private relayTimer?: NodeJS.Timeout;
  private cleanupTimer?: NodeJS.Timeout;
  private publishing?: Promise<void>;

  constructor(
    @Inject(RECORDS_PRISMA) private readonly prisma: RecordsPrismaClient,
    private readonly bus: BusClient,
  ) {}

  onApplicationBootstrap(): void {
    void this.publishOutbox();
    this.relayTimer = setInterval(() => void this.publishOutbox(), 5_000);
    this.relayTimer.unref();
    this.cleanupTimer = setInterval(() => {
      this.cleanupOutbox().catch((err: unknown) => this.logger.warn({ err }, 'Outbox clean-up failed; will retry'));
    }, OUTBOX_CLEANUP_INTERVAL_MS);
    this.cleanupTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.relayTimer);
    clearInterval(this.cleanupTimer);
    await this.publishing;
  }

  /**
   * Deletes outbox events published more than `retentionMs` ago (default {@link OUTBOX_RETENTION_MS});
   * unpublished ones are kept whatever their age. One DELETE statement, so replicas running it at once
   * are safe. Returns the number of rows deleted.
   */
  async cleanupOutbox(retentionMs = OUTBOX_RETENTION_MS): Promise<number> {
    const { count } = await this.prisma.outboxEvent.deleteMany({ where: { publishedAt: { lt: new Date(Date.now() - retentionMs) } } });
    return count;
  }

  /** Creates a record; `recordId` lets the agents service choose the id of an agent's default record. */
  async create(agentId: string, body: CreateRecordBody, recordId?: string): Promise<RecordDto> {
    const data = { id: recordId ?? newId('record'), agentId, name: body.name, tags: body.tags, category: body.category, parentRecordId: body.parentRecordId ?? null };
    if (!body.parentRecordId) return toDto(await this.prisma.record.create({ data }));
    const row = await this.prisma.$transaction(async (tx) => {
      await lockHierarchy(tx, agentId); // the parent cannot be deleted between the check and the insert
      await this.requireParent(agentId, body.parentRecordId!, tx);
      return tx.record.create({ data });
    });
    return toDto(row);
  }

  /** Newest first; `total` counts all of the agent's records. */
  async list(agentId: string, limit: number, offset: number): Promise<RecordList> {
    const [rows, total] = await Promise.all([
      this.prisma.record.findMany({ where: { agentId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.prisma.record.count({ where: { agentId } }),
    ]);
    return { records: rows.map(toDto), total, limit, offset };
  }

  /** The agent's record; NOT_FOUND when absent or another agent's. */
  async get(agentId: string, recordId: string): Promise<RecordDto> {
    return toDto(await this.requireOwned(agentId, recordId));
  }

  /** Updates name, tags, category or parent; a parent must be the agent's and must not create a cycle. */
  async update(agentId: string, recordId: string, body: UpdateRecordBody): Promise<RecordDto> {
    const data = { name: body.name, tags: body.tags, category: body.category, parentRecordId: body.parentRecordId, updatedAt: new Date() };
    if (!body.parentRecordId) {
      await this.requireOwned(agentId, recordId);
      return toDto(await this.prisma.record.update({ where: { id: recordId }, data }));
    }
    const row = await this.prisma.$transaction(async (tx) => {
      await lockHierarchy(tx, agentId); // the cycle check and the move are one step (see lockHierarchy)
      await this.requireOwned(agentId, recordId, tx);
      await this.requireParent(agentId, body.parentRecordId!, tx);
      await this.refuseCycle(recordId, body.parentRecordId!, tx);
      return tx.record.update({ where: { id: recordId }, data });
    });
    return toDto(row);
  }

  /**
   * Deletes a record (and, with `cascade`, its descendants). A record with children and no cascade is
   * a VALIDATION_ERROR. Memories and files are purged by the consumers of the emitted event, which is
   * published after commit without waiting for it (see {@link publishOutbox}).
   */
  async delete(agentId: string, recordId: string, cascade: boolean): Promise<{ deleted: true; id: string; deletedRecordIds: string[] }> {
    await this.requireOwned(agentId, recordId);
    const ids = await this.prisma.$transaction(async (tx) => {
      await lockHierarchy(tx, agentId); // no child can be moved into the subtree while it is collected
      const order: string[] = [];
      let frontier = [recordId];
      while (frontier.length > 0) {
        order.push(...frontier);
        const children = await tx.record.findMany({ where: { parentRecordId: { in: frontier } }, select: { id: true } });
        if (children.length > 0 && !cascade) {
          throw new ValidationError('The record has child records: delete them first or pass ?cascade=true');
        }
        frontier = children.map((c) => c.id);
      }
      // Children first, so the parent foreign key never blocks.
      for (const id of [...order].reverse()) await tx.record.delete({ where: { id } });
      const event: RecordDeletedEvent = { eventId: newId('event'), agentId, recordIds: order, deletedAt: new Date().toISOString() };
      await tx.outboxEvent.create({ data: { id: event.eventId, subject: EVENTS.recordDeleted, payload: event } });
      return order;
    });
    // The event is committed: publishing is only a trigger (the 5 s relay retries), so a slow bus never fails the delete.
    void this.publishOutbox();
    return { deleted: true, id: recordId, deletedRecordIds: ids };
  }

  /** Owner of a record, for signature-authenticated access (the gateway then checks the wallet). */
  async owner(recordId: string): Promise<{ recordId: string; agentId: string }> {
    const row = await this.prisma.record.findUnique({ where: { id: recordId }, select: { id: true, agentId: true } });
    if (!row) throw new NotFoundError('Record not found');
    return { recordId: row.id, agentId: row.agentId };
  }

  /** Publishes unpublished outbox events in order; a failed event stays for the next run. Never throws. */
  publishOutbox(): Promise<void> {
    this.publishing ??= (async () => {
      try {
        const pending = await this.prisma.outboxEvent.findMany({ where: { publishedAt: null }, orderBy: { createdAt: 'asc' }, take: 100 });
        for (const event of pending) {
          try {
            await this.bus.emit(event.subject, event.payload);
            await this.prisma.outboxEvent.update({ where: { id: event.id }, data: { publishedAt: new Date(), attempts: { increment: 1 } } });
          } catch (err) {
            this.logger.warn({ eventId: event.id, err }, 'Outbox event not delivered yet; will retry');
            await this.prisma.outboxEvent.update({ where: { id: event.id }, data: { attempts: { increment: 1 } } });
          }
        }
      } catch (err) {
        this.logger.error({ err }, 'Outbox relay failed');
      } finally {
        this.publishing = undefined;
      }
    })();
    return this.publishing;
  }

  private async requireOwned(agentId: string, recordId: string, db: RecordsTx = this.prisma): Promise<RecordRow> {
    const row = await db.record.findUnique({ where: { id: recordId } });
    if (!row || row.agentId !== agentId) throw new NotFoundError('Record not found');
    return row;
  }

  private async requireParent(agentId: string, parentId: string, db: RecordsTx = this.prisma): Promise<void> {
    const parent = await db.record.findUnique({ where: { id: parentId }, select: { agentId: true } });
    if (!parent || parent.agentId !== agentId) throw new ValidationError('parentRecordId: no such record of this agent');
  }

  private async refuseCycle(recordId: string, parentId: string, db: RecordsTx): Promise<void> {
    let cursor: string | null = parentId;
    for (let depth = 0; cursor; depth++) {
      if (cursor === recordId) throw new ValidationError('parentRecordId: would make the record its own ancestor');
      if (depth > 10_000) throw new ValidationError('parentRecordId: hierarchy too deep');
      const row: { parentRecordId: string | null } | null = await db.record.findUnique({ where: { id: cursor }, select: { parentRecordId: true } });
      cursor = row?.parentRecordId ?? null;
    }
  }
}
