import type { z } from 'zod';
import type {
  RecordsCreateMessageSchema,
  RecordsDeleteMessageSchema,
  RecordsGetMessageSchema,
  RecordsListMessageSchema,
  RecordsResolveOwnerMessageSchema,
  RecordsUpdateMessageSchema,
} from '@agent-memory/shared';

/** Bus messages of the records service (`records.v1.*`, docs/architecture.md "Bus subjects"), as validated. */
export type CreateRecordMessage = z.output<typeof RecordsCreateMessageSchema>;
export type ListRecordsMessage = z.output<typeof RecordsListMessageSchema>;
export type GetRecordMessage = z.output<typeof RecordsGetMessageSchema>;
export type UpdateRecordMessage = z.output<typeof RecordsUpdateMessageSchema>;
export type DeleteRecordMessage = z.output<typeof RecordsDeleteMessageSchema>;
export type ResolveRecordOwnerMessage = z.output<typeof RecordsResolveOwnerMessageSchema>;
