import { regexComplexityProblems } from '@agent-memory/testing';
import { denseQueryText, QUERY_REWRITE_PATTERNS } from './query-rewrite';

describe('denseQueryText', () => {
  it('turns an English question into the statement it asks about', () => {
    expect(denseQueryText('When did Melanie paint a sunrise?')).toBe('Melanie paint a sunrise');
    expect(denseQueryText("What is Caroline's identity?")).toBe("Caroline's identity");
    expect(denseQueryText('How long has Caroline had her current group of friends for?')).toBe('Caroline had her current group of friends for');
    expect(denseQueryText('Where   does the user live ?')).toBe('the user live');
  });

  it('keeps statements and questions without a leading interrogative, minus question marks', () => {
    expect(denseQueryText('allergies of the user')).toBe('allergies of the user');
    expect(denseQueryText('Is Caroline religious?')).toBe('Is Caroline religious');
    expect(denseQueryText('¿Dónde vive Ana?')).toBe('Dónde vive Ana');
    expect(denseQueryText('东京在哪里？')).toBe('东京在哪里');
  });

  it('does not strip words that only start like interrogatives', () => {
    expect(denseQueryText('whatever happened at the wedding')).toBe('whatever happened at the wedding');
    expect(denseQueryText('However, the trip was fun')).toBe('However, the trip was fun');
  });

  it('never returns an empty text for a non-empty query', () => {
    expect(denseQueryText('What?')).toBe('What');
    expect(denseQueryText('Why did?')).toBe('Why did');
    expect(denseQueryText('?')).toBe('?');
  });
});

describe('denseQueryText on hostile queries (1,000 characters, the query limit)', () => {
  const fill = (unit: string) => unit.repeat(Math.floor(1000 / unit.length));

  it('runs only patterns that recheck proves linear', () => {
    expect(regexComplexityProblems(QUERY_REWRITE_PATTERNS)).toEqual([]);
  });

  it.each<[string, string, string]>([
    ['newlines', 'where' + fill('\n') + 'x', 'x'],
    ['CRLF', 'x' + fill('\r\n') + 'y', 'x y'],
    ['spaces after an interrogative', 'how long did' + fill(' ') + 'it take', 'it take'],
    ['question marks', fill('?'), fill('?')],
    ['interrogatives', fill('how long did '), fill('how long did ').trim().replace(/^how long did /, '')],
    ['one long token', fill('a'), fill('a')],
    ['emoji', fill('😀'), fill('😀')],
    ['CJK with full-width question marks', fill('東京？'), fill('東京 ').trim().replace(/ /g, ' ')],
  ])('rewrites a query of %s sanely', (_name, query, expected) => {
    expect(denseQueryText(query)).toBe(expected);
  });
});
