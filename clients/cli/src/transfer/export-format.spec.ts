import { fileLine, headerLine, importIdempotencyKey, memoryLine, parseExportLine } from './export-format';

describe('export format (JSON Lines)', () => {
  it('round-trips header, memory and file lines', () => {
    const lines = [
      headerLine('rec_1', 'notes', new Date('2026-11-25T00:00:00Z')),
      memoryLine({ id: 'mem_1', path: 'ops/key', type: 'fact', content: 'a fact', summary: 'a fact', createdAt: '2026-11-25T00:00:00.000Z', updatedAt: '2026-11-25T00:00:00.000Z' }),
      fileLine({ path: 'docs/a.md', content: '', contentHash: 'sha256:e3b0' }),
    ];
    lines.forEach((line, i) => expect(parseExportLine(JSON.stringify(line), i + 1)).toEqual(line));
  });

  it.each([
    ['not JSON', '{', 'line 4: not a JSON object'],
    ['an unknown kind', '{"kind":"note"}', 'line 4: kind: '],
    ['a path the service refuses', '{"kind":"memory","path":"../x","type":"fact","content":"x"}', 'line 4: path: '],
    ['an unknown type', '{"kind":"memory","path":"a","type":"note","content":"x"}', 'line 4: type: '],
    ['empty memory content', '{"kind":"memory","path":"a","type":"fact","content":""}', 'line 4: content: must not be empty'],
    ['memory content over 50 KB', JSON.stringify({ kind: 'memory', path: 'a', type: 'fact', content: 'x'.repeat(51_201) }), 'line 4: content: must be at most 51200 bytes'],
  ])('refuses %s with its line number', (_name, text, message) => {
    expect(() => parseExportLine(text, 4)).toThrow(message);
  });

  it('derives the same idempotency key from the same line, and a different one from any change', () => {
    const line = memoryLine({ path: 'a', type: 'fact', content: 'x' });
    const key = importIdempotencyKey(line);
    expect(key).toMatch(/^import-v1-[0-9a-f]{64}$/);
    expect(importIdempotencyKey({ ...line, id: 'mem_other', createdAt: 'later' })).toBe(key);
    expect(importIdempotencyKey({ ...line, content: 'y' })).not.toBe(key);
    expect(importIdempotencyKey({ ...line, type: 'skill' })).not.toBe(key);
    expect(importIdempotencyKey({ ...line, path: 'b' })).not.toBe(key);
    expect(importIdempotencyKey(fileLine({ path: 'a', content: 'x' }))).not.toBe(key);
  });
});
