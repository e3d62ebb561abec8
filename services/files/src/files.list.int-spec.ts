import 'reflect-metadata';
import { decodeListCursor, type FileInfo, newId } from '@agent-memory/shared';
import { type FilesReplica, startFilesReplicas } from './files-replicas.fixture';
import { ListFilesUseCase } from './use-cases/list-files.use-case';

/**
 * List files (docs/api.md, "List files"): keyset pages of a record's text files in path order, on the
 * machine's PostgreSQL through the Prisma adapter. Every file is listed exactly once across pages, also
 * while files are written between pages; `nextCursor` is null exactly after the last file; `prefix` is a
 * literal prefix (LIKE wildcards in it match themselves); raw blobs and other records are not listed.
 */
describe('list files, keyset pages over PostgreSQL', () => {
  let replica: FilesReplica;
  let list: ListFilesUseCase;
  let close: () => Promise<void>;
  const agentId = newId('agent');

  beforeAll(async () => {
    let replicas: FilesReplica[];
    ({ replicas, close } = await startFilesReplicas(1, 'before'));
    replica = replicas[0]!;
    list = new ListFilesUseCase(replica.files.repository);
  }, 60_000);
  afterAll(() => close?.());

  const write = (recordId: string, path: string, content = `content of ${path}\n`) => replica.files.write.execute({ agentId, recordId, body: { path, content } });
  /** Every page of the listing, with `between(pageNumber)` run after each page. */
  async function listAll(recordId: string, limit: number, options: { prefix?: string; between?: (page: number) => Promise<void> } = {}) {
    const pages: FileInfo[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list.execute({ agentId, recordId, limit, after, prefix: options.prefix });
      pages.push(page.files);
      expect(page.files.length).toBeLessThanOrEqual(limit);
      if (page.nextCursor === null) return pages;
      const decoded = decodeListCursor(page.nextCursor);
      if (!decoded.ok) throw new Error('bad cursor');
      expect(decoded.after).toBe(page.files.at(-1)!.path);
      after = decoded.after;
      await options.between?.(pages.length);
    }
  }

  it('lists 250 files in pages of 100 in path order, each once, with their metadata; the last page has no cursor', async () => {
    const recordId = newId('record');
    const paths = Array.from({ length: 250 }, (_, i) => `notes/${String(i).padStart(3, '0')}.md`);
    for (const path of paths) await write(recordId, path);
    await write(recordId, 'notes/ü.md', 'größer\n');
    await replica.files.rawPut.execute({ agentId, recordId, body: { path: 'raw/blob.bin', content: Buffer.from('x').toString('base64') } });
    await write(newId('record'), 'notes/000.md');

    const pages = await listAll(recordId, 100);
    expect(pages.map((p) => p.length)).toEqual([100, 100, 51]);
    const listed = pages.flat();
    expect(listed.map((f) => f.path)).toEqual([...paths, 'notes/ü.md']);
    const umlaut = listed.at(-1)!;
    const written = await write(recordId, 'notes/ü.md', 'größer\n');
    expect(umlaut).toEqual({ path: 'notes/ü.md', size: Buffer.byteLength('größer\n'), contentHash: written.result.contentHash, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(new Date(umlaut.createdAt).toISOString()).toBe(umlaut.createdAt);
  }, 120_000);

  it('answers exactly `limit` files without a cursor when nothing follows, and an empty record with none', async () => {
    const recordId = newId('record');
    for (let i = 0; i < 5; i++) await write(recordId, `f${i}`);
    expect(await list.execute({ agentId, recordId, limit: 5 })).toMatchObject({ nextCursor: null });
    expect((await list.execute({ agentId, recordId, limit: 5 })).files).toHaveLength(5);
    expect(await list.execute({ agentId, recordId: newId('record'), limit: 5 })).toEqual({ files: [], nextCursor: null });
  }, 60_000);

  it('lists every file that existed throughout exactly once while files are written and replaced between pages', async () => {
    const recordId = newId('record');
    const initial = Array.from({ length: 60 }, (_, i) => `m/${String(i * 10).padStart(4, '0')}`);
    for (const path of initial) await write(recordId, path);
    const added: string[] = [];
    const pages = await listAll(recordId, 7, {
      between: async (n) => {
        // before and after the cursor, and a replace of an already listed file
        const early = `m/${String(n).padStart(4, '0')}a`;
        const late = `m/${String(600 - n).padStart(4, '0')}z`;
        await write(recordId, early);
        await write(recordId, late);
        await write(recordId, initial[0], `replaced ${n}`);
        added.push(early, late);
      },
    });
    const listed = pages.flat().map((f) => f.path);
    expect(new Set(listed).size).toBe(listed.length);
    for (const path of initial) expect(listed).toContain(path);
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    // files written after the cursor passed their place are listed; the ones behind it are not
    expect(added.filter((p) => listed.includes(p)).length).toBeGreaterThan(0);
  }, 120_000);

  it('filters by a literal prefix: "_" and "%" in it are not wildcards', async () => {
    const recordId = newId('record');
    for (const path of ['a_b/x', 'axb/y', 'a%/z', 'a%b', 'ab', 'notes/1', 'notes/2', 'notesX']) await write(recordId, path);
    const paths = async (prefix: string, limit = 10) => (await listAll(recordId, limit, { prefix })).flat().map((f) => f.path);
    expect(await paths('a_')).toEqual(['a_b/x']);
    expect(await paths('a%')).toEqual(['a%/z', 'a%b']);
    expect(await paths('notes/', 1)).toEqual(['notes/1', 'notes/2']);
    expect(await paths('zzz')).toEqual([]);
  }, 60_000);
});
