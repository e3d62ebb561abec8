import type { SparseVector } from '../vector-index/vector-index.port';

// A CommonJS package without type declarations; typed here rather than with a global ambient module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const porter2 = require('wink-porter2-stemmer') as (word: string) => string;

/**
 * English stop words: the Snowball list (M. Porter, snowballstem.org/algorithms/english/stop.txt), plus the
 * additions NLTK makes to it ("can", "will", "just", "now", ...) and the contraction remnants that
 * tokenisation leaves ("s", "t", "ll", ...). Written lower-case with a plain apostrophe.
 *
 * Why not the `stopword` package's list: it keeps the question words ("when", "why") and most pronouns
 * ("she", "i'm"), which match half of any conversation, and drops content verbs ("like", "make").
 * Stop words are matched on the word before stemming, as Lucene's StopFilter does.
 */
export const SNOWBALL_STOP_WORDS: readonly string[] = [
  // Snowball English list
  'i', 'me', 'my', 'myself', 'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself',
  'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself',
  'they', 'them', 'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'this', 'that', 'these',
  'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had', 'having', 'do',
  'does', 'did', 'doing', 'would', 'should', 'could', 'ought', "i'm", "you're", "he's", "she's", "it's",
  "we're", "they're", "i've", "you've", "we've", "they've", "i'd", "you'd", "he'd", "she'd", "we'd",
  "they'd", "i'll", "you'll", "he'll", "she'll", "we'll", "they'll", "isn't", "aren't", "wasn't",
  "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't", "shan't",
  "shouldn't", "can't", 'cannot', "couldn't", "mustn't", "let's", "that's", "who's", "what's", "here's",
  "there's", "when's", "where's", "why's", "how's", 'a', 'an', 'the', 'and', 'but', 'if', 'or', 'because',
  'as', 'until', 'while', 'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into',
  'through', 'during', 'before', 'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on',
  'off', 'over', 'under', 'again', 'further', 'then', 'once', 'here', 'there', 'when', 'where', 'why',
  'how', 'all', 'any', 'both', 'each', 'few', 'more', 'most', 'other', 'some', 'such', 'no', 'nor', 'not',
  'only', 'own', 'same', 'so', 'than', 'too', 'very',
  // NLTK additions and contraction remnants
  'can', 'will', 'just', 'now', 'don', 's', 't', 'd', 'll', 'm', 're', 've', 'y', "ain't", "needn't",
  "mightn't", "it'll", "that'll", "there'll", "who'll", "could've", "would've", "should've", "might've",
  "must've", "y'all", "ya'll",
];

/** How text becomes terms; {@link DEFAULT_KEYWORD_OPTIONS} is what the service uses. */
export interface KeywordEncoderOptions {
  /** Words dropped before stemming (lower-case, apostrophe `'`). */
  stopWords: readonly string[];
  /** Apply the Porter2 (Snowball English) stemmer to Latin-script words. */
  stem: boolean;
}

/**
 * The service's keyword encoding: {@link SNOWBALL_STOP_WORDS}, Porter2 stemming.
 * On LoCoMo (BM25 alone, R@10) it scores 63.3, the same as adding the `stopword` package's list (63.2),
 * above that list alone (62.1), and well above no stemming (58.3) or no stop words and no stemming (54.2).
 * Changing it changes every stored sparse vector: re-index after a change.
 */
export const DEFAULT_KEYWORD_OPTIONS: KeywordEncoderOptions = {
  stopWords: SNOWBALL_STOP_WORDS,
  stem: true,
};


/** A keyword encoder: documents keep term frequencies, queries count each term once. */
export interface KeywordEncoder {
  /** Sparse vector of a document: term id → term frequency. */
  encodeKeywords(text: string): SparseVector;
  /** Sparse vector of a query: term id → 1 for each distinct term. */
  encodeQuery(text: string): SparseVector;
  /** The terms (stems) of a text in order, before hashing; for debugging and tests. */
  terms(text: string): string[];
}

