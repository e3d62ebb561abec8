import { MemoryContextMessageSchema, MemoryForgetMessageSchema, MemoryListMessageSchema, MemoryRecallMessageSchema, MemoryRememberMessageSchema, RecordDeletedEventSchema } from '@agent-memory/shared';
import { messageClass } from '@agent-memory/platform';

/** `memory.v1.remember`: `{ agentId, recordId, body }` (docs/api.md, "Remember"). */
export class MemoryRememberMessage extends messageClass(MemoryRememberMessageSchema) {}
/** `memory.v1.recall`: `{ agentId, recordId, body }` (docs/api.md, "Recall"). */
export class MemoryRecallMessage extends messageClass(MemoryRecallMessageSchema) {}
/** `memory.v1.forget`: `{ agentId, recordId, target: { path } | { id } }` (docs/api.md, "Forget"). */
export class MemoryForgetMessage extends messageClass(MemoryForgetMessageSchema) {}
/** `memory.v1.context`: `{ agentId, recordId, limit }` (at most `limit` memories per type). */
export class MemoryContextMessage extends messageClass(MemoryContextMessageSchema) {}
/** `memory.v1.list`: `{ agentId, recordId, limit, after?, type? }` (a keyset page in path order; docs/api.md, "List memories"). */
export class MemoryListMessage extends messageClass(MemoryListMessageSchema) {}
/** `records.v1.record-deleted`: `{ eventId, agentId, recordIds, deletedAt }` (docs/architecture.md, "Record deletion"). */
export class RecordDeletedMessage extends messageClass(RecordDeletedEventSchema) {}
