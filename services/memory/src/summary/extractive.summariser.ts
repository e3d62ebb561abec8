import winkNLP, { type ItemSentence, type ItemToken, type ItsFunction, type WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import type { Summariser } from './summariser.port';

/** Default summary bound of the port. */
const DEFAULT_MAX_CHARS = 280;
/**
 * Weight of wink's importance next to lexical centrality (both 0–1). Wink's score counts repeated
 * part-of-speech 4-grams, so in short memories it often rates one sentence 1 and the rest 0 regardless of
 * content; centrality (shared content words) carries more of the decision.
 */
const WINK_IMPORTANCE_WEIGHT = 0.5;
const ELLIPSIS = '…';
/**
 * Longest run of non-whitespace characters handed to wink-nlp. Its English model tests every token with
 * regular expressions that backtrack quadratically in the token's length (`isAbbrev`: `/[a-z].*\.$/i`), so
 * one 50 KB word took ~4 s of CPU. No English word or ordinary URL comes near this bound.
 */
export const MAX_WINK_TOKEN_CHARS = 256;

/**
 * Summaries are drawn from the first this many characters of the whitespace-collapsed content (UTF-16
 * code units; about 40 sentences of prose). Why: wink-nlp's cost grows with the number of tokens (a
 * 50 KB memory of numbered lines took ~200 ms of CPU on the event loop, the first 8,000 characters of it
 * still ~45 ms, these 4,000 ~25 ms), and the summary is 280 characters that say what the memory is
 * about, which its lead says (docs/api.md, "Memories").
 */
export const SUMMARY_WINDOW_CHARS = 4_000;

/**
 * Most out-of-vocabulary lexemes the shared wink pipeline may hold before it is rebuilt. wink-nlp adds
 * every word it has not seen to its model's lexicon and never removes it (~150 bytes each): without a
 * bound, memories of distinct words would grow the heap forever and keep every tenant's vocabulary in
 * one process-wide table. 100,000 lexemes ≈ 15 MB; a rebuild takes ~70 ms of CPU.
 */
export const MAX_WINK_OOV_LEXEMES = 100_000;

/** The lexeme table of a wink model (`features.lexeme`): its size now and when the model was loaded. */
interface LexemeTable {
  list: unknown[];
  intrinsicSize: number;
}

let sharedNlp: WinkMethods | undefined;
let sharedLexemes: LexemeTable | undefined;

/** Words wink-nlp has added to the shared pipeline's lexicon since it was built (0 before the first build). */
export function winkOutOfVocabularyLexemes(): number {
  return sharedLexemes ? sharedLexemes.list.length - sharedLexemes.intrinsicSize : 0;
}

/**
 * The wink pipeline, created on first use and shared by the process (~70 ms of CPU and ~30 MB to build),
 * and built anew (a fresh lexicon) once {@link MAX_WINK_OOV_LEXEMES} unknown words have accumulated.
 */
export function sharedWinkNlp(): WinkMethods {
  if (!sharedNlp || winkOutOfVocabularyLexemes() > MAX_WINK_OOV_LEXEMES) {
    // `core()` loads a fresh copy of the lexicon on every call; keep a handle on it to watch its growth.
    // (wink's typings leave the model's parts `unknown`.)
    const core = model.core as () => unknown;
    sharedNlp = winkNLP({
      ...model,
      core: () => {
        const loaded = core();
        sharedLexemes = (loaded as { features: { lexeme: LexemeTable } }).features.lexeme;
        return loaded;
      },
    });
  }
  return sharedNlp;
}

/** A sentence of the content with its rank score. */
interface RankedSentence {
  index: number;
  text: string;
  score: number;
}

/**
 * Collapses every run of whitespace (spaces, tabs, newlines) to one space and trims the ends.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Cuts `text` to at most `maxChars` UTF-16 code units ending in "…", at the last word boundary that fits
 * (a hard cut when the first word alone is too long). Never splits a surrogate pair; trailing punctuation
 * such as "," or ":" is dropped before the ellipsis. Returns `text` unchanged when it already fits.
 */
export function truncateAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const room = maxChars - ELLIPSIS.length;
  if (room <= 0) return ELLIPSIS.slice(0, maxChars);
  let cut = text.slice(0, room);
  // Cut at a space unless the text has a space right at the cut point anyway.
  if (!/\s/.test(text[room])) {
    const lastSpace = cut.lastIndexOf(' ');
    if (lastSpace > 0) cut = cut.slice(0, lastSpace);
  }
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  cut = trimTrailing(cut, TRAILING_PUNCTUATION);
  return (cut.length > 0 ? cut : text.slice(0, room).replace(/[\uD800-\uDBFF]$/, '')) + ELLIPSIS;
}

