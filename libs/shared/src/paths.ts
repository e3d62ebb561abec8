import { LIMITS } from './limits';

/**
 * Normalises and checks a storage path of a memory or file (docs/api.md, "Sizes"): NFC, at most 256
 * characters, no control characters, no leading `/`, no empty, `.` or `..` segments, no backslash.
 * Returns the normalised path, or a message saying what is wrong. A path is never used as a filesystem
 * or object key without passing here first.
 */
export function checkStoragePath(raw: string): { ok: true; path: string } | { ok: false; message: string } {
  const tooLong = { ok: false as const, message: `must be at most ${LIMITS.pathLength.max} characters` };
  // Refused before normalising, so a 1 MB "path" costs nothing (NFC of 1 MB took up to ~50 ms). No raw
  // string longer than this can have 256 characters after NFC: every character of an NFC string
  // decomposes into at most 4 code points (Hangul syllables into 3), a string is never shorter than its
  // canonical decomposition, and a code point is at most 2 UTF-16 units: 256 × 4 × 2 = 2,048 (doubled).
  if (raw.length > LIMITS.pathLength.max * 16) return tooLong;
  const path = raw.normalize('NFC');
  if (path.length === 0) return { ok: false, message: 'must not be empty' };
  if ([...path].length > LIMITS.pathLength.max) return tooLong;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return { ok: false, message: 'must not contain control characters' };
  if (path.includes('\\')) return { ok: false, message: 'must not contain backslashes' };
  if (path.startsWith('/')) return { ok: false, message: 'must not start with "/"' };
  for (const segment of path.split('/')) {
    if (segment === '') return { ok: false, message: 'must not contain empty segments ("//" or a trailing "/")' };
    if (segment === '.' || segment === '..') return { ok: false, message: 'must not contain "." or ".." segments' };
  }
  return { ok: true, path };
}
