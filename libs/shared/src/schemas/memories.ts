import { z } from 'zod';
import { LIMITS } from '../limits';
import {
  AgentIdSchema,
  CommitIdSchema,
  IdempotencyKeySchema,
  MemoryIdSchema,
  MemoryTypeSchema,
  MEMORY_TYPES,
  queryInt,
  RecordIdSchema,
  StoragePathSchema,
  TimestampSchema,
  utf8Bytes,
  withoutNul,
} from './common';
import { ListCursorSchema } from './list-cursor';

/** Memory content: 1 byte to 50 KB of UTF-8 (docs/api.md, "Sizes"). */
export const MemoryContentSchema = withoutNul(z.string())
  .refine((s) => utf8Bytes(s) >= LIMITS.memoryContentBytes.min, { message: 'must not be empty' })
  .refine((s) => utf8Bytes(s) <= LIMITS.memoryContentBytes.max, {
    message: `must be at most ${LIMITS.memoryContentBytes.max} bytes (50KB) of UTF-8`,
  })
  // The byte limit is code, so it is restated for the OpenAPI document (maxLength: no string of that many bytes has more characters).
  .meta({ minLength: 1, maxLength: LIMITS.memoryContentBytes.max, description: `Text, ${LIMITS.memoryContentBytes.min} to ${LIMITS.memoryContentBytes.max} bytes (50 KB) of UTF-8, no NUL.` });

/** POST /api/v1/records/{id}/remember body (docs/api.md, "Memories"). */
export const RememberBodySchema = z.strictObject({
  content: MemoryContentSchema,
  type: MemoryTypeSchema.optional(),
  path: StoragePathSchema.optional(),
  idempotency_key: IdempotencyKeySchema.optional(),
});
export type RememberBody = z.infer<typeof RememberBodySchema>;

export const RememberResponseSchema = z.object({
  id: MemoryIdSchema,
  path: z.string(),
  type: MemoryTypeSchema,
  summary: z.string(),
});
export type RememberResponse = z.infer<typeof RememberResponseSchema>;

/** POST /api/v1/records/{id}/recall body (docs/api.md, "Memories"). */
export const RecallBodySchema = z.strictObject({
  query: z.string().min(LIMITS.recallQuery.min).max(LIMITS.recallQuery.max),
  limit: z.number().int().min(LIMITS.recallLimit.min).max(LIMITS.recallLimit.max).default(LIMITS.recallLimit.default),
  types: z.array(MemoryTypeSchema).min(1).max(MEMORY_TYPES.length).optional(),
});
export type RecallBody = z.infer<typeof RecallBodySchema>;

export const RecalledMemorySchema = z.object({
  id: MemoryIdSchema,
  path: z.string(),
  type: MemoryTypeSchema,
  summary: z.string(),
  similarity: z.number(),
});
export type RecalledMemory = z.infer<typeof RecalledMemorySchema>;
export const RecallResponseSchema = z.object({ memories: z.array(RecalledMemorySchema), count: z.number().int() });
export type RecallResponse = z.infer<typeof RecallResponseSchema>;

/** Forget target, in the JSON body or the query string (docs/api.md, "Memories"). */
export const ForgetTargetSchema = z.strictObject({
  path: StoragePathSchema.optional(),
  id: MemoryIdSchema.optional(),
});
export type ForgetTarget = z.infer<typeof ForgetTargetSchema>;
export const ForgetResponseSchema = z.object({ deleted: z.boolean(), path: z.string() });
export type ForgetResponse = z.infer<typeof ForgetResponseSchema>;

/**
 * Picks the forget target from body and query: exactly one of `path` or `id`, given in one place only
 * (docs/api.md, "Memories"). Returns the target or a message for a VALIDATION_ERROR.
 */
export function resolveForgetTarget(
  body: ForgetTarget | undefined,
  query: ForgetTarget,
): { ok: true; target: { path: string } | { id: string } } | { ok: false; message: string } {
  const given = [
    ...(body?.path !== undefined ? [{ path: body.path }] : []),
    ...(body?.id !== undefined ? [{ id: body.id }] : []),
    ...(query.path !== undefined ? [{ path: query.path }] : []),
    ...(query.id !== undefined ? [{ id: query.id }] : []),
  ];
  if (given.length !== 1) {
    return { ok: false, message: 'exactly one of "path" or "id" must be given, in the JSON body or in the query string, not both' };
  }
  return { ok: true, target: given[0] as { path: string } | { id: string } };
}

/** GET /api/v1/records/{id}/context query (docs/api.md, "Memories": limit per type 1–200, default 50). */
export const ContextQuerySchema = z.strictObject({
  limit: queryInt(1, LIMITS.contextPerType.max).default(LIMITS.contextPerType.default),
});

export const ContextItemSchema = z.object({
  id: MemoryIdSchema,
  path: z.string(),
  type: MemoryTypeSchema,
  summary: z.string(),
  content: z.string(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type ContextItem = z.infer<typeof ContextItemSchema>;
export const ContextResponseSchema = z.object({
  identity: z.array(ContextItemSchema),
  fact: z.array(ContextItemSchema),
  relationship: z.array(ContextItemSchema),
  episode: z.array(ContextItemSchema),
  skill: z.array(ContextItemSchema),
});
export type ContextResponse = z.infer<typeof ContextResponseSchema>;

/**
 * GET /api/v1/records/{id}/memories query (docs/api.md, "List memories"): a keyset page in path order.
 * `cursor` is the previous page's `nextCursor` (strictly checked, see ListCursorSchema); `type` keeps one type.
 */
export const ListMemoriesQuerySchema = z.strictObject({
  limit: queryInt(1, LIMITS.listMemories.max).default(LIMITS.listMemories.default),
  cursor: ListCursorSchema.optional(),
  type: MemoryTypeSchema.optional(),
});
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuerySchema>;
/** One page of memories, items as in context; `nextCursor` continues the listing, null after the last page. */
export const ListMemoriesResponseSchema = z.object({
  memories: z.array(ContextItemSchema),
  nextCursor: z.string().nullable(),
});
export type ListMemoriesResponse = z.infer<typeof ListMemoriesResponseSchema>;

// --- bus messages (memory.v1.*) ---
const Scoped = { agentId: AgentIdSchema, recordId: RecordIdSchema };
export const MemoryRememberMessageSchema = z.object({ ...Scoped, body: RememberBodySchema });
/**
 * Reply of memory.v1.remember: `replayed` marks an idempotent replay; `commitId` (with an idempotency key)
 * names the committed write, the same for its original and every replay, so the gateway charges it once.
 */
export const MemoryRememberReplySchema = z.object({ result: RememberResponseSchema, replayed: z.boolean(), commitId: CommitIdSchema.optional() });
export const MemoryRecallMessageSchema = z.object({ ...Scoped, body: RecallBodySchema });
export const MemoryForgetMessageSchema = z.object({
  ...Scoped,
  target: z.union([z.object({ path: z.string() }), z.object({ id: MemoryIdSchema })]),
});
export const MemoryContextMessageSchema = z.object({ ...Scoped, limit: z.number().int().min(1).max(LIMITS.contextPerType.max) });
/** `memory.v1.list`: the page after path `after` (absent: from the start), at most `limit`, of `type` if given. */
export const MemoryListMessageSchema = z.object({
  ...Scoped,
  limit: z.number().int().min(1).max(LIMITS.listMemories.max),
  after: z.string().optional(),
  type: MemoryTypeSchema.optional(),
});
