import { FilesListMessageSchema, FilesRawGetMessageSchema, FilesRawPutMessageSchema, FilesReadMessageSchema, FilesWriteMessageSchema, RecordDeletedEventSchema } from '@agent-memory/shared';
import { messageClass } from '@agent-memory/platform';

/** `files.v1.write`: `{ agentId, recordId, body: { path, content, idempotency_key? } }` (docs/api.md, "Write file"). */
export class FilesWriteMessage extends messageClass(FilesWriteMessageSchema) {}
/** `files.v1.read`: `{ agentId, recordId, path }` (docs/api.md, "Read file"). */
export class FilesReadMessage extends messageClass(FilesReadMessageSchema) {}
/** `files.v1.raw-put`: `{ agentId, recordId, body: { path, content (base64), contentType? } }` (docs/api.md, "Raw blob access"). */
export class FilesRawPutMessage extends messageClass(FilesRawPutMessageSchema) {}
/** `files.v1.raw-get`: `{ agentId, recordId, path }` (docs/api.md, "Raw blob access"). */
export class FilesRawGetMessage extends messageClass(FilesRawGetMessageSchema) {}
/** `files.v1.list`: `{ agentId, recordId, limit, after?, prefix? }` (a keyset page in path order; docs/api.md, "List files"). */
export class FilesListMessage extends messageClass(FilesListMessageSchema) {}
/** `records.v1.record-deleted`: `{ eventId, agentId, recordIds, deletedAt }` (docs/architecture.md, "Record deletion"). */
export class RecordDeletedMessage extends messageClass(RecordDeletedEventSchema) {}
