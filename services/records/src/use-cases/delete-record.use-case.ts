import { Inject, Injectable, Optional } from '@nestjs/common';
import { CACHE_INVALIDATIONS, type CacheInvalidations } from '@agent-memory/platform';
import { type DeleteRecordResponse, EVENTS, newId, type RecordDeletedEvent, ValidationError } from '@agent-memory/shared';
import { RecordsRepository } from '../persistence/records.repository';
import type { DeleteRecordMessage } from '../records.messages';
import { PublishOutboxUseCase } from './publish-outbox.use-case';
import { requireOwnedRecord } from './record-rules';

/**
 * Deletes the agent's record and, with `cascade`, its descendants (docs/architecture.md, "Record
 * deletion"). A record with children and no cascade is a VALIDATION_ERROR. The subtree is collected
 * under the agent's hierarchy lock (no child can be moved into it meanwhile) and deleted children first;
 * a `records.v1.record-deleted` event goes to the outbox in the same transaction. Memories and files are
 * purged by its consumers; it is published after commit without waiting ({@link PublishOutboxUseCase}).
 */
@Injectable()
export class DeleteRecordUseCase {
  constructor(
    private readonly records: RecordsRepository,
    private readonly outbox: PublishOutboxUseCase,
    /** Told of every deleted record after the commit, so no gateway's cached access check outlives it (docs/architecture.md, "Caches of the gateway"). */
    @Optional() @Inject(CACHE_INVALIDATIONS) private readonly invalidations?: CacheInvalidations,
  ) {}

  async execute({ agentId, recordId, cascade }: DeleteRecordMessage): Promise<DeleteRecordResponse> {
    await requireOwnedRecord(this.records, agentId, recordId);
    const ids = await this.records.transaction(async (tx) => {
      await tx.lockHierarchy(agentId);
      const order: string[] = [];
      let frontier = [recordId];
      while (frontier.length > 0) {
        order.push(...frontier);
        const children = await tx.childrenOf(frontier);
        if (children.length > 0 && !cascade) throw new ValidationError('The record has child records: delete them first or pass ?cascade=true');
        frontier = children;
      }
      // Children first, so the parent foreign key never blocks.
      for (const id of [...order].reverse()) await tx.delete(id);
      const event: RecordDeletedEvent = { eventId: newId('event'), agentId, recordIds: order, deletedAt: new Date().toISOString() };
      await tx.addOutboxEvent({ id: event.eventId, subject: EVENTS.recordDeleted, payload: event });
      return order;
    });
    // Before the answer: no gateway serves a cached access check of these records after it.
    const invalidations = this.invalidations;
    if (invalidations) await Promise.all(ids.map(async (id) => void (await invalidations.publish('records', id))));
    // The event is committed: publishing is only a trigger (the relay retries), so a slow bus never fails the delete.
    void this.outbox.execute();
    return { deleted: true, id: recordId, deletedRecordIds: ids };
  }
}