/** One character that may not end a cut summary (before the ellipsis). */
const TRAILING_PUNCTUATION = /[\s,;:\-–—(]/;

/**
 * `text` without its trailing characters matching `char` (one BMP character class). A loop, not
 * `/[...]+$/`: that pattern retries from every position of a long run and is quadratic in its length.
 */
function trimTrailing(text: string, char: RegExp): string {
  let end = text.length;
  while (end > 0 && char.test(text[end - 1])) end--;
  return text.slice(0, end);
}

/**
 * The lead of collapsed `text` within `maxChars` UTF-16 code units: cut after the last sentence end
 * (".", "!", "?" or "…" before a space) in the window's second half, else at its last space, else hard
 * (never inside a surrogate pair). Returns `text` when it fits. Linear in `maxChars`.
 */
export function leadingWindow(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let lastSpace = -1;
  for (let i = maxChars; i > maxChars / 2; i--) {
    if (text[i] !== ' ') continue;
    if (lastSpace < 0) lastSpace = i;
    if ('.!?…'.includes(text[i - 1])) return text.slice(0, i);
  }
  if (lastSpace > 0) return text.slice(0, lastSpace);
  const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1]) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/**
 * Splits collapsed text into sentences and scores them:
 * `WINK_IMPORTANCE_WEIGHT × importance + centrality`. `importance` is wink-nlp's `its.sentenceWiseImportance`
 * (0–1, frequency of part-of-speech 4-grams, after Lioma & Ounis "Examining the content load of part of
 * speech blocks for information retrieval", 2006). `centrality` (0–1) is our addition: the summed
 * document frequency of the sentence's content lemmas (stop words and punctuation dropped) beyond their
 * first use, divided by √(distinct lemmas), normalised by the maximum: a sentence that shares the text's
 * recurring topic words is central. Ties keep the earlier sentence first.
 */
function rankSentences(text: string): RankedSentence[] {
  const winkNlp = sharedWinkNlp();
  const its = winkNlp.its;
  // wink's typings declare `its.lemma` with an extra `addons` parameter that `ItsFunction` does not accept.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- wink's `its` helpers are plain selector functions that never use `this`
  const lemmaOf = its.lemma as unknown as ItsFunction<string>;
  const doc = winkNlp.readDoc(text);
  const sentenceLemmas: string[][] = [];
  const texts: string[] = [];
  doc.sentences().each((sentence: ItemSentence) => {
    texts.push(sentence.out());
    const lemmas: string[] = [];
    sentence.tokens().each((token: ItemToken) => {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- wink's `its` helpers are plain selector functions that never use `this`
      if (token.out(its.type) === 'word' && !token.out(its.stopWordFlag)) lemmas.push(String(token.out(lemmaOf)).toLowerCase());
    });
    sentenceLemmas.push(lemmas);
  });
  const documentFrequency = new Map<string, number>();
  for (const lemmas of sentenceLemmas) {
    for (const lemma of new Set(lemmas)) documentFrequency.set(lemma, (documentFrequency.get(lemma) ?? 0) + 1);
  }
  const centrality = sentenceLemmas.map((lemmas) => {
    const distinct = new Set(lemmas);
    if (distinct.size === 0) return 0;
    let shared = 0;
    for (const lemma of distinct) shared += documentFrequency.get(lemma)! - 1;
    return shared / Math.sqrt(distinct.size);
  });
  const maxCentrality = Math.max(...centrality, 0) || 1;
  const importance = new Array<number>(texts.length).fill(0);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- wink's `its` helpers are plain selector functions that never use `this`
  for (const { index, importance: value } of doc.out(its.sentenceWiseImportance) as { index: number; importance: number }[]) {
    importance[index] = value;
  }
  return texts.map((sentenceText, index) => ({
    index,
    text: collapseWhitespace(sentenceText),
    score: WINK_IMPORTANCE_WEIGHT * importance[index] + centrality[index] / maxCentrality,
  }));
}

