import { chunkForEmbedding, EMBEDDING_CHUNK_CHARS, EMBEDDING_MAX_CHUNKS } from './document-embedding';

/** Memory content limit (bytes of UTF-8); every hostile shape below is about this size. */
const CONTENT_BYTES = 50 * 1024;
const fill = (unit: string, bytes = CONTENT_BYTES) => unit.repeat(Math.floor(bytes / Buffer.byteLength(unit)));
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('chunkForEmbedding on hostile input', () => {
  it.each<[string, string, number]>([
    ['newlines around a word', fill('\n', 20_000) + 'x' + fill('\n', 20_000), 1],
    ['CRLF after a word', 'x' + fill('\r\n', CONTENT_BYTES - 1), 1],
    ['one 50 KB token', fill('a'), EMBEDDING_MAX_CHUNKS],
    ['emoji', fill('😀'), EMBEDDING_MAX_CHUNKS],
    ['emoji after one letter (odd offsets)', 'a' + fill('😀', CONTENT_BYTES - 1), EMBEDDING_MAX_CHUNKS],
    ['CJK', fill('漢字'), EMBEDDING_MAX_CHUNKS],
    ['short words', fill('x '), EMBEDDING_MAX_CHUNKS],
  ])('cuts %s into at most 8 bounded chunks without splitting a character', (_name, text, count) => {
    const chunks = chunkForEmbedding(text);
    expect(chunks).toHaveLength(count);
    for (const chunk of chunks) {
      expect(chunk.length).toBeGreaterThan(0);
      expect(chunk.length).toBeLessThanOrEqual(EMBEDDING_CHUNK_CHARS);
      expect(chunk).not.toMatch(LONE_SURROGATE);
    }
  });
});
