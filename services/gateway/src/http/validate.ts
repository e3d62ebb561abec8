import type { z } from 'zod';
import { ValidationError } from '@agent-memory/shared';
import { formatZodError } from '@agent-memory/platform';

/**
 * Parses an HTTP body or query with its contract schema; VALIDATION_ERROR naming the field otherwise.
 * `where` prefixes the message (`body`, `query`).
 */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, where: 'body' | 'query'): z.output<S> {
  if (where === 'body' && (value === undefined || value === null)) {
    throw new ValidationError('body: a JSON object is required (Content-Type: application/json)');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ValidationError(formatZodError(parsed.error, where));
  return parsed.data;
}
