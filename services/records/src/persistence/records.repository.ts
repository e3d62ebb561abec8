import type { RecordDto } from '@agent-memory/shared';

/** What a new record row holds (the owning agent, its place in the hierarchy, its labels). */
export interface NewRecord {
  id: string;
  agentId: string;
  name: string;
  tags: string[];
  category: string;
  parentRecordId: string | null;
}

/** The fields an update may change; `undefined` leaves a field as it is. */
export interface RecordChanges {
  name?: string;
  tags?: string[];
  category?: string;
  parentRecordId?: string | null;
  updatedAt: Date;
}

/** One event of the transactional outbox (`subject` and `payload` as they go on the bus). */
export interface OutboxEvent {
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * Port of the records store (the `records` schema: records and the outbox). Records come back in their API
 * form ({@link RecordDto}). Adapter: `prisma-records.repository.ts`.
 *
 * A hierarchy change runs in {@link transaction}, whose first step is {@link lockHierarchy}: every change
 * to one agent's hierarchy then runs one after another, so a parent check and the write it guards see each
 * other's results (docs/architecture.md, "Record deletion").
 */
export abstract class RecordsRepository {
  /** Runs `work` in one database transaction, against a repository bound to it; commits when it resolves. */
  abstract transaction<T>(work: (tx: RecordsRepository) => Promise<T>): Promise<T>;
  /**
   * Serialises changes to one agent's record hierarchy until the transaction ends (an advisory lock):
   * two concurrent moves (A under B, B under A) cannot both pass the cycle check, and a cascade delete
   * cannot miss a child moved into its subtree meanwhile. Parents are always the same agent's records,
   * so one lock per agent suffices. Only inside {@link transaction}.
   */
  abstract lockHierarchy(agentId: string): Promise<void>;
  /** The record with this id, whoever owns it, and its owner; null when absent. */
  abstract find(recordId: string): Promise<{ record: RecordDto; agentId: string } | null>;
  /** The parent of a record: undefined when there is no such record, null for a top-level one. */
  abstract parentOf(recordId: string): Promise<string | null | undefined>;
  /** Inserts the record (its parent, if any, checked by the caller). */
  abstract create(record: NewRecord): Promise<RecordDto>;
  /** Applies `changes` to an existing record and returns it as it is now. */
  abstract update(recordId: string, changes: RecordChanges): Promise<RecordDto>;
  /** The agent's records newest first (`limit`/`offset` a page), and how many it has in all. */
  abstract list(agentId: string, limit: number, offset: number): Promise<{ records: RecordDto[]; total: number }>;
  /** Ids of the direct children of any of `parentIds`. */
  abstract childrenOf(parentIds: string[]): Promise<string[]>;
  /** Deletes one record (its children must be gone: the parent foreign key refuses otherwise). */
  abstract delete(recordId: string): Promise<void>;
  /** Adds an event to the outbox (in the caller's transaction, so it commits with the change it tells of). */
  abstract addOutboxEvent(event: OutboxEvent): Promise<void>;
  /** Up to `limit` unpublished outbox events, oldest first. */
  abstract pendingOutboxEvents(limit: number): Promise<OutboxEvent[]>;
  /** Counts one delivery attempt of the event; `publishedAt` marks it delivered. */
  abstract recordOutboxAttempt(eventId: string, publishedAt?: Date): Promise<void>;
  /** Deletes the outbox events published before `before` (unpublished ones whatever their age); returns how many. */
  abstract deletePublishedOutboxEvents(before: Date): Promise<number>;
}
