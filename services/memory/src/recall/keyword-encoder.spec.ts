import { DEFAULT_KEYWORD_OPTIONS, createKeywordEncoder, encodeKeywords, encodeQuery, fnv1a32 } from './keyword-encoder';

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
