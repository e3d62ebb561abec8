import { z } from 'zod';
import { LIMITS } from '../limits';
import { AgentIdSchema, CommitIdSchema, IdempotencyKeySchema, queryInt, RecordIdSchema, StoragePathSchema, TimestampSchema, utf8Bytes } from './common';
import { ListCursorSchema, PathPrefixSchema } from './list-cursor';

/** File content: at most 1 MB of UTF-8 text (docs/api.md, "Files"); empty files are allowed. */
export const FileContentSchema = z
  .string()
  .refine((s) => utf8Bytes(s) <= LIMITS.fileContentBytes.max, {
    message: `must be at most ${LIMITS.fileContentBytes.max} bytes (1MB) of UTF-8`,
  })
  // The byte limit is code, so it is restated for the OpenAPI document (maxLength: no string of that many bytes has more characters).
  .meta({ maxLength: LIMITS.fileContentBytes.max, description: `Text, at most ${LIMITS.fileContentBytes.max} bytes (1 MB) of UTF-8; empty files are allowed.` });

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

/**
 * GET /api/v1/records/{id}/files query (docs/api.md, "List files"): a keyset page of file metadata in path
 * order. `cursor` is the previous page's `nextCursor`; `prefix` keeps the paths that start with it.
 */
export const ListFilesQuerySchema = z.strictObject({
  limit: queryInt(1, LIMITS.listFiles.max).default(LIMITS.listFiles.default),
  cursor: ListCursorSchema.optional(),
  prefix: PathPrefixSchema.optional(),
});
export type ListFilesQuery = z.infer<typeof ListFilesQuerySchema>;
/** A file's metadata: `size` in bytes of UTF-8, `contentHash` as write file answers it; content via read file. */
export const FileInfoSchema = z.object({
  path: z.string(),
  size: z.number().int(),
  contentHash: z.string(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type FileInfo = z.infer<typeof FileInfoSchema>;
/** One page of files; `nextCursor` continues the listing, null after the last page. */
export const ListFilesResponseSchema = z.object({ files: z.array(FileInfoSchema), nextCursor: z.string().nullable() });
export type ListFilesResponse = z.infer<typeof ListFilesResponseSchema>;

// --- bus messages (files.v1.*) ---
const Scoped = { agentId: AgentIdSchema, recordId: RecordIdSchema };
export const FilesWriteMessageSchema = z.object({ ...Scoped, body: WriteFileBodySchema });
/** Reply of files.v1.write: `replayed` and `commitId` as in memory.v1.remember's reply (the write is charged once). */
export const FilesWriteReplySchema = z.object({ result: WriteFileResponseSchema, replayed: z.boolean(), commitId: CommitIdSchema.optional() });
export const FilesReadMessageSchema = z.object({ ...Scoped, path: z.string() });
export const FilesRawPutMessageSchema = z.object({ ...Scoped, body: RawPutBodySchema });
export const FilesRawGetMessageSchema = z.object({ ...Scoped, path: z.string() });
/** `files.v1.list`: the page after path `after` (absent: from the start), at most `limit`, under `prefix` if given. */
export const FilesListMessageSchema = z.object({
  ...Scoped,
  limit: z.number().int().min(1).max(LIMITS.listFiles.max),
  after: z.string().optional(),
  prefix: z.string().optional(),
});
