import { z } from 'zod';
import { DEFAULT_RECORD_CATEGORY, LIMITS } from '../limits';
import { AgentIdSchema, CategorySchema, plainText, queryInt, RecordIdSchema, TagsSchema, TimestampSchema } from './common';

const RecordNameSchema = plainText(LIMITS.recordName.min, LIMITS.recordName.max);

/** POST /api/v1/records body (docs/api.md, "Records"). */
export const CreateRecordBodySchema = z.strictObject({
  name: RecordNameSchema,
  tags: TagsSchema.default([]),
  category: CategorySchema.default(DEFAULT_RECORD_CATEGORY),
  parentRecordId: RecordIdSchema.optional(),
});
export type CreateRecordBody = z.infer<typeof CreateRecordBodySchema>;

/** PATCH /api/v1/records/{id} body: any of name, tags, category, parentRecordId (null detaches); at least one. */
export const UpdateRecordBodySchema = z
  .strictObject({
    name: RecordNameSchema.optional(),
    tags: TagsSchema.optional(),
    category: CategorySchema.optional(),
    parentRecordId: RecordIdSchema.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'must name at least one of name, tags, category, parentRecordId' });
export type UpdateRecordBody = z.infer<typeof UpdateRecordBodySchema>;

/** GET /api/v1/records query (docs/api.md, "Pagination": limit 1–100 default 20, offset ≥ 0 default 0). */
export const ListRecordsQuerySchema = z.strictObject({
  limit: queryInt(1, LIMITS.listRecords.maxLimit).default(LIMITS.listRecords.defaultLimit),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).default(0),
});
export type ListRecordsQuery = z.infer<typeof ListRecordsQuerySchema>;

/** DELETE /api/v1/records/{id} query: `cascade=true` also deletes child records. */
export const DeleteRecordQuerySchema = z.strictObject({
  cascade: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});

/** A record as the API returns it. */
export const RecordSchema = z.object({
  id: RecordIdSchema,
  name: z.string(),
  tags: z.array(z.string()),
  category: z.string(),
  parentRecordId: RecordIdSchema.nullable(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type RecordDto = z.infer<typeof RecordSchema>;

export const RecordListSchema = z.object({
  records: z.array(RecordSchema),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type RecordList = z.infer<typeof RecordListSchema>;

export const DeleteRecordResponseSchema = z.object({ deleted: z.literal(true), id: RecordIdSchema, deletedRecordIds: z.array(RecordIdSchema) });
export type DeleteRecordResponse = z.infer<typeof DeleteRecordResponseSchema>;

// --- bus messages (records.v1.*) ---
const Owned = { agentId: AgentIdSchema };
export const RecordsCreateMessageSchema = z.object({ ...Owned, body: CreateRecordBodySchema, recordId: RecordIdSchema.optional() });
export const RecordsListMessageSchema = z.object({ ...Owned, query: z.object({ limit: z.number().int(), offset: z.number().int() }) });
export const RecordsGetMessageSchema = z.object({ ...Owned, recordId: RecordIdSchema });
export const RecordsUpdateMessageSchema = z.object({ ...Owned, recordId: RecordIdSchema, body: UpdateRecordBodySchema });
export const RecordsDeleteMessageSchema = z.object({ ...Owned, recordId: RecordIdSchema, cascade: z.boolean() });
/** Ownership check used by the gateway before any record-scoped call; replies with the record or NOT_FOUND. */
export const RecordsResolveAccessMessageSchema = z.object({ ...Owned, recordId: RecordIdSchema });
export const RecordsResolveOwnerMessageSchema = z.object({ recordId: RecordIdSchema });
export const RecordsResolveOwnerReplySchema = z.object({ recordId: RecordIdSchema, agentId: AgentIdSchema });

/** Event `records.v1.record-deleted`: every memory and file of these records must be purged. */
export const RecordDeletedEventSchema = z.object({
  eventId: z.string(),
  agentId: AgentIdSchema,
  recordIds: z.array(RecordIdSchema).min(1),
  deletedAt: TimestampSchema,
});
export type RecordDeletedEvent = z.infer<typeof RecordDeletedEventSchema>;
