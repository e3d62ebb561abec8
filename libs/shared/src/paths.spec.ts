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

  it('refuses an overlong path before normalising it (bounded work for a 1 MB path)', () => {
    const normalize = jest.spyOn(String.prototype, 'normalize');
    try {
      for (const unit of ['a', 'e\u0301', '\u0301', '😀', 'a/']) {
        const path = unit.repeat(Math.floor((1024 * 1024) / unit.length));
        expect(checkStoragePath(path)).toEqual({ ok: false, message: 'must be at most 256 characters' });
      }
      expect(normalize).not.toHaveBeenCalled();
    } finally {
      normalize.mockRestore();
    }
    // The longest decomposed spelling of a valid path still passes: 256 Hangul syllables as L+V+T jamo.
    const jamo = '\u1100\u1161\u11A8'.repeat(256);
    expect(checkStoragePath(jamo)).toEqual({ ok: true, path: '\uAC01'.repeat(256) });
  });

  it('normalises to NFC', () => {
    const decomposed = 'cafe\u0301';
    expect(checkStoragePath(decomposed)).toEqual({ ok: true, path: 'caf\u00e9' });
  });
});
