import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LIMITS } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';

/** The seven tools of `agent-memory mcp` (clients/cli/README.md, "MCP"). */
export const TOOL_NAMES = ['context', 'forget', 'list_records', 'read_file', 'recall', 'remember', 'write_file'];

/** A tool call's answer as the MCP client gets it. */
export interface CallResult {
  text: string;
  isError: boolean;
  structured: Record<string, any> | undefined;
}

/** Calls a tool and reads its first text block, `isError` and `structuredContent`. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true, structured: result.structuredContent as Record<string, any> | undefined };
}

/** A fresh agent on the server: its key and default record. */
export async function freshAgent(baseUrl: string): Promise<{ agentKey: string; recordId: string }> {
  const created = (await new ApiClient(baseUrl).request('POST', '/api/v1/agents', { body: { name: `mcp agent ${Math.random()}` } })).data as {
    agentKey: string;
    recordId: string;
  };
  return { agentKey: created.agentKey, recordId: created.recordId };
}

/** tools/list: the seven tools, with input schemas derived from the shared contract's limits. */
export async function checkListedTools(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  for (const tool of tools) {
    expect(tool.description).toEqual(expect.any(String));
    expect(tool.inputSchema.type).toBe('object');
  }
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  expect(byName.remember.inputSchema.required).toEqual(expect.arrayContaining(['content', 'record_id']));
  expect(byName.remember.inputSchema.properties!.type).toMatchObject({ enum: ['identity', 'fact', 'relationship', 'episode', 'skill'] });
  expect(byName.recall.inputSchema.properties!.limit).toMatchObject({ minimum: LIMITS.recallLimit.min, maximum: LIMITS.recallLimit.max, default: LIMITS.recallLimit.default });
  expect(byName.context.inputSchema.properties!.limit).toMatchObject({ maximum: LIMITS.contextPerType.max });
  expect(byName.list_records.inputSchema.properties!.limit).toMatchObject({ maximum: LIMITS.listRecords.maxLimit });
  expect(byName.forget.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  expect(byName.recall.annotations).toMatchObject({ readOnlyHint: true });
}

/**
 * The whole round of tools for one agent: remember then recall finds it, context shows its content,
 * write_file/read_file round trip, list_records shows the record, bad inputs are VALIDATION_ERROR tool
 * errors (the session goes on), an unknown record is NOT_FOUND, and after forget recall no longer finds it.
 */
export async function exerciseTools(client: Client, recordId: string): Promise<void> {
  const content = 'The staging database password rotates every Monday at 09:00 UTC.';
  const remembered = await call(client, 'remember', { record_id: recordId, content, type: 'fact', path: 'ops/rotation' });
  expect(remembered.isError).toBe(false);
  expect(remembered.structured).toEqual({ id: expect.stringMatching(/^mem_/), path: 'ops/rotation', type: 'fact', summary: expect.any(String) });
  expect(remembered.text).toContain(`Remembered ${remembered.structured!.id} (fact) at ops/rotation`);
  const other = await call(client, 'remember', { record_id: recordId, content: 'Alice prefers green tea in the afternoon.', path: 'people/alice' });
  expect(other.isError).toBe(false);

  const recalled = await call(client, 'recall', { record_id: recordId, query: 'When does the database password rotate?', limit: 5 });
  expect(recalled.isError).toBe(false);
  expect(recalled.structured!.memories[0]).toMatchObject({ id: remembered.structured!.id, path: 'ops/rotation', type: 'fact' });
  expect(recalled.text).toMatch(/^\d+ memor(y|ies) for "When does the database password rotate\?", best first:\n1\. \[similarity \d\.\d\d\] fact · ops\/rotation \(mem_\w+\): /);

  const context = await call(client, 'context', { record_id: recordId });
  expect(context.isError).toBe(false);
  expect(context.structured!.fact.map((m: any) => m.path)).toContain('ops/rotation');
  expect(context.text).toContain(`- ops/rotation (${remembered.structured!.id}, updated `);
  expect(context.text).toContain(content);

  const file = 'Line one\nLínea dos: ünïcödé ✓\n';
  const written = await call(client, 'write_file', { record_id: recordId, path: 'notes/todo.md', content: file });
  expect(written.isError).toBe(false);
  expect(written.structured).toEqual({ path: 'notes/todo.md', contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  const read = await call(client, 'read_file', { record_id: recordId, path: 'notes/todo.md' });
  expect(read).toEqual({ text: file, isError: false, structured: { path: 'notes/todo.md', content: file } });

  const records = await call(client, 'list_records', {});
  expect(records.isError).toBe(false);
  expect(records.structured!.records.map((r: any) => r.id)).toEqual([recordId]);
  expect(records.text).toContain(`1. ${recordId} `);

  for (const [name, args, field] of [
    ['remember', { record_id: recordId, content: '' }, 'content'],
    ['recall', { record_id: recordId, query: 'x', limit: LIMITS.recallLimit.max + 1 }, 'limit'],
    ['remember', { record_id: 'not-a-record', content: 'x' }, 'record_id'],
    ['write_file', { record_id: recordId, path: '../escape', content: 'x' }, 'path'],
    ['recall', { record_id: recordId, query: 'x', surprise: true }, 'surprise'],
    ['forget', { record_id: recordId, path: 'ops/rotation', id: remembered.structured!.id }, 'exactly one'],
  ] as const) {
    const bad = await call(client, name, args);
    expect(bad).toMatchObject({ isError: true, structured: { error: { code: 'VALIDATION_ERROR' } } });
    expect(bad.text).toMatch(/^VALIDATION_ERROR: /);
    expect(bad.text).toContain(field);
  }
  const missing = await call(client, 'read_file', { record_id: recordId, path: 'notes/absent.md' });
  expect(missing).toMatchObject({ isError: true, structured: { error: { code: 'NOT_FOUND', requestId: expect.any(String) } } });
  expect(missing.text).toMatch(/^NOT_FOUND: .+ \(request id .+\)$/);

  const forgotten = await call(client, 'forget', { record_id: recordId, path: 'ops/rotation' });
  expect(forgotten).toMatchObject({ isError: false, structured: { deleted: true, path: 'ops/rotation' } });
  const after = await call(client, 'recall', { record_id: recordId, query: 'When does the database password rotate?', limit: 5 });
  expect(after.isError).toBe(false);
  expect(after.structured!.memories.map((m: any) => m.id)).not.toContain(remembered.structured!.id);
  expect(after.text).not.toContain('ops/rotation');
}
