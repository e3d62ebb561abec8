import { regexComplexityProblems } from '@agent-memory/testing';
import { DEFAULT_KEYWORD_OPTIONS, KEYWORD_ENCODER_PATTERNS, createKeywordEncoder, encodeKeywords, encodeQuery, fnv1a32 } from './keyword-encoder';

// The real Porter2 stemmer behind a counting spy (the encoder requires it at load).
jest.mock('wink-porter2-stemmer', () => jest.fn(jest.requireActual<(word: string) => string>('wink-porter2-stemmer')));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const porter2 = require('wink-porter2-stemmer') as jest.Mock;

/** Reference FNV-1a over TextEncoder bytes, to check the inline UTF-8 encoding. */
function referenceFnv(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

describe('fnv1a32', () => {
  it('matches the published FNV-1a 32-bit test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('hashes the UTF-8 bytes of any text, as unsigned 32-bit integers', () => {
    for (const text of ['café', 'münchen', '東京', '𝄞 clef', 'naïve', '\ud800 lone']) {
      expect(fnv1a32(text)).toBe(referenceFnv(text));
    }
  });
});

describe('keyword encoder', () => {
  const { terms } = createKeywordEncoder(DEFAULT_KEYWORD_OPTIONS);

  it('lower-cases, drops stop words and possessives, and stems', () => {
    expect(terms("Caroline's dogs were RUNNING in the park!")).toEqual(['carolin', 'dog', 'run', 'park']);
    expect(terms('When did Melanie paint a sunrise?')).toEqual(['melani', 'paint', 'sunris']);
  });

  it('handles apostrophes and contractions, straight or curly', () => {
    expect(terms("I'm sure it's fine, don't worry")).toEqual(['sure', 'fine', 'worri']);
    expect(terms('I’m sure it’s Anna’s')).toEqual(['sure', 'anna']);
    expect(terms("O'Neill's rock'n'roll")).toEqual(['oneil', 'rocknrol']);
  });

  it('splits on punctuation and keeps numbers, with their decimal point', () => {
    expect(terms('self-care since 2022: 3.5 km, 1,000 steps (v2)')).toEqual(['self', 'care', 'sinc', '2022', '3.5', 'km', '1000', 'step', 'v2']);
  });

  it('folds diacritics of Latin words and keeps other scripts', () => {
    expect(terms('Café in Zürich, Straße')).toEqual(['cafe', 'zurich', 'strass']);
    expect(terms('Москва и Київ')).toEqual(['москва', 'и', 'київ']);
  });

  it('indexes Chinese and Japanese as character bigrams', () => {
    expect(terms('東京タワー')).toEqual(['東京', '京タ', 'タワ', 'ワー']);
    expect(terms('猫')).toEqual(['猫']);
  });

  it('encodes documents with term frequencies, indices sorted and unique', () => {
    const vector = encodeKeywords('Dogs and dogs and a dog; cats.');
    expect(vector.indices).toEqual([...vector.indices].sort((a, b) => a - b));
    expect(new Set(vector.indices).size).toBe(vector.indices.length);
    const byId = new Map(vector.indices.map((id, i) => [id, vector.values[i]]));
    expect(byId.get(fnv1a32('dog'))).toBe(3);
    expect(byId.get(fnv1a32('cat'))).toBe(1);
    expect(vector.indices).toHaveLength(2);
  });

  it('encodes queries with each term once', () => {
    const vector = encodeQuery('dog dogs DOG cat');
    expect(vector.indices).toEqual([fnv1a32('dog'), fnv1a32('cat')].sort((a, b) => a - b));
    expect(vector.values).toEqual([1, 1]);
  });

  it('gives empty vectors for text without indexable words', () => {
    expect(encodeKeywords('')).toEqual({ indices: [], values: [] });
    expect(encodeQuery('Who is it? -- !!')).toEqual({ indices: [], values: [] });
  });

  it('is deterministic: same text, same vector, in any encoder instance', () => {
    const text = 'Melanie signed up for a pottery class yesterday';
    expect(createKeywordEncoder().encodeKeywords(text)).toEqual(encodeKeywords(text));
    expect(encodeKeywords(text).indices).toEqual(['melani', 'sign', 'potteri', 'class', 'yesterday'].map(fnv1a32).sort((a, b) => a - b));
  });

  it('can skip stemming and use other stop words', () => {
    expect(createKeywordEncoder({ stopWords: ['dogs'], stem: false }).terms('The dogs were running')).toEqual(['the', 'were', 'running']);
  });
});

