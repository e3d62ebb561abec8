import { regexComplexityProblem } from '@agent-memory/testing';
import { AUTHORIZATION_PATTERN, parseAuthorization } from './authorization-header';

/** Node's default limit for the request line and headers together. */
const HEADER_BYTES = 16 * 1024;

describe('parseAuthorization on hostile headers', () => {
  it('matches with a pattern that recheck proves linear', () => {
    expect(regexComplexityProblem(AUTHORIZATION_PATTERN)).toBeNull();
  });

  it.each<[string, string, ReturnType<typeof parseAuthorization>]>([
    ['a 16 KB scheme', 'B'.repeat(HEADER_BYTES), null],
    ['16 KB of spaces after the scheme', `Bearer${' '.repeat(HEADER_BYTES)}x`, { scheme: 'Bearer', credential: 'x' }],
    ['a 16 KB credential', `Bearer ${'k'.repeat(HEADER_BYTES)}`, null],
    ['spaces inside the credential', `Bearer ${'k '.repeat(HEADER_BYTES / 2)}`, null],
    ['tabs and newlines', `Bearer\t${'\n'.repeat(HEADER_BYTES)}`, null],
    ['non-ASCII', `Signature ${'😀'.repeat(HEADER_BYTES / 4)}`, null],
    ['a 1,024-character credential', `payment ${'p'.repeat(1024)}`, { scheme: 'Payment', credential: 'p'.repeat(1024) }],
  ])('answers %s sanely', (_name, header, expected) => {
    expect(parseAuthorization(header)).toEqual(expected);
  });
});
