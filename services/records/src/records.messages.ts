import { messageClass } from '@agent-memory/platform';
import {
  RecordsCreateMessageSchema,
  RecordsDeleteMessageSchema,
  RecordsGetMessageSchema,
  RecordsListMessageSchema,
  RecordsResolveAccessMessageSchema,
  RecordsResolveOwnerMessageSchema,
  RecordsUpdateMessageSchema,
} from '@agent-memory/shared';

// Bus messages of the records service (`records.v1.*`, docs/architecture.md "Bus subjects"); each class
// is its schema's output type and carries the schema the bus edge validates with.
export class CreateRecordMessage extends messageClass(RecordsCreateMessageSchema) {}
export class ListRecordsMessage extends messageClass(RecordsListMessageSchema) {}
export class GetRecordMessage extends messageClass(RecordsGetMessageSchema) {}
/** The gateway's ownership check before any record-scoped call; answered like {@link GetRecordMessage}. */
export class ResolveRecordAccessMessage extends messageClass(RecordsResolveAccessMessageSchema) {}
export class UpdateRecordMessage extends messageClass(RecordsUpdateMessageSchema) {}
export class DeleteRecordMessage extends messageClass(RecordsDeleteMessageSchema) {}
export class ResolveRecordOwnerMessage extends messageClass(RecordsResolveOwnerMessageSchema) {}
