import { LIMITS } from '@agent-memory/shared';
import type { MemoryApi } from './memory-api';
import { MemoryTools } from './tools';

const RECORD = 'rec_abc123';

/** A MemoryApi whose methods fail the test unless a case provides them. */
function fakeApi(overrides: Partial<MemoryApi>): MemoryApi {
  const unexpected = () => Promise.reject(new Error('unexpected call'));
  return {
    remember: unexpected,
    recall: unexpected,
    forget: unexpected,
    context: unexpected,
    readFile: unexpected,
    writeFile: unexpected,
    listRecords: unexpected,
    ...overrides,
  };
}

describe('MemoryTools', () => {
  it('checks arguments with the shared schemas before any call: VALIDATION_ERROR naming the field', async () => {
    const tools = new MemoryTools(fakeApi({}));
    const tooBig = 'x'.repeat(LIMITS.memoryContentBytes.max + 1);
    const answer = await tools.call('remember', { record_id: RECORD, content: tooBig });
    expect(answer.isError).toBe(true);
    expect(answer.content[0].text).toBe(`VALIDATION_ERROR: content: must be at most ${LIMITS.memoryContentBytes.max} bytes (50KB) of UTF-8`);
    expect(answer.structuredContent).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String) } });
    expect((await tools.call('forget', { record_id: RECORD })).content[0].text).toMatch(/^VALIDATION_ERROR: exactly one of "path" or "id"/);
    expect((await tools.call('recall', undefined)).content[0].text).toBe(
      'VALIDATION_ERROR: query: Invalid input: expected string, received undefined; record_id: Invalid input: expected string, received undefined',
    );
  });

  it('passes parsed arguments (defaults, NFC paths) and the cancel signal to the API', async () => {
    const recall = jest.fn<ReturnType<MemoryApi['recall']>, Parameters<MemoryApi['recall']>>().mockResolvedValue({ memories: [], count: 0 });
    const tools = new MemoryTools(fakeApi({ recall }), { defaultRecordId: RECORD });
    const signal = new AbortController().signal;
    const answer = await tools.call('recall', { query: 'tea' }, signal);
    expect(recall).toHaveBeenCalledWith({ record_id: RECORD, query: 'tea', limit: LIMITS.recallLimit.default }, signal);
    expect(answer).toEqual({ content: [{ type: 'text', text: 'No memories match "tea".' }], structuredContent: { memories: [], count: 0 } });

    const forget = jest.fn<ReturnType<MemoryApi['forget']>, Parameters<MemoryApi['forget']>>().mockResolvedValue({ deleted: true, path: 'caf\u00e9' });
    const forgetting = new MemoryTools(fakeApi({ forget }), { defaultRecordId: RECORD });
    expect((await forgetting.call('forget', { path: 'cafe\u0301' })).content[0].text).toBe('Forgot the memory at caf\u00e9; it no longer appears in recall or context.');
    expect(forget).toHaveBeenCalledWith(RECORD, { path: 'caf\u00e9' }, undefined);
  });

  it('turns an error of the service into a tool error with its code, retry delay and request id', async () => {
    const limited = Object.assign(new Error('30 writes per minute per record'), { code: 'RATE_LIMITED', requestId: 'req-1', retryAfterSeconds: 12 });
    const tools = new MemoryTools(fakeApi({ remember: () => Promise.reject(limited) }));
    const answer = await tools.call('remember', { record_id: RECORD, content: 'x' });
    expect(answer).toEqual({
      content: [{ type: 'text', text: 'RATE_LIMITED: 30 writes per minute per record (retry after 12 s) (request id req-1)' }],
      structuredContent: { error: { code: 'RATE_LIMITED', message: '30 writes per minute per record', requestId: 'req-1', retryAfterSeconds: 12 } },
      isError: true,
    });
    const bug = new MemoryTools(fakeApi({ listRecords: () => Promise.reject(new TypeError('boom')) }));
    expect((await bug.call('list_records', {})).content[0].text).toBe('INTERNAL_ERROR: boom');
  });

  it('answers recall as a numbered list and list_records with the next offset', async () => {
    const tools = new MemoryTools(
      fakeApi({
        recall: () => Promise.resolve({ count: 1, memories: [{ id: 'mem_1', path: 'people/alice', type: 'relationship', summary: 'Alice is my sister.', similarity: 0.8312 }] }),
        listRecords: () =>
          Promise.resolve({
            total: 3,
            limit: 1,
            offset: 1,
            records: [{ id: RECORD, name: 'work', tags: ['a'], category: 'general', parentRecordId: null, createdAt: '2026-11-25T00:00:00.000Z', updatedAt: '2026-11-25T00:00:00.000Z' }],
          }),
      }),
    );
    expect((await tools.call('recall', { record_id: RECORD, query: 'sister' })).content[0].text).toBe(
      '1 memory for "sister", best first:\n1. [similarity 0.83] relationship · people/alice (mem_1): Alice is my sister.',
    );
    expect((await tools.call('list_records', { limit: 1, offset: 1 })).content[0].text).toBe(
      `Records 2-2 of 3:\n2. ${RECORD} "work" (general; tags a; updated 2026-11-25T00:00:00.000Z)\nMore: call list_records with offset 2.`,
    );
  });

  it('lists seven tools whose JSON Schemas carry the contract limits and no $schema key', () => {
    const listed = new MemoryTools(fakeApi({})).list();
    expect(listed.map((t) => t.name)).toEqual(['remember', 'recall', 'forget', 'context', 'read_file', 'write_file', 'list_records']);
    const recall = listed.find((t) => t.name === 'recall')!;
    expect(recall.inputSchema).not.toHaveProperty('$schema');
    expect(recall.inputSchema).toMatchObject({ additionalProperties: false, required: expect.arrayContaining(['query', 'record_id']) });
    expect(recall.inputSchema.properties).toMatchObject({ query: { maxLength: LIMITS.recallQuery.max } });
    expect(recall.description).toMatch(/ Costs 0\.05 USD per call\.$/);
    expect(listed.find((t) => t.name === 'list_records')!.description).toMatch(/ Free\.$/);
  });
});
