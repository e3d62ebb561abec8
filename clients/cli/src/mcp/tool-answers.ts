import {
  MEMORY_TYPES,
  type ContextResponse,
  type ForgetResponse,
  type ReadFileResponse,
  type RecallResponse,
  type RecordList,
  type RememberResponse,
  type WriteFileResponse,
} from '@agent-memory/shared';
import type { ToolError } from './memory-api';

/**
 * The answers of the MCP tools: a short text for the model (what happened, the ids and paths to use in
 * the next call) and the service's answer as `structuredContent` (the `data` of docs/api.md's envelope),
 * for hosts that read structured results. Errors are tool errors (`isError: true`), never protocol errors,
 * so the model sees the spec's code and message and can correct its call.
 */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

function answer(text: string, data: object): ToolAnswer {
  return { content: [{ type: 'text', text }], structuredContent: { ...data } };
}

/** `CODE: message (retry after N s) (request id …)`, and `{ error: { code, message, … } }` as structured content. */
export function errorAnswer(error: ToolError): ToolAnswer {
  const wait = error.retryAfterSeconds === undefined ? '' : ` (retry after ${error.retryAfterSeconds} s)`;
  const id = error.requestId === undefined ? '' : ` (request id ${error.requestId})`;
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}${wait}${id}` }], structuredContent: { error: { ...error } }, isError: true };
}

/** `Remembered mem_… (type) at path. Summary: …`: the id and path to recall or forget it by; the memory as structured content. */
export function rememberAnswer(memory: RememberResponse): ToolAnswer {
  return answer(`Remembered ${memory.id} (${memory.type}) at ${memory.path}. Summary: ${memory.summary}`, memory);
}

/** A numbered list, best match first: `1. [similarity 0.83] fact · facts/tea (mem_…): summary`. */
export function recallAnswer(query: string, result: RecallResponse): ToolAnswer {
  if (result.memories.length === 0) return answer(`No memories match ${JSON.stringify(query)}.`, result);
  const lines = result.memories.map(
    (m, i) => `${i + 1}. [similarity ${m.similarity.toFixed(2)}] ${m.type} · ${m.path} (${m.id}): ${m.summary}`,
  );
  return answer(`${result.count} ${result.count === 1 ? 'memory' : 'memories'} for ${JSON.stringify(query)}, best first:\n${lines.join('\n')}`, result);
}

/** `Forgot the memory at path; …`: the path deleted, and `{ deleted, path }` as structured content. */
export function forgetAnswer(result: ForgetResponse): ToolAnswer {
  return answer(`Forgot the memory at ${result.path}; it no longer appears in recall or context.`, result);
}

/** Per type (identity first), newest first: `- path (id, updated …): content`. */
export function contextAnswer(context: ContextResponse): ToolAnswer {
  const total = MEMORY_TYPES.reduce((sum, type) => sum + context[type].length, 0);
  if (total === 0) return answer('The record holds no memories yet.', context);
  const sections = MEMORY_TYPES.filter((type) => context[type].length > 0).map((type) => {
    const items = context[type].map((m) => `- ${m.path} (${m.id}, updated ${m.updatedAt}): ${m.content}`);
    return `## ${type} (${context[type].length})\n${items.join('\n')}`;
  });
  return answer(`${total} ${total === 1 ? 'memory' : 'memories'} by type, newest first:\n\n${sections.join('\n\n')}`, context);
}

/** The file's content as the text itself (nothing added, so it can be used as is). */
export function readFileAnswer(file: ReadFileResponse): ToolAnswer {
  return answer(file.content, file);
}

/** `Wrote path (sha256:…).`: the path and the new content hash, and `{ path, contentHash }` as structured content. */
export function writeFileAnswer(result: WriteFileResponse): ToolAnswer {
  return answer(`Wrote ${result.path} (${result.contentHash}).`, result);
}

/** `1. rec_… "name" (category; tags a, b; updated …)`, and how to ask for the next page. */
export function listRecordsAnswer(page: RecordList): ToolAnswer {
  if (page.records.length === 0) {
    return answer(page.total === 0 ? 'The agent has no records yet.' : `No records at offset ${page.offset} (${page.total} in all).`, page);
  }
  const lines = page.records.map((r, i) => {
    const tags = r.tags.length > 0 ? `; tags ${r.tags.join(', ')}` : '';
    return `${page.offset + i + 1}. ${r.id} ${JSON.stringify(r.name)} (${r.category}${tags}; updated ${r.updatedAt})`;
  });
  const end = page.offset + page.records.length;
  const more = end < page.total ? `\nMore: call list_records with offset ${end}.` : '';
  return answer(`Records ${page.offset + 1}-${end} of ${page.total}:\n${lines.join('\n')}${more}`, page);
}
