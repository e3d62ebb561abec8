import { LIMITS } from './limits';

/**
 * Normalises and checks a storage path of a memory or file (DESIGN.md §3, "Paths"): NFC, at most 256
 * characters, no control characters, no leading `/`, no empty, `.` or `..` segments, no backslash.
 * Returns the normalised path, or a message saying what is wrong. A path is never used as a filesystem
 * or object key without passing here first.
 */
export function checkStoragePath(raw: string): { ok: true; path: string } | { ok: false; message: string } {
  const path = raw.normalize('NFC');
  if (path.length === 0) return { ok: false, message: 'must not be empty' };
  if ([...path].length > LIMITS.pathLength.max) return { ok: false, message: `must be at most ${LIMITS.pathLength.max} characters` };
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