/** Length of the longest run of non-whitespace characters in `text`, in UTF-16 code units (linear time). */
export function longestTokenLength(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // Space, tab, line feed, carriage return end a run (collapsed text has only spaces).
    run = c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d ? 0 : run + 1;
    if (run > longest) longest = run;
  }
  return longest;
}

/** Fallback when wink-nlp fails: split after ".", "!" or "?" and rank by position (first sentences first). */
function splitByPunctuation(text: string): RankedSentence[] {
  return text
    .split(/(?<=[.!?…])\s+/)
    .filter((s) => s.length > 0)
    .map((s, index) => ({ index, text: s, score: -index }));
}

/**
 * {@link Summariser} that extracts sentences with wink-nlp and its English lite model (no network, no
 * LLM). Whitespace runs are collapsed first; content that then fits in `maxChars` (default 280) is
 * returned as is. Longer content is cut to its lead ({@link leadingWindow}, {@link SUMMARY_WINDOW_CHARS}),
 * split into sentences, ranked (see `rankSentences`: wink's
 * sentence-wise importance plus lexical centrality; by position if wink throws, if every score is 0, or
 * if a token is longer than MAX_WINK_TOKEN_CHARS, which wink would take quadratic time over), and
 * the best sentences are taken greedily in rank order, skipping any that no longer fit and any scoring 0
 * while others score more, then printed in their original order joined by one space. When the best
 * sentence alone is longer than `maxChars`, it is cut at a word boundary with "…".
 *
 * Lengths are UTF-16 code units (`string.length`), so the result also fits any code-point bound.
 * Never returns '' for content with a non-whitespace character; whitespace-only content gives ''.
 * Throws a RangeError when `maxChars` is not a positive integer. CPU time is linear in the content's
 * length (collapsing whitespace) plus a bounded amount for the window.
 */
export class ExtractiveSummariser implements Summariser {
  async summarise(content: string, maxChars: number = DEFAULT_MAX_CHARS): Promise<string> {
    if (!Number.isInteger(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be a positive integer, got ${maxChars}`);
    const collapsed = collapseWhitespace(content);
    if (collapsed.length <= maxChars) return collapsed;
    const text = leadingWindow(collapsed, SUMMARY_WINDOW_CHARS);

    let sentences: RankedSentence[];
    try {
      // An overlong token would cost wink quadratic time (MAX_WINK_TOKEN_CHARS): rank by position instead.
      sentences = longestTokenLength(text) > MAX_WINK_TOKEN_CHARS ? splitByPunctuation(text) : rankSentences(text);
    } catch {
      sentences = splitByPunctuation(text);
    }
    sentences = sentences.filter((s) => s.text.length > 0);
    if (sentences.length === 0) return truncateAtWord(text, maxChars);

    const ranked = [...sentences].sort((a, b) => b.score - a.score || a.index - b.index);
    // The most important sentence is kept even when it must be cut, rather than replaced by a minor one.
    if (ranked[0].text.length > maxChars) return truncateAtWord(ranked[0].text, maxChars);

    // Sentences with no score share nothing with the rest ("Lunch was pizza."): filler, unless all are.
    const candidates = ranked[0].score > 0 ? ranked.filter((s) => s.score > 0) : ranked;
    const chosen: RankedSentence[] = [];
    let length = -1; // joining n sentences adds n - 1 spaces
    for (const sentence of candidates) {
      if (length + 1 + sentence.text.length <= maxChars) {
        chosen.push(sentence);
        length += 1 + sentence.text.length;
      }
    }
    return chosen
      .sort((a, b) => a.index - b.index)
      .map((s) => s.text)
      .join(' ');
  }
}
