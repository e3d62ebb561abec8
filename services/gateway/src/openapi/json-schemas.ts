import { z } from 'zod';
import * as shared from '@agent-memory/shared';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

/** `input`: what a client sends (before defaults and transforms); `output`: what the service answers. */
export type SchemaIo = 'input' | 'output';

/** The exported name of each zod schema of `@agent-memory/shared` (`RecallResponseSchema` → `RecallResponse`). */
const SHARED_NAMES = new Map<unknown, string>(
  Object.entries(shared)
    .filter(([name, value]) => value instanceof z.ZodType && name.endsWith('Schema'))
    .map(([name, value]) => [value, name.slice(0, -'Schema'.length)]),
);

/** JSON Schema of a zod schema, draft 2020-12, without the `$schema` keyword (OpenAPI 3.1 sets the dialect once). */
export function jsonSchemaOf(schema: z.ZodType, io: SchemaIo): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/**
 * The `components.schemas` of the document, filled as operations use schemas: a schema exported by
 * `@agent-memory/shared` becomes a named component (its export name without `Schema`; `…Input` when the
 * same schema is used in both forms and they differ) referenced with `$ref`; any other
 * schema (an envelope built here) is inlined.
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /**
   * A `$ref` to the named component of `schema` in the `io` form, or the schema inline when it has no
   * shared name. The first form used takes the plain name; the other form, when it differs (defaults,
   * transforms), is named `…Input` or `…Output`.
   */
  ref(schema: z.ZodType, io: SchemaIo): JsonSchema {
    const name = SHARED_NAMES.get(schema);
    const json = jsonSchemaOf(schema, io);
    if (name === undefined) return json;
    const same = (key: string) => JSON.stringify(this.schemas[key]) === JSON.stringify(json);
    const key = this.schemas[name] === undefined || same(name) ? name : `${name}${io === 'input' ? 'Input' : 'Output'}`;
    this.schemas[key] ??= json;
    return { $ref: `#/components/schemas/${key}` };
  }
}
