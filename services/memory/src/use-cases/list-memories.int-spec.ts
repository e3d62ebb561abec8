import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { type ContextItem, decodeListCursor, LIMITS, newId } from '@agent-memory/shared';
import { BlobIntegrityError } from '@agent-memory/platform';
import type { HookedBlobStore } from '@agent-memory/testing';
import { ContextUseCase } from './context.use-case';
import { ForgetUseCase } from './forget.use-case';
import { ListMemoriesUseCase } from './list-memories.use-case';
import { type MemoryReplica, startMemoryReplicas } from './memory-replicas.fixture';

/**
 * List memories (docs/api.md, "List memories") on the machine's PostgreSQL with the real remember path:
 * keyset pages in path order, each memory once while others are remembered and forgotten between pages,
 * forgotten memories absent, items as context answers them, pages cut before 4 MB of JSON, and a lost blob
 * answered INTERNAL_ERROR rather than a silent gap.
 */
describe('list memories, keyset pages over PostgreSQL', () => {
  let replica: MemoryReplica;
  let blobs: HookedBlobStore;
  let list: ListMemoriesUseCase;
  let forget: ForgetUseCase;
  let context: ContextUseCase;
  let close: () => Promise<void>;
  const agentId = newId('agent');

  beforeAll(async () => {
    const started = await startMemoryReplicas(1);
    ({ blobs, close } = started);
    replica = started.replicas[0]!;
    list = new ListMemoriesUseCase(replica.repository, blobs);
    forget = new ForgetUseCase(replica.repository, replica.purge);
    context = new ContextUseCase(replica.repository, blobs);
    Logger.overrideLogger(false);
  }, 120_000);
  afterAll(() => close?.());

  const remember = (recordId: string, path: string, type: 'fact' | 'skill' = 'fact', content = `Note ${path}: the staging database restarts at noon.`) =>
    replica.remember.execute({ agentId, recordId, body: { content, type, path } });
  async function listAll(recordId: string, limit: number, options: { type?: 'fact' | 'skill'; between?: (page: number) => Promise<void> } = {}) {
    const pages: ContextItem[][] = [];
    let after: string | undefined;
    for (;;) {
      const page = await list.execute({ agentId, recordId, limit, after, type: options.type });
      pages.push(page.memories);
      if (page.nextCursor === null) return pages;
      const decoded = decodeListCursor(page.nextCursor);
      if (!decoded.ok) throw new Error('bad cursor');
      after = decoded.after;
      await options.between?.(pages.length);
    }
  }

  it('lists 230 facts of a record across pages, each once in path order, skipping forgotten ones and other types', async () => {
    const recordId = newId('record');
    const facts = Array.from({ length: 230 }, (_, i) => `fact/${String(i * 10).padStart(5, '0')}`);
    for (const path of facts) await remember(recordId, path);
    await remember(recordId, 'skill/deploy', 'skill');
    await remember(newId('record'), 'fact/00000');
    const gone = 'fact/02200'; // forgotten before the listing reaches it
    const added: string[] = [];

    const pages = await listAll(recordId, 100, {
      type: 'fact',
      between: async (n) => {
        if (n === 1) await forget.execute({ agentId, recordId, target: { path: gone } });
        for (const path of [`fact/${String(n).padStart(5, '0')}a`, `fact/${String(3000 + n).padStart(5, '0')}`]) {
          await remember(recordId, path);
          added.push(path);
        }
      },
    });

    const listed = pages.flat().map((m) => m.path);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed).toEqual([...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(listed).not.toContain(gone);
    expect(listed).not.toContain('skill/deploy');
    for (const path of facts.filter((p) => p !== gone)) expect(listed).toContain(path);
    expect(listed).toEqual(expect.arrayContaining(added.filter((p) => p.startsWith('fact/03'))));

    // items are context's items
    const all = await listAll(recordId, 200);
    const fromContext = (await context.execute({ agentId, recordId, limit: 200 })).skill;
    expect(all.flat().find((m) => m.path === 'skill/deploy')).toEqual(fromContext[0]);
  }, 240_000);

  it('answers no cursor on a page that ends the listing exactly, and an empty page for an empty record', async () => {
    const recordId = newId('record');
    for (const path of ['a', 'b', 'c']) await remember(recordId, path);
    const page = await list.execute({ agentId, recordId, limit: 3 });
    expect(page.memories.map((m) => m.path)).toEqual(['a', 'b', 'c']);
    expect(page.nextCursor).toBeNull();
    expect(await list.execute({ agentId, recordId: newId('record'), limit: 3 })).toEqual({ memories: [], nextCursor: null });
  }, 60_000);

  it('cuts a page before 4 MB of JSON, whatever the limit, and the next page continues', async () => {
    const recordId = newId('record');
    // 50 KB of control characters: each is six bytes of JSON (\u0001), so a memory is ~300 KB of JSON.
    const heavy = 'x' + '\u0001'.repeat(LIMITS.memoryContentBytes.max - 1);
    for (let i = 0; i < 20; i++) await remember(recordId, `heavy/${String(i).padStart(2, '0')}`, 'fact', heavy);
    const pages = await listAll(recordId, 200);
    for (const page of pages) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThanOrEqual(LIMITS.listMemories.pageJsonBytes);
    expect(pages.length).toBe(2);
    expect(pages.flat().map((m) => m.path)).toEqual(Array.from({ length: 20 }, (_, i) => `heavy/${String(i).padStart(2, '0')}`));
  }, 240_000);

  it('answers INTERNAL_ERROR when a listed memory lost its blob, never a page without it', async () => {
    const recordId = newId('record');
    await remember(recordId, 'lost');
    const row = await replica.repository.findByPath(recordId, 'lost');
    await blobs.delete([row!.blobKey]);
    // not a domain error: the bus answers it as 500 INTERNAL_ERROR with an error id (docs/api.md, "Errors")
    await expect(list.execute({ agentId, recordId, limit: 10 })).rejects.toThrow(BlobIntegrityError);
  }, 60_000);
});
