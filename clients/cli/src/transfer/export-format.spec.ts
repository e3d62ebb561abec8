import { createHash } from 'node:crypto';
import { fileLine, headerLine, importIdempotencyKey, memoryLine, newImportRunId, parseExportLine } from './export-format';

describe('export format (JSON Lines)', () => {
  it('round-trips header, memory and file lines', () => {
    const lines = [
      headerLine('rec_1', 'notes', new Date('2026-11-25T00:00:00Z')),
      memoryLine({ id: 'mem_1', path: 'ops/key', type: 'fact', content: 'a fact', summary: 'a fact', createdAt: '2026-11-25T00:00:00.000Z', updatedAt: '2026-11-25T00:00:00.000Z' }),
      fileLine({ path: 'docs/a.md', content: '' }),
    ];
    lines.forEach((line, i) => expect(parseExportLine(JSON.stringify(line), i + 1)).toEqual(line));
  });

  it("carries the content hash of the content it holds (the read's), as the service computes it", () => {
    expect(fileLine({ path: 'docs/a.md', content: '' }).contentHash).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(fileLine({ path: 'docs/a.md', content: 'é' }).contentHash).toBe(`sha256:${createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex')}`);
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

  it('derives the same idempotency key from the same line in the same run, and a different one from any change or another run', () => {
    const line = memoryLine({ path: 'a', type: 'fact', content: 'x' });
    const run = newImportRunId();
    const key = importIdempotencyKey(line, run);
    expect(key).toMatch(/^import-v2-[0-9a-f]{64}$/);
    expect(importIdempotencyKey({ ...line, id: 'mem_other', createdAt: 'later' }, run)).toBe(key);
    expect(importIdempotencyKey({ ...line, content: 'y' }, run)).not.toBe(key);
    expect(importIdempotencyKey({ ...line, type: 'skill' }, run)).not.toBe(key);
    expect(importIdempotencyKey({ ...line, path: 'b' }, run)).not.toBe(key);
    expect(importIdempotencyKey(fileLine({ path: 'a', content: 'x' }), run)).not.toBe(key);
    // a new run (--restart, a fresh import) writes again instead of replaying the previous run's answers
    const other = newImportRunId();
    expect(other).toMatch(/^[0-9a-f]{32}$/);
    expect(other).not.toBe(run);
    expect(importIdempotencyKey(line, other)).not.toBe(key);
  });
});
