import { decodeListCursor, encodeListCursor, ListCursorSchema, PathPrefixSchema } from './list-cursor';
import { ListFilesQuerySchema } from './files';
import { ListMemoriesQuerySchema } from './memories';

describe('list cursor (docs/api.md, "Pagination")', () => {
  it.each(['fact/mem_01', 'notes/ä ü/日本語.md', '😀/x', 'a'.repeat(256)])('round-trips %j', (path) => {
    const cursor = encodeListCursor(path);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeListCursor(cursor)).toEqual({ ok: true, after: path });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['padding', `${encodeListCursor('a')}=`],
    ['non-canonical base64url (trailing bits)', 'YWZ0ZXI6YR'],
    ['no tag', Buffer.from('a/b').toString('base64url')],
    ['invalid UTF-8', Buffer.concat([Buffer.from('after:'), Buffer.from([0xff, 0xfe])]).toString('base64url')],
    ['invalid path', Buffer.from('after:../x').toString('base64url')],
    ['not NFC', Buffer.from('after:e\u0301').toString('base64url')],
    ['empty path', Buffer.from('after:').toString('base64url')],
    ['too long', 'A'.repeat(5000)],
    ['garbage', 'garbage!'],
  ])('refuses %s', (_name, cursor) => {
    expect(decodeListCursor(cursor).ok).toBe(false);
    expect(ListCursorSchema.safeParse(cursor).success).toBe(false);
  });

  it('parses the list queries: defaults, cursor to its path, bad values refused', () => {
    expect(ListMemoriesQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(ListMemoriesQuerySchema.parse({ limit: '200', type: 'fact', cursor: encodeListCursor('fact/x') })).toEqual({ limit: 200, type: 'fact', cursor: 'fact/x' });
    expect(ListMemoriesQuerySchema.safeParse({ limit: '201' }).success).toBe(false);
    expect(ListMemoriesQuerySchema.safeParse({ type: 'note' }).success).toBe(false);
    expect(ListMemoriesQuerySchema.safeParse({ offset: '1' }).success).toBe(false);
    expect(ListFilesQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(ListFilesQuerySchema.parse({ limit: '1000', prefix: 'notes/' })).toEqual({ limit: 1000, prefix: 'notes/' });
    expect(ListFilesQuerySchema.safeParse({ limit: '1001' }).success).toBe(false);
    expect(ListFilesQuerySchema.safeParse({ cursor: 'x' }).success).toBe(false);
  });

  it.each([
    ['notes/', true],
    ['notes/2026-', true],
    ['.', true],
    ['', false],
    ['/abs', false],
    ['a//', false],
    ['../', false],
    ['a\u0000', false],
    ['a'.repeat(256), false],
  ])('prefix %j → ok=%s', (prefix, ok) => {
    expect(PathPrefixSchema.safeParse(prefix).success).toBe(ok);
  });
});
