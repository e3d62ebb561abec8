import 'reflect-metadata';
import { type BlobStore, contentHash } from '@agent-memory/platform';
import { decodeListCursor, LIMITS, type MemoryType } from '@agent-memory/shared';
import type { MemoryRepository, MemoryRow } from '../persistence/memory.repository';
import { ListMemoriesUseCase } from './list-memories.use-case';

/**
 * ListMemoriesUseCase's page rules (docs/api.md, "List memories") over an in-memory repository and blob
 * store: one extra row read decides `nextCursor`; a memory forgotten while the page is read is skipped and
 * the cursor still moves past it; the 4 MB JSON budget cuts pages (at least one memory each).
 */
describe('ListMemoriesUseCase', () => {
  const recordId = 'rec_0000000000000000000001';
  const agentId = 'agt_0000000000000000000001';
  let rows: MemoryRow[];
  let blobs: Map<string, Buffer>;
  let reads: number[];

  function add(path: string, content: string): void {
    const bytes = Buffer.from(content, 'utf8');
    const id = `mem_${String(rows.length).padStart(22, '0')}`;
    const row: MemoryRow = { id, recordId, agentId, path, type: 'fact', summary: 's', contentHash: contentHash(bytes), blobKey: `b/${id}`, sizeBytes: bytes.length, embedderId: 'e', createdAt: new Date(0), updatedAt: new Date(0) };
    rows.push(row);
    blobs.set(row.blobKey, bytes);
  }
  const repository = {
    listPage: async (_r: string, { after, limit }: { after?: string; limit: number; type?: MemoryType }) => {
      reads.push(limit);
      return rows.filter((r) => after === undefined || r.path > after).sort((a, b) => (a.path < b.path ? -1 : 1)).slice(0, limit);
    },
    findById: async (_r: string, id: string) => rows.find((r) => r.id === id) ?? null,
  } as unknown as MemoryRepository;
  const store = { get: async (key: string) => blobs.get(key) ?? null } as unknown as BlobStore;
  const list = new ListMemoriesUseCase(repository, store);
  const after = (cursor: string | null) => (cursor === null ? null : (decodeListCursor(cursor) as { after: string }).after);

  beforeEach(() => {
    rows = [];
    blobs = new Map();
    reads = [];
  });

  it('reads limit + 1 rows: a cursor only when a memory follows, none after an exactly full last page', async () => {
    for (const p of ['a', 'b', 'c', 'd']) add(p, `content ${p}`);
    const first = await list.execute({ agentId, recordId, limit: 2 });
    expect([first.memories.map((m) => m.path), after(first.nextCursor)]).toEqual([['a', 'b'], 'b']);
    const last = await list.execute({ agentId, recordId, limit: 2, after: 'b' });
    expect([last.memories.map((m) => m.path), last.nextCursor]).toEqual([['c', 'd'], null]);
    expect(reads).toEqual([3, 3]);
  });

  it('skips a memory forgotten while its page is read and moves the cursor past it', async () => {
    for (const p of ['a', 'b', 'c']) add(p, `content ${p}`);
    // forgotten after the rows were read: its row and blob are gone when the content is fetched
    const gone = rows[1];
    const realList = repository.listPage.bind(repository);
    repository.listPage = async (...args) => {
      const page = await realList(...args);
      rows = rows.filter((r) => r !== gone);
      blobs.delete(gone.blobKey);
      return page;
    };
    try {
      const page = await list.execute({ agentId, recordId, limit: 2 });
      expect([page.memories.map((m) => m.path), after(page.nextCursor)]).toEqual([['a'], 'b']);
    } finally {
      repository.listPage = realList;
    }
  });

  it('cuts a page at 4 MB of JSON, keeps at least one memory, and continues after the last one answered', async () => {
    const big = '"'.repeat(LIMITS.memoryContentBytes.max); // each quote is two bytes of JSON
    for (let i = 0; i < 60; i++) add(`m${String(i).padStart(2, '0')}`, big);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list.execute({ agentId, recordId, limit: 200, after: cursor });
      expect(Buffer.byteLength(JSON.stringify(page.memories))).toBeLessThanOrEqual(LIMITS.listMemories.pageJsonBytes);
      expect(page.memories.length).toBeGreaterThan(0);
      seen.push(...page.memories.map((m) => m.path));
      if (page.nextCursor === null) break;
      cursor = after(page.nextCursor)!;
      expect(cursor).toBe(seen.at(-1));
    }
    expect(seen).toEqual(rows.map((r) => r.path));
    expect(reads.length).toBe(2); // 60 × ~100 KB of JSON: two pages
  });
});
