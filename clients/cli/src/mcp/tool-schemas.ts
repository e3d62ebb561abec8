import { z } from 'zod';
import {
  ForgetTargetSchema,
  LIMITS,
  MemoryContextMessageSchema,
  MEMORY_TYPES,
  ReadFileQuerySchema,
  RecallBodySchema,
  RecordIdSchema,
  RememberBodySchema,
  WriteFileBodySchema,
} from '@agent-memory/shared';

/**
 * Input schemas of the MCP tools, derived from the HTTP contract's zod schemas in libs/shared (one source:
 * the limits, enums and patterns are those of docs/api.md, "Memories", "Files", "Records", "Sizes"). Each
 * tool adds `record_id` to the body or query of its route. Descriptions are written for the model that
 * calls the tools; limits that JSON Schema cannot express (UTF-8 byte sizes, path rules) are named in them
 * from {@link LIMITS}, so they follow the contract.
 */

const PATH_RULE = `a slash-separated path of at most ${LIMITS.pathLength.max} characters, e.g. "notes/today.md" (no "..", no leading slash)`;

/**
 * `record_id`: required, or optional with a default when the MCP server was started with a default record
 * (`--record`, `AGENT_MEMORY_RECORD_ID`, or the CLI profile's record).
 */
function recordId(defaultRecordId: string | undefined) {
  const text = 'The record (rec_...) to work in; list_records shows the agent\'s records.';
  return defaultRecordId === undefined
    ? RecordIdSchema.describe(text)
    : RecordIdSchema.default(defaultRecordId).describe(`${text} Defaults to ${defaultRecordId}.`);
}

/** Builds the seven tools' input schemas; `defaultRecordId` makes `record_id` optional. */
export function toolInputSchemas(defaultRecordId?: string) {
  const record_id = recordId(defaultRecordId);
  const remember = RememberBodySchema.shape;
  const recall = RecallBodySchema.shape;
  const write = WriteFileBodySchema.shape;
  return {
    remember: RememberBodySchema.extend({
      record_id,
      content: remember.content.describe(
        `What to remember: ${LIMITS.memoryContentBytes.min} byte to ${LIMITS.memoryContentBytes.max} bytes of UTF-8 text, one fact, event or skill per memory works best.`,
      ),
      type: remember.type.describe(`The memory type, one of ${MEMORY_TYPES.join(', ')}; omitted, the service classifies the content.`),
      path: remember.path.describe(`Where to keep it: ${PATH_RULE}. Remembering at an existing path replaces that memory. Omitted: <type>/<memory id>.`),
      idempotency_key: remember.idempotency_key.describe('Optional key that makes a retry of this exact call answer the first result instead of writing (and paying) twice.'),
    }),
    recall: RecallBodySchema.extend({
      record_id,
      query: recall.query.describe(`What to look for, in natural language (${LIMITS.recallQuery.min}-${LIMITS.recallQuery.max} characters).`),
      limit: recall.limit.describe(`How many memories to return (${LIMITS.recallLimit.min}-${LIMITS.recallLimit.max}, default ${LIMITS.recallLimit.default}).`),
      types: recall.types.describe(`Only memories of these types (${MEMORY_TYPES.join(', ')}).`),
    }),
    forget: ForgetTargetSchema.extend({
      record_id,
      path: ForgetTargetSchema.shape.path.describe('The path of the memory to delete (give exactly one of path or id).'),
      id: ForgetTargetSchema.shape.id.describe('The id (mem_...) of the memory to delete (give exactly one of path or id).'),
    }),
    context: z.strictObject({
      record_id,
      limit: MemoryContextMessageSchema.shape.limit
        .default(LIMITS.contextPerType.default)
        .describe(`At most this many memories per type, newest first (1-${LIMITS.contextPerType.max}, default ${LIMITS.contextPerType.default}).`),
    }),
    read_file: ReadFileQuerySchema.extend({ record_id, path: ReadFileQuerySchema.shape.path.describe(`The file's path: ${PATH_RULE}.`) }),
    write_file: WriteFileBodySchema.extend({
      record_id,
      path: write.path.describe(`The file's path: ${PATH_RULE}. Writing at an existing path replaces the file.`),
      content: write.content.describe(`The whole file, UTF-8 text of at most ${LIMITS.fileContentBytes.max} bytes (empty is allowed).`),
      idempotency_key: write.idempotency_key.describe('Optional key that makes a retry of this exact call answer the first result instead of writing (and paying) twice.'),
    }),
    list_records: z.strictObject({
      limit: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.listRecords.maxLimit)
        .default(LIMITS.listRecords.defaultLimit)
        .describe(`Page size (1-${LIMITS.listRecords.maxLimit}, default ${LIMITS.listRecords.defaultLimit}).`),
      offset: z.number().int().min(0).default(0).describe('How many records to skip (default 0).'),
    }),
  } as const;
}

/** The tool names and their input schemas. */
export type ToolInputSchemas = ReturnType<typeof toolInputSchemas>;
export type ToolName = keyof ToolInputSchemas;
/** The parsed (output) arguments of tool `N`: defaults applied, paths normalised. */
export type ToolArgs<N extends ToolName> = z.output<ToolInputSchemas[N]>;

/**
 * One line per zod issue, `field: message` (the gateway's VALIDATION_ERROR messages name the field the
 * same way, docs/api.md "Errors"); at most five issues, so a hostile input gives a short answer.
 */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  const more = error.issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}
