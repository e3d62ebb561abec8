import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors';

/** Success envelope: `{ success: true, data }` (docs/api.md, "Envelope, statuses, errors"). */
export function successEnvelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** Failure envelope: `{ success: false, error: { code, message } }` (docs/api.md, "Errors"). */
export const FailureEnvelopeSchema = z.object({
  success: z.literal(false),
  error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }),
});
export type FailureEnvelope = z.infer<typeof FailureEnvelopeSchema>;

/** Builds `{ success: true, data }`. */
export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** Builds `{ success: false, error: { code, message } }`. */
export function fail(code: ErrorCode, message: string): FailureEnvelope {
  return { success: false, error: { code, message } };
}
