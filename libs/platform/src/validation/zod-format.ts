import type { ZodError } from 'zod';

/** One readable line per issue: `content: must be at most 51200 bytes (50KB) of UTF-8`. */
export function formatZodError(error: ZodError, root = 'body'): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : root;
      if (issue.code === 'unrecognized_keys') return `${where}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}
