import { checkStoragePath } from './paths';

describe('checkStoragePath', () => {
  it.each([
    ['notes/a.md', true],
    ['a'.repeat(256), true],
    ['a'.repeat(257), false],
    ['/abs', false],
    ['a//b', false],
    ['a/../b', false],
    ['./a', false],
    ['a/', false],
    ['a\u0000b', false],
    ['a\nb', false],
    ['a\\b', false],
    ['', false],
  ])('%j → ok=%s', (path, ok) => {
    expect(checkStoragePath(path).ok).toBe(ok);
  });

  it('normalises to NFC', () => {
    const decomposed = 'cafe\u0301';
    expect(checkStoragePath(decomposed)).toEqual({ ok: true, path: 'caf\u00e9' });
  });
});
