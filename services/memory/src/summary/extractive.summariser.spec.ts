import { regexComplexityProblem } from '@agent-memory/testing';
import {
  ExtractiveSummariser,
  leadingWindow,
  longestTokenLength,
  MAX_WINK_OOV_LEXEMES,
  MAX_WINK_TOKEN_CHARS,
  sharedWinkNlp,
  SUMMARY_WINDOW_CHARS,
  truncateAtWord,
  winkOutOfVocabularyLexemes,
} from './extractive.summariser';

const MEETING = [
  'The quarterly planning meeting ran long.',
  'Alice presented the new billing architecture, which moves invoicing to an event-driven pipeline.',
  'Bob asked about costs.',
  'The team agreed that the billing migration will start on March 3 and must finish before the audit.',
  'Lunch was pizza.',
  'Carol will own the migration runbook and report weekly on the billing migration.',
];

describe('ExtractiveSummariser', () => {
  const summariser = new ExtractiveSummariser();

  it('returns short content unchanged apart from collapsed whitespace', async () => {
    await expect(summariser.summarise('The user prefers dark mode.')).resolves.toBe('The user prefers dark mode.');
    await expect(summariser.summarise('  Line one.\n\n\tLine   two.  ')).resolves.toBe('Line one. Line two.');
    const exactly280 = 'a'.repeat(280);
    await expect(summariser.summarise(exactly280)).resolves.toBe(exactly280);
  });

  it('bounds long content by maxChars and keeps whole sentences in their original order', async () => {
    const content = MEETING.join(' ');
    expect(content.length).toBeGreaterThan(280);
    for (const maxChars of [280, 200, 120]) {
      const summary = await summariser.summarise(content, maxChars);
      expect(summary.length).toBeLessThanOrEqual(maxChars);
      const picked = MEETING.filter((s) => summary.includes(s));
      expect(picked.length).toBeGreaterThan(0);
      expect(summary).toBe(picked.join(' '));
    }
  });

  it('picks the sentence about the recurring topic, not the filler', async () => {
    const summary = await summariser.summarise(MEETING.join(' '), 120);
    expect(summary).toBe('Carol will own the migration runbook and report weekly on the billing migration.');
    const longer = await summariser.summarise(MEETING.join(' '));
    expect(longer).toContain('billing migration will start on March 3');
    expect(longer).not.toContain('Lunch was pizza.');
  });

  it('picks the central sentence of a conversation log', async () => {
    const content =
      'We talked about many things today. The weather was nice. The user said that her daughter Mia starts ' +
      'university in Edinburgh in September and she is worried about paying the tuition. She asked me to ' +
      'remind her about the tuition deadline for Edinburgh. Then we chatted about films. She likes old westerns.';
    const summary = await summariser.summarise(content);
    expect(summary).toBe(
      'The user said that her daughter Mia starts university in Edinburgh in September and she is worried ' +
        'about paying the tuition. She asked me to remind her about the tuition deadline for Edinburgh.',
    );
    // Too long for 100 characters: the best sentence is cut rather than swapped for small talk.
    const short = await summariser.summarise(content, 100);
    expect(short).toMatch(/^The user said that her daughter Mia starts university in Edinburgh .*…$/);
  });

  it('cuts a single over-long sentence at a word boundary with an ellipsis', async () => {
    const sentence = `The migration plan covers ${Array.from({ length: 60 }, (_, i) => `service${i}`).join(' ')} and more`;
    const summary = await summariser.summarise(sentence, 100);
    expect(summary.length).toBeLessThanOrEqual(100);
    expect(summary.endsWith('…')).toBe(true);
    const words = summary.slice(0, -1).split(' ');
    // Every word is whole: it appears as a word of the original.
    expect(words.every((w) => sentence.split(' ').includes(w))).toBe(true);
  });

  it('never returns an empty string for non-blank content', async () => {
    const cases = ['x', '.', '!!!', '😀'.repeat(200), 'a'.repeat(5_000), '. . . . '.repeat(100), 'Ünïcödé '.repeat(80)];
    for (const content of cases) {
      for (const maxChars of [1, 2, 10, 280]) {
        const summary = await summariser.summarise(content, maxChars);
        expect(summary.length).toBeGreaterThan(0);
        expect(summary.length).toBeLessThanOrEqual(maxChars);
        expect(summary).not.toMatch(/[\uD800-\uDBFF]$/); // no split surrogate pair
      }
    }
    await expect(summariser.summarise(' \n ')).resolves.toBe('');
  });

  it('handles a 50 KB memory quickly', async () => {
    const content = MEETING.join(' ').repeat(150);
    const started = Date.now();
    const summary = await summariser.summarise(content);
    expect(summary.length).toBeLessThanOrEqual(280);
    expect(summary.length).toBeGreaterThan(50);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('does not hand an overlong token to wink-nlp (its regexes backtrack quadratically; a 50 KB word took ~4 s)', async () => {
    expect(longestTokenLength('ab  cdef\tg')).toBe(4);
    expect(longestTokenLength('')).toBe(0);
    const rankedByWink = jest.spyOn(sharedWinkNlp(), 'readDoc');
    try {
      const word = 'a'.repeat(50 * 1024);
      await expect(summariser.summarise(word)).resolves.toBe('a'.repeat(279) + '…');
      await expect(summariser.summarise(`Long key follows. ${'k'.repeat(MAX_WINK_TOKEN_CHARS + 1)} ${MEETING.join(' ')}`)).resolves.toMatch(/^Long key follows\./);
      expect(rankedByWink).not.toHaveBeenCalled();
      await summariser.summarise(`${'k'.repeat(MAX_WINK_TOKEN_CHARS)} ${MEETING.join(' ')}`);
      expect(rankedByWink).toHaveBeenCalledTimes(1);
    } finally {
      rankedByWink.mockRestore();
    }
  });

  it('rejects a maxChars that is not a positive integer', async () => {
    await expect(summariser.summarise('text', 0)).rejects.toThrow(RangeError);
    await expect(summariser.summarise('text', 2.5)).rejects.toThrow(RangeError);
  });
});

describe('truncateAtWord', () => {
  it.each([
    ['hello world again', 12, 'hello world…'],
    ['hello world again', 11, 'hello…'],
    ['hello, world', 8, 'hello…'],
    ['abcdefghij', 5, 'abcd…'],
    ['short', 10, 'short'],
  ])('%j within %d → %j', (text, max, expected) => {
    expect(truncateAtWord(text, max)).toBe(expected);
  });
});

/** Memory content limit (bytes of UTF-8); every hostile shape below is about this size. */
const CONTENT_BYTES = 50 * 1024;
const fill = (unit: string, bytes = CONTENT_BYTES) => unit.repeat(Math.floor(bytes / Buffer.byteLength(unit)));

/** `count` distinct pseudo-words of 8 letters, none in an English lexicon. */
function distinctWords(count: number, seed: number): string {
  let state = seed;
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    let word = '';
    for (let j = 0; j < 8; j++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      word += String.fromCharCode(97 + ((state >>> 16) % 26));
    }
    words.push(word);
  }
  return words.join(' ');
}

describe('ExtractiveSummariser on hostile input (bounded work, sane results)', () => {
  const summariser = new ExtractiveSummariser();

  it('hands wink-nlp at most SUMMARY_WINDOW_CHARS characters of a 50 KB memory', async () => {
    const readDoc = jest.spyOn(sharedWinkNlp(), 'readDoc');
    try {
      await summariser.summarise(fill(`${MEETING.join(' ')} `));
      expect(readDoc).toHaveBeenCalledTimes(1);
      expect(SUMMARY_WINDOW_CHARS).toBeLessThanOrEqual(10_000);
      expect((readDoc.mock.calls[0][0]).length).toBeLessThanOrEqual(SUMMARY_WINDOW_CHARS);
    } finally {
      readDoc.mockRestore();
    }
  });

  it('keeps the lexicon of the shared wink pipeline bounded however many distinct words it reads', async () => {
    const first = sharedWinkNlp();
    // A window of new 8-letter words per summary, until 1.5 × the bound has gone through wink.
    const perSummary = Math.floor(SUMMARY_WINDOW_CHARS / 9);
    for (let i = 0; i < Math.ceil((1.5 * MAX_WINK_OOV_LEXEMES) / perSummary); i++) await summariser.summarise(distinctWords(perSummary, i + 1));
    expect(winkOutOfVocabularyLexemes()).toBeGreaterThan(0);
    expect(winkOutOfVocabularyLexemes()).toBeLessThanOrEqual(MAX_WINK_OOV_LEXEMES + 2 * SUMMARY_WINDOW_CHARS);
    expect(sharedWinkNlp()).not.toBe(first); // rebuilt with a fresh lexicon
  });

  it.each<[string, string, RegExp | string]>([
    ['50 KB of newlines after a word', 'x' + fill('\n', CONTENT_BYTES - 1), 'x'],
    ['50 KB of CRLF after a word', 'x' + fill('\r\n', CONTENT_BYTES - 1), 'x'],
    ['50 KB of spaces around two words', 'x' + fill(' ', CONTENT_BYTES - 2) + 'y', 'x y'],
    ['mixed Unicode whitespace', 'x' + fill(' \t\u00a0\u2028\u3000\r\n', CONTENT_BYTES - 1), 'x'],
    ['one 50 KB token', fill('a'), 'a'.repeat(279) + '…'],
    ['50 KB of emoji', fill('😀'), /^(😀)+…$/u],
    ['50 KB of emoji separated by spaces', fill('😀 '), /^(😀 )+😀…$/u],
    ['50 KB of CJK', fill('漢字かなカナ。'), /^[漢字かなカナ。]+…?$/u],
    ['50 KB of punctuation', fill('.,;:!?-()'), /^[.,;:!?\-()]+…$/],
    ['punctuation runs between words', fill('word !!!??? ... '), /^(word|[!?.]+)( (word|[!?.]+))*$/],
    ['numbered lines', fill('1. \n'), /^1\.( 1\.)*$/],
    ['"first " repeated', fill('first '), /^first( first)*…?$/],
    ['a letter under 50 KB of combining marks', 'a' + fill('\u0301', CONTENT_BYTES - 1), /^a\u0301+…$/u],
    ['prose', fill(`${MEETING.join(' ')} `), /billing migration/],
  ])('summarises %s sanely', async (_name, content, expected) => {
    const summary = await summariser.summarise(content);
    expect(summary.length).toBeGreaterThan(0);
    expect(summary.length).toBeLessThanOrEqual(280);
    expect(summary).not.toMatch(/[\uD800-\uDBFF]$/);
    if (typeof expected === 'string') expect(summary).toBe(expected);
    else expect(summary).toMatch(expected);
  });

  it('cuts the window after a sentence, else at a space, never inside a surrogate pair', () => {
    expect(leadingWindow('short text', 100)).toBe('short text');
    expect(leadingWindow('One two. Three four five', 15)).toBe('One two.');
    expect(leadingWindow('One two. Three four five', 20)).toBe('One two. Three four');
    expect(leadingWindow('one two three four five', 16)).toBe('one two three');
    expect(leadingWindow('abcdefghij', 4)).toBe('abcd');
    expect(leadingWindow('abc😀def', 4)).toBe('abc');
  });

  it('trims a cut summary without a super-linear pattern', () => {
    expect(truncateAtWord(`word${' ,;:'.repeat(5_000)}x`, 200)).toBe('word…');
    // The former tail pattern, for the record: recheck finds it quadratic.
    expect(regexComplexityProblem(/[\s,;:\-–—(]+$/u)).toMatch(/polynomial/);
  });
});
