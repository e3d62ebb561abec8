import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { FileContentSchema, MemoryContentSchema, MemoryTypeSchema, StoragePathSchema, type MemoryType } from '@agent-memory/shared';
import { CliError } from '../output/errors';

/**
 * The JSON Lines format of `agent-memory export` and `import` (clients/cli/README.md, "Export and
 * import"): one JSON object per line. The first line is a header naming the format and the record it
 * came from; then one line per memory (its path, type and full content) and one per file (path and
 * content). Ids and timestamps are informative: an import writes each memory at its path with its type,
 * so the new record holds the same memories, types, paths and files.
 */
export const EXPORT_FORMAT = 'agent-memory-export';
export const EXPORT_VERSION = 1;

const HeaderLineSchema = z.object({
  kind: z.literal('header'),
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  recordId: z.string(),
  recordName: z.string().optional(),
  exportedAt: z.string(),
});

const MemoryLineSchema = z.object({
  kind: z.literal('memory'),
  path: StoragePathSchema,
  type: MemoryTypeSchema,
  content: MemoryContentSchema,
  id: z.string().optional(),
  summary: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});

const FileLineSchema = z.object({
  kind: z.literal('file'),
  path: StoragePathSchema,
  content: FileContentSchema,
  contentHash: z.string().optional(),
});

const ExportLineSchema = z.discriminatedUnion('kind', [HeaderLineSchema, MemoryLineSchema, FileLineSchema]);

export type HeaderLine = z.infer<typeof HeaderLineSchema>;
export type MemoryLine = z.infer<typeof MemoryLineSchema>;
export type FileLine = z.infer<typeof FileLineSchema>;
export type ExportLine = z.infer<typeof ExportLineSchema>;

/** The header line of an export of `recordId`. */
export function headerLine(recordId: string, recordName: string | undefined, now = new Date()): HeaderLine {
  return { kind: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION, recordId, recordName, exportedAt: now.toISOString() };
}

/** A memory line: what an import needs (path, type, content) plus the informative fields. */
export function memoryLine(memory: { id?: string; path: string; type: MemoryType; content: string; summary?: string; createdAt?: string; updatedAt?: string }): MemoryLine {
  return { kind: 'memory', path: memory.path, type: memory.type, content: memory.content, id: memory.id, summary: memory.summary, createdAt: memory.createdAt, updatedAt: memory.updatedAt };
}

/**
 * A file line. Its `contentHash` is computed from the content it carries (`sha256:<hex>` of the UTF-8
 * bytes, the service's `contentHash`, docs/api.md "Files"), never taken from a listing that may be older
 * than the read.
 */
export function fileLine(file: { path: string; content: string }): FileLine {
  return { kind: 'file', path: file.path, content: file.content, contentHash: `sha256:${createHash('sha256').update(file.content, 'utf8').digest('hex')}` };
}

/**
 * Parses and checks one line (1-based `lineNumber` for the message) against the service's own limits
 * (the shared schemas: a memory's content 1 byte to 50 KB, a file's up to 1 MB, paths as docs/api.md
 * "Sizes"), so a bad line is reported with its number before anything is sent. Throws {@link CliError}.
 */
export function parseExportLine(text: string, lineNumber: number): ExportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`line ${lineNumber}: not a JSON object`, 'INVALID_INPUT', 1);
  }
  const parsed = ExportLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new CliError(`line ${lineNumber}: ${field}${issue?.message ?? 'invalid'}`, 'INVALID_INPUT', 1);
  }
  return parsed.data;
}

/**
 * The idempotency key of an import line: `import-v2-` and the SHA-256 of the import run's `runId` (a
 * random nonce kept in the import checkpoint) and what the write sends (kind, path, type, content).
 * Within one run the same line always gets the same key, so a run resumed after a crash or a lost answer
 * is answered from the first write and neither writes nor charges twice (docs/api.md, "Idempotency keys":
 * scoped to the record, kept 24 h). A new run (a first import, `--restart`, an input changed after a
 * finished import) has a new `runId`, so its writes really write: memories forgotten or changed since
 * the last run are written again instead of being answered from that run's replay. Two different lines
 * never share a key.
 */
export function importIdempotencyKey(line: MemoryLine | FileLine, runId: string): string {
  const what = line.kind === 'memory' ? [runId, line.kind, line.path, line.type, line.content] : [runId, line.kind, line.path, line.content];
  return `import-v2-${createHash('sha256').update(JSON.stringify(what)).digest('hex')}`;
}

/** A fresh `runId` for {@link importIdempotencyKey}: 128 random bits, hex. */
export function newImportRunId(): string {
  return randomBytes(16).toString('hex');
}