/** Memory content limit (bytes of UTF-8); every hostile shape below is about this size. */
const CONTENT_BYTES = 50 * 1024;
const fill = (unit: string, bytes = CONTENT_BYTES) => unit.repeat(Math.floor(bytes / Buffer.byteLength(unit)));

describe('keyword encoder on hostile input (linear patterns, sane terms, no shared state)', () => {
  const { terms } = createKeywordEncoder(DEFAULT_KEYWORD_OPTIONS);

  it('runs only patterns that recheck proves linear', () => {
    expect(Object.keys(KEYWORD_ENCODER_PATTERNS).length).toBeGreaterThanOrEqual(7);
    expect(regexComplexityProblems(KEYWORD_ENCODER_PATTERNS)).toEqual([]);
  });

  it.each<[string, string, (t: string[]) => void]>([
    ['newlines', 'cat' + fill('\n', CONTENT_BYTES - 6) + 'dog', (t) => expect(t).toEqual(['cat', 'dog'])],
    ['CRLF', 'cat' + fill('\r\n', CONTENT_BYTES - 6) + 'dog', (t) => expect(t).toEqual(['cat', 'dog'])],
    ['spaces', 'cat' + fill(' ', CONTENT_BYTES - 6) + 'dog', (t) => expect(t).toEqual(['cat', 'dog'])],
    ['one 50 KB token (no word is that long)', fill('a'), (t) => expect(t).toEqual([])],
    ['a 50 KB number', fill('7'), (t) => expect(t).toEqual([])],
    ['a 50 KB dotted number', fill('1.1,'), (t) => expect(t).toEqual([])],
    ['a 50 KB apostrophe chain', fill("a'"), (t) => expect(t).toEqual([])],
    ['emoji', fill('😀'), (t) => expect(t).toEqual([])],
    ['emoji between words', fill('cat😀'), (t) => expect(new Set(t)).toEqual(new Set(['cat']))],
    ['CJK', fill('東京'), (t) => expect(new Set(t)).toEqual(new Set(['東京', '京東']))],
    ['punctuation', fill('.,;:!?-()'), (t) => expect(t).toEqual([])],
    ['combining marks on one letter', 'a' + fill('\u0301', CONTENT_BYTES - 1), (t) => expect(t).toEqual([])],
    ['words between punctuation runs', fill('Running!!!??? ... '), (t) => expect(new Set(t)).toEqual(new Set(['run']))],
  ])('gives sane terms for 50 KB of %s', (_name, text, check) => {
    check(terms(text));
    expect(encodeKeywords(text).indices.length).toBe(new Set(terms(text)).size);
  });

  it('keeps no stem memo between texts (one tenant\'s words never make another tenant\'s faster)', () => {
    const encoder = createKeywordEncoder(DEFAULT_KEYWORD_OPTIONS);
    porter2.mockClear();
    expect(encoder.terms('pineapple pineapples pineapple')).toEqual(['pineappl', 'pineappl', 'pineappl']);
    const withinOneText = porter2.mock.calls.length;
    expect(withinOneText).toBe(2); // a repeat within one text is memoised
    encoder.terms('pineapple');
    encodeQuery('pineapple');
    expect(porter2.mock.calls.length).toBe(withinOneText + 2);
  });
});
