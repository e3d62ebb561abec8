import { z } from 'zod';
import { LIMITS } from '../limits';
import { AgentIdSchema, CommitIdSchema, IdempotencyKeySchema, RecordIdSchema, StoragePathSchema, utf8Bytes } from './common';

/** File content: at most 1 MB of UTF-8 text (docs/api.md, "Files"); empty files are allowed. */
export const FileContentSchema = z.string().refine((s) => utf8Bytes(s) <= LIMITS.fileContentBytes.max, {
  message: `must be at most ${LIMITS.fileContentBytes.max} bytes (1MB) of UTF-8`,
});

/** POST /api/v1/records/{id}/write body (docs/api.md, "Files"). */
export const WriteFileBodySchema = z.strictObject({
  path: StoragePathSchema,
  content: FileContentSchema,
  idempotency_key: IdempotencyKeySchema.optional(),
});
export type WriteFileBody = z.infer<typeof WriteFileBodySchema>;
export const WriteFileResponseSchema = z.object({ path: z.string(), contentHash: z.string() });
export type WriteFileResponse = z.infer<typeof WriteFileResponseSchema>;

/** GET /api/v1/records/{id}/read query. */
export const ReadFileQuerySchema = z.strictObject({ path: StoragePathSchema });
export const ReadFileResponseSchema = z.object({ content: z.string(), path: z.string() });
export type ReadFileResponse = z.infer<typeof ReadFileResponseSchema>;

/** POST /api/v1/records/{id}/raw body (docs/api.md, "Raw blobs (local mode) and wallet signatures"): an opaque blob, base64. */
export const RawPutBodySchema = z.strictObject({
  path: StoragePathSchema,
  content: z.base64('must be base64').refine((b64) => Buffer.from(b64, 'base64').length <= LIMITS.rawContentBytes.max, {
    message: `decoded content must be at most ${LIMITS.rawContentBytes.max} bytes (1MB)`,
  }),
  contentType: z.string().min(1).max(255).regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as application/octet-stream').optional(),
});
export type RawPutBody = z.infer<typeof RawPutBodySchema>;
export const RawPutResponseSchema = z.object({ path: z.string(), size: z.number().int(), contentHash: z.string() });
export const RawGetQuerySchema = z.strictObject({ path: StoragePathSchema });
export const RawGetResponseSchema = z.object({ path: z.string(), content: z.string(), contentType: z.string() });
export type RawGetResponse = z.infer<typeof RawGetResponseSchema>;

// --- bus messages (files.v1.*) ---
const Scoped = { agentId: AgentIdSchema, recordId: RecordIdSchema };
export const FilesWriteMessageSchema = z.object({ ...Scoped, body: WriteFileBodySchema });
/** Reply of files.v1.write: `replayed` and `commitId` as in memory.v1.remember's reply (the write is charged once). */
export const FilesWriteReplySchema = z.object({ result: WriteFileResponseSchema, replayed: z.boolean(), commitId: CommitIdSchema.optional() });
export const FilesReadMessageSchema = z.object({ ...Scoped, path: z.string() });
export const FilesRawPutMessageSchema = z.object({ ...Scoped, body: RawPutBodySchema });
export const FilesRawGetMessageSchema = z.object({ ...Scoped, path: z.string() });
