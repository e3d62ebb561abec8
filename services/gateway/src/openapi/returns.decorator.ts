import { SetMetadata } from '@nestjs/common';
import type { z } from 'zod';
import type { ErrorCode } from '@agent-memory/shared';

/** What a route answers and how it is described, kept on the handler under {@link RETURNS}. */
export interface ReturnsDeclaration {
  /** The shared zod schema of `data` in the success envelope `{ success: true, data }` (docs/api.md, "Envelope, statuses, errors"). */
  schema: z.ZodType;
  /** One line for the operation's `summary` in the OpenAPI document. */
  summary: string;
  /** Longer text for the operation's `description` (Markdown). */
  description?: string;
  /**
   * Errors the handler itself can answer beyond those its route kind implies (../openapi/operation-errors.ts),
   * e.g. NOT_FOUND for a key id or FORBIDDEN for a test key on a live-only action.
   */
  errors?: readonly ErrorCode[];
  /**
   * The request when the handler reads it without a `@Body()`/`@Query()` DTO parameter (forget reads its
   * target from the body or the query string): the body schema (optional when `bodyRequired` is false) and the
   * query schema, both shared zod object schemas.
   */
  request?: { body?: z.ZodType; bodyRequired?: boolean; query?: z.ZodObject };
}
export const RETURNS = 'agent-memory:returns';

/**
 * Declares a route's success answer for the OpenAPI document at `/openapi.json`: the shared zod schema
 * of its `data` and a summary. Every `/api/v1` route carries one: the document builder refuses a route
 * without it, so the contract cannot silently lose an operation. The status is the route's `@HttpCode`
 * (Nest's default otherwise: 201 for POST, 200 for the rest).
 */
export function Returns(schema: z.ZodType, declaration: Omit<ReturnsDeclaration, 'schema'>): MethodDecorator {
  return SetMetadata(RETURNS, { schema, ...declaration } satisfies ReturnsDeclaration);
}
