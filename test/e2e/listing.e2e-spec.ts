import { encodeListCursor, SUBJECTS, UsageSummarySchema } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, startE2eServer } from '@agent-memory/test-support';

// List memories and list files end to end (docs/api.md, "List memories", "List files", "Pagination"), in the
// mode E2E_MODE picks: keyset pages that list every memory exactly once while other writes happen, the
// filters, strict cursors, isolation, and the price (a ledger entry per memories page, none for files).
// RATE_LIMITS=off: the test writes hundreds of memories into one record (30 writes/min otherwise).

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer({ env: { RATE_LIMITS: 'off' } });
  api = new ApiClient(server.url);
}, 180_000);
afterAll(() => server?.close({ removeData: true }));

/** Runs `tasks` with at most `width` at a time. */
async function inBatches(tasks: (() => Promise<unknown>)[], width = 8): Promise<void> {
  for (let i = 0; i < tasks.length; i += width) await Promise.all(tasks.slice(i, i + width).map((t) => t()));
}
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('list memories', () => {
  let key: string;
  let agentId: string;
  let base: string;
  const facts = Array.from({ length: 230 }, (_, i) => `fact/${String(i * 10).padStart(5, '0')}`);
  const forgotten = facts[150];

  beforeAll(async () => {
    const agent = await api.createAgent({ name: 'lister' });
    ({ agentKey: key, agentId } = agent);
    base = `/api/v1/records/${agent.recordId}`;
    const remember = (path: string, type: string) => () => api.request('POST', `${base}/remember`, { key, body: { content: `Memory at ${path}: the nightly build runs at 02:00.`, type, path } }).then((r) => r.data);
    await inBatches([...facts.map((p) => remember(p, 'fact')), remember('skill/deploy', 'skill'), remember('skill/rollback', 'skill')]);
    expect((await api.request('DELETE', `${base}/remember`, { key, body: { path: forgotten } })).data).toEqual({ deleted: true, path: forgotten });
  }, 300_000);

  it('lists more than 200 memories of one type completely across pages, once each, while memories are written', async () => {
    const listed: string[] = [];
    const written: Promise<unknown>[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?type=fact&limit=60${cursor ? `&cursor=${cursor}` : ''}`;
      // a remember before the cursor, one after it, and a replace of a listed memory, while the page is read
      const n = pages;
      written.push(
        api.request('POST', `${base}/remember`, { key, body: { content: `Added early ${n}.`, type: 'fact', path: `fact/00000-${n}` } }),
        api.request('POST', `${base}/remember`, { key, body: { content: `Added late ${n}.`, type: 'fact', path: `fact/99999-${n}` } }),
        api.request('POST', `${base}/remember`, { key, body: { content: `Replaced ${n}.`, type: 'fact', path: facts[0] } }),
      );
      const res = await api.request('GET', `${base}/memories${query}`, { key });
      expect(res.status).toBe(200);
      const page = res.data as { memories: { path: string; type: string }[]; nextCursor: string | null };
      expect(page.memories.length).toBeLessThanOrEqual(60);
      for (const m of page.memories) expect(m.type).toBe('fact');
      listed.push(...page.memories.map((m) => m.path));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    await Promise.all(written);

    expect(pages).toBeGreaterThanOrEqual(4);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual([...listed].sort(byCodeUnits));
    expect(listed).not.toContain(forgotten);
    const expected = facts.filter((p) => p !== forgotten);
    expect(expected.filter((p) => !listed.includes(p))).toEqual([]);
  }, 300_000);

  it('answers items as context does, in path order over all types, and charges one list_memories per page', async () => {
    const first = (await api.request('GET', `${base}/memories?limit=1`, { key })).data;
    expect(first.memories).toEqual([
      { id: expect.stringMatching(/^mem_/), path: 'fact/00000', type: 'fact', summary: expect.any(String), content: expect.stringMatching(/^Replaced/), createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    const skills = (await api.request('GET', `${base}/memories?type=skill`, { key })).data;
    expect(skills).toEqual({ memories: [expect.objectContaining({ path: 'skill/deploy' }), expect.objectContaining({ path: 'skill/rollback' })], nextCursor: null });
    const context = (await api.request('GET', `${base}/context`, { key })).data;
    expect(skills.memories).toEqual([...context.skill].sort((a: any, b: any) => byCodeUnits(a.path, b.path)));

    const ledger = await server.bus().request(SUBJECTS.billing.usage, { agentId, limit: 1000, offset: 0 }, UsageSummarySchema);
    const listings = ledger.entries.filter((e) => e.operation === 'list_memories');
    expect(listings.length).toBeGreaterThanOrEqual(6); // the pages of the test above and the two pages here
    expect(listings.every((e) => e.amountMicroUsd === 50_000)).toBe(true);
  }, 120_000);

  it('refuses a garbage or foreign-shaped cursor, a bad limit, an unknown type or an offset with 400 VALIDATION_ERROR', async () => {
    for (const query of ['cursor=garbage!', 'cursor=', `cursor=${Buffer.from('fact/1').toString('base64url')}`, `cursor=${encodeListCursor('a')}%3D`, 'limit=0', 'limit=201', 'limit=ten', 'type=note', 'offset=10']) {
      const res = await api.request('GET', `${base}/memories?${query}`, { key });
      expect([query, res.status, res.body]).toEqual([query, 400, { success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } }]);
    }
  });

  it("answers 404 for another agent's record, on both listings", async () => {
    const other = await api.createAgent({ name: 'other' });
    for (const path of ['memories', 'files']) {
      const res = await api.request('GET', `${base}/${path}`, { key: other.agentKey });
      expect([path, res.status, res.body]).toEqual([path, 404, { success: false, error: { code: 'NOT_FOUND', message: expect.any(String) } }]);
    }
  });
});

describe('list files', () => {
  it('lists file metadata in path order across pages, filters by prefix, refuses bad cursors, and is free', async () => {
    const { agentKey: key, agentId, recordId } = await api.createAgent({ name: 'filer' });
    const base = `/api/v1/records/${recordId}`;
    const hashes = new Map<string, string>();
    for (const path of ['notes/b.md', 'notes/a.md', 'notes_x', 'readme.md', 'notes/c/ü.md']) {
      hashes.set(path, (await api.request('POST', `${base}/write`, { key, body: { path, content: `# ${path}\n` } })).data.contentHash);
    }
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const page: { files: any[]; nextCursor: string | null } = (await api.request('GET', `${base}/files?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key })).data;
      all.push(...page.files);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(all.map((f) => f.path)).toEqual(['notes/a.md', 'notes/b.md', 'notes/c/ü.md', 'notes_x', 'readme.md']);
    expect(all[2]).toEqual({ path: 'notes/c/ü.md', size: Buffer.byteLength('# notes/c/ü.md\n'), contentHash: hashes.get('notes/c/ü.md'), createdAt: expect.any(String), updatedAt: expect.any(String) });

    const notes = (await api.request('GET', `${base}/files?prefix=${encodeURIComponent('notes/')}`, { key })).data;
    expect(notes.files.map((f: any) => f.path)).toEqual(['notes/a.md', 'notes/b.md', 'notes/c/ü.md']);
    expect(notes.nextCursor).toBeNull();
    for (const query of ['cursor=%25%25', 'prefix=/abs', 'prefix=', 'limit=1001']) {
      expect([query, (await api.request('GET', `${base}/files?${query}`, { key })).code]).toEqual([query, 'VALIDATION_ERROR']);
    }
    const ledger = await server.bus().request(SUBJECTS.billing.usage, { agentId, limit: 1000, offset: 0 }, UsageSummarySchema);
    expect(ledger.entries.map((e) => e.operation).sort()).toEqual(['write_file', 'write_file', 'write_file', 'write_file', 'write_file']);
  }, 120_000);
});