// Apostrophe look-alikes (right single quote, modifier letter, prime, full-width) all mean "'" in words.
const APOSTROPHES = /[\u2019\u2018\u02BC\u2032\uFF07`]/g;
// A word: letters, marks and digits, optionally joined by inner apostrophes (don't, o'neill); or a number
// with inner decimal/thousands separators (3.5, 1,000), which must not be split into two terms.
const TOKEN = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{M}\p{N}]+(?:'[\p{L}\p{M}\p{N}]+)*/gu;
// Scripts written without spaces between words: indexed as overlapping character bigrams, as Lucene's
// CJKAnalyzer does, so that a query matches inside a run of characters.
// Script_Extensions, not Script: the prolonged sound mark "ー" and iteration marks belong to Common.
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
const CJK_RUNS = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+|[^\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]+/gu;
const LATIN_WORD = /^[\p{Script=Latin}\p{M}']+$/u;
const MARKS = /\p{M}/gu;
const DIGITS_ONLY_NUMBER = /^\p{N}+(?:[.,]\p{N}+)+$/u;

/** Every pattern the encoder runs over user text, for the ReDoS check of its spec (each must be linear). */
export const KEYWORD_ENCODER_PATTERNS: Readonly<Record<string, RegExp>> = {
  APOSTROPHES,
  TOKEN,
  CJK,
  CJK_RUNS,
  LATIN_WORD,
  MARKS,
  DIGITS_ONLY_NUMBER,
};

/**
 * Stable 32-bit FNV-1a hash (Fowler, Noll, Vo) of the UTF-8 bytes of `text`, as an unsigned integer.
 * Used as the term id of sparse vectors: same value in every process and on every platform.
 * Distinct terms can collide (about 1 pair in 2^32); a collision merges two terms, which only
 * slightly blurs their BM25 weight.
 */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    let code = text.codePointAt(i)!;
    if (code > 0xffff) i++; // surrogate pair consumed
    // Inline UTF-8 encoding, so no Buffer per term.
    if (code < 0x80) {
      hash = Math.imul(hash ^ code, 0x01000193);
    } else if (code < 0x800) {
      hash = Math.imul(hash ^ (0xc0 | (code >> 6)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), 0x01000193);
    } else if (code < 0x10000) {
      if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd; // lone surrogate: as TextEncoder does
      hash = Math.imul(hash ^ (0xe0 | (code >> 12)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), 0x01000193);
    } else {
      hash = Math.imul(hash ^ (0xf0 | (code >> 18)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | ((code >> 12) & 0x3f)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | ((code >> 6) & 0x3f)), 0x01000193);
      hash = Math.imul(hash ^ (0x80 | (code & 0x3f)), 0x01000193);
    }
  }
  return hash >>> 0;
}

/**
 * Builds a keyword encoder for BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework:
 * BM25 and Beyond"). Steps, in order:
 * 1. Unicode NFKC, lower case, apostrophe look-alikes → `'`;
 * 2. tokens: runs of letters/marks/digits with inner apostrophes; numbers keep inner `.`/`,`
 *    ("3.5", "1,000" → "1000"); any other punctuation or symbol separates tokens;
 *    Han/Kana runs become overlapping character bigrams;
 * 3. stop words dropped (before removing the possessive, so "it's" is dropped but "anna's" is kept);
 * 4. possessive `'s` removed, remaining apostrophes removed ("o'neill" → "oneill");
 * 5. Latin-script words: diacritics folded ("café" → "cafe", "ß" → "ss") and Porter2-stemmed;
 * 6. term id = {@link fnv1a32} of the stem.
 * Deterministic: no locale-dependent step (lower-casing uses the root locale). Linear in the text's length:
 * every pattern is checked linear ({@link KEYWORD_ENCODER_PATTERNS}) and the stemmer sees only tokens of
 * at most 64 characters. Keeps no state between texts.
 */
export function createKeywordEncoder(options: KeywordEncoderOptions = DEFAULT_KEYWORD_OPTIONS): KeywordEncoder {
  const stop = new Set(options.stopWords.map((w) => w.normalize('NFKC').toLowerCase().replace(APOSTROPHES, "'")));
  const MAX_TOKEN_LENGTH = 64;

  /**
   * Stem of one lower-cased token, or null when it is a stop word or longer than any word (hashes, base64,
   * runs). `memo` is the caller's memo for one text: Porter2 is regex-heavy and words repeat within a text.
   * It is not kept across texts: a memo shared by every tenant would answer a word anyone had written a
   * little faster (a timing oracle), and across texts it saves little (about 1 ms per 50 KB of prose).
   */
  function stemOf(token: string, memo: Map<string, string | null>): string | null {
    // The stemmer is slow on pathological tokens (20 000 letters: seconds); no word is this long.
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const cached = memo.get(token);
    if (cached !== undefined) return cached;
    let result: string | null;
    if (stop.has(token)) {
      result = null;
    } else if (DIGITS_ONLY_NUMBER.test(token)) {
      // "1,000" and "1000" are the same number; "3.5" keeps its point.
      result = token.replace(/,/g, '');
    } else {
      let word = token.endsWith("'s") ? token.slice(0, -2) : token;
      word = word.replace(/'/g, '');
      if (word.length === 0 || stop.has(word)) {
        result = null;
      } else if (LATIN_WORD.test(word)) {
        word = word.normalize('NFKD').replace(MARKS, '').replace(/ß/g, 'ss');
        result = options.stem ? porter2(word) : word;
        if (result.length === 0) result = word;
      } else {
        result = word;
      }
    }
    memo.set(token, result);
    return result;
  }

  function terms(text: string): string[] {
    const out: string[] = [];
    const memo = new Map<string, string | null>();
    const normalised = text.normalize('NFKC').toLowerCase().replace(APOSTROPHES, "'");
    for (const match of normalised.matchAll(TOKEN)) {
      const token = match[0];
      if (CJK.test(token)) {
        for (const run of token.match(CJK_RUNS) ?? []) {
          if (!CJK.test(run)) {
            const stem = stemOf(run, memo);
            if (stem !== null) out.push(stem);
            continue;
          }
          const chars = Array.from(run);
          if (chars.length === 1) out.push(chars[0]);
          for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
        }
        continue;
      }
      const stem = stemOf(token, memo);
      if (stem !== null) out.push(stem);
    }
    return out;
  }

  function toSparse(termList: readonly string[], countEachOnce: boolean): SparseVector {
    const counts = new Map<number, number>();
    for (const term of termList) {
      const id = fnv1a32(term);
      counts.set(id, countEachOnce ? 1 : (counts.get(id) ?? 0) + 1);
    }
    const indices = [...counts.keys()].sort((a, b) => a - b);
    return { indices, values: indices.map((id) => counts.get(id)!) };
  }

  return {
    encodeKeywords: (text) => toSparse(terms(text), false),
    encodeQuery: (text) => toSparse(terms(text), true),
    terms,
  };
}

const defaultEncoder = createKeywordEncoder();

/**
 * Sparse BM25 vector of a memory's content with {@link DEFAULT_KEYWORD_OPTIONS}: `indices` are the
 * FNV-1a ids of the stems (unsigned 32-bit, sorted ascending, unique), `values` their term frequencies.
 * Empty vectors (no indexable word) are valid. Never throws.
 */
export function encodeKeywords(text: string): SparseVector {
  return defaultEncoder.encodeKeywords(text);
}

/**
 * Sparse vector of a recall query: same terms as {@link encodeKeywords}, but each distinct term counts
 * once (value 1). Why: a question that repeats a word does not mean that word matters more, and BM25
 * scores with query-term weights (the index multiplies each term's score by its value).
 */
export function encodeQuery(text: string): SparseVector {
  return defaultEncoder.encodeQuery(text);
}
