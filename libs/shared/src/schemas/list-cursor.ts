import { z } from 'zod';
import { checkStoragePath } from '../paths';

/**
 * The opaque `cursor` of the keyset-paginated listings (docs/api.md, "Pagination": list memories, list
 * files). It names the last path of the previous page: the next page starts strictly after it in the
 * listing's path order, so a page is found by an index seek, whatever was written or forgotten meanwhile.
 * Wire form: base64url (no padding) of the UTF-8 text `after:<path>`. Clients must not build or read it.
 */
const CURSOR_TAG = 'after:';
/** Longest cursor: the tag and a 256-character path of 4-byte characters, in base64url. */
const CURSOR_MAX_CHARS = Math.ceil(((CURSOR_TAG.length + 256 * 4) * 4) / 3);
const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The cursor that continues a listing after `path` (the last item of a page). */
export function encodeListCursor(path: string): string {
  return Buffer.from(`${CURSOR_TAG}${path}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor made by {@link encodeListCursor}: the path to continue after, or a message for a
 * VALIDATION_ERROR. Strict: only canonical base64url, valid UTF-8, the tag, and a path that
 * `checkStoragePath` accepts unchanged (already NFC); anything else is refused.
 */
export function decodeListCursor(cursor: string): { ok: true; after: string } | { ok: false; message: string } {
  const refused = { ok: false as const, message: 'must be a cursor returned as nextCursor by this listing' };
  if (cursor.length === 0 || cursor.length > CURSOR_MAX_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) return refused;
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.toString('base64url') !== cursor) return refused;
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    return refused;
  }
  if (!text.startsWith(CURSOR_TAG)) return refused;
  const after = text.slice(CURSOR_TAG.length);
  const checked = checkStoragePath(after);
  if (!checked.ok || checked.path !== after) return refused;
  return { ok: true, after };
}

/** A `cursor` query parameter, parsed to the path it continues after ({@link decodeListCursor}). */
export const ListCursorSchema = z
  .string()
  .transform((cursor, ctx) => {
    const decoded = decodeListCursor(cursor);
    if (!decoded.ok) {
      ctx.addIssue({ code: 'custom', message: decoded.message });
      return z.NEVER;
    }
    return decoded.after;
  })
  .meta({
    minLength: 1,
    maxLength: CURSOR_MAX_CHARS,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'The `nextCursor` of the previous page, unchanged (opaque); omit it for the first page. Any other value is 400 VALIDATION_ERROR.',
  });

/**
 * A path prefix filter (list files `prefix`): 1–256 characters, NFC-normalised, that some valid path
 * (docs/api.md, "Sizes") starts with, e.g. `notes/` or `notes/2026-`. Checked as the path `<prefix>x`.
 */
export const PathPrefixSchema = z.string().transform((raw, ctx) => {
  const checked = checkStoragePath(`${raw}x`);
  if (raw.length === 0 || !checked.ok) {
    ctx.addIssue({ code: 'custom', message: raw.length === 0 ? 'must not be empty' : `must be the start of a valid path: ${checked.ok ? '' : checked.message}` });
    return z.NEVER;
  }
  return checked.path.slice(0, -1);
}).meta({
  minLength: 1,
  maxLength: 255,
  description: 'Keep the paths that start with this text, taken literally (e.g. `notes/`): the start of a valid path, at most 255 characters.',
});
