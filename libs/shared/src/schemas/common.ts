import { z } from 'zod';
import { idPattern } from '../ids';
import { LIMITS } from '../limits';
import { checkStoragePath } from '../paths';

/** Byte length of a string in UTF-8. */
export function utf8Bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

export const RecordIdSchema = z.string().regex(idPattern('record'), 'must be a record id (rec_...)');
export const MemoryIdSchema = z.string().regex(idPattern('memory'), 'must be a memory id (mem_...)');
export const AgentIdSchema = z.string().regex(idPattern('agent'), 'must be an agent id (agt_...)');

/**
 * A memory or file path (docs/api.md, "Sizes"): normalised to NFC, checked by {@link checkStoragePath}.
 * The check is code, so its rules are restated for the OpenAPI document (`meta`, from the same limit).
 */
export const StoragePathSchema = z
  .string()
  .transform((raw, ctx) => {
    const checked = checkStoragePath(raw);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.message });
      return z.NEVER;
    }
    return checked.path;
  })
  .meta({
    minLength: 1,
    maxLength: LIMITS.pathLength.max,
    description: `A path such as \`notes/today.md\`: 1 to ${LIMITS.pathLength.max} characters after NFC normalisation, segments separated by "/", no control characters, no backslash, no leading "/", no empty, "." or ".." segments.`,
  });

/**
 * A short text kept in PostgreSQL (names, tags, categories, idempotency keys): no control characters.
 * PostgreSQL text cannot hold NUL at all (it would be a 500), and the other C0/C1 controls have no
 * place in a name (docs/authentication.md, "Strict JSON").
 */
export function plainText(min: number, max: number) {
  // eslint-disable-next-line no-control-regex
  return z.string().min(min).max(max).regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not contain control characters');
}

/** No NUL character: PostgreSQL text cannot hold it (memory content feeds summaries and the keyword index). */
export function withoutNul<S extends z.ZodString>(schema: S) {
  return schema.refine((s) => !s.includes('\u0000'), { message: 'must not contain NUL (\\u0000) characters' });
}

export const TagsSchema = z
  .array(plainText(1, LIMITS.tags.maxLength))
  .max(LIMITS.tags.maxCount, `must have at most ${LIMITS.tags.maxCount} entries`);

export const CategorySchema = plainText(LIMITS.category.min, LIMITS.category.max);

export const IdempotencyKeySchema = plainText(LIMITS.idempotencyKey.min, LIMITS.idempotencyKey.max);

/**
 * Identifies one committed idempotent write (memory remember, file write): the memory or files service
 * derives it from the idempotency claim that committed (record, key, claim time), and returns the same id
 * to every replay of that key, so the ledger can charge the write once (billing `commit_id`, unique).
 */
export const CommitIdSchema = z.string().min(1).max(200);

/** ISO 8601 UTC timestamp string. */
export const TimestampSchema = z.string().datetime();

/** The five memory types, which are also the keys of the context response (docs/api.md, "Memories"). */
export const MEMORY_TYPES = ['identity', 'fact', 'relationship', 'episode', 'skill'] as const;
export const MemoryTypeSchema = z.enum(MEMORY_TYPES);
export type MemoryType = z.infer<typeof MemoryTypeSchema>;

/** A non-negative integer read from a query string ("20" → 20); anything else is rejected. */
export function queryInt(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}
