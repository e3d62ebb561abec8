import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BLOB_STORE, type BlobStore, InProcessBus, JOB_QUEUE, type JobQueue, PlatformModule } from '@agent-memory/platform';
import { type MemoryType, newId } from '@agent-memory/shared';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import { MemoryModule } from '../memory.module';
import { MEMORY_PRISMA, type MemoryPrismaClient } from '../persistence/prisma';
import { embedDocument } from '../recall/document-embedding';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';
import { EnrichMemoryUseCase } from './enrich-memory.use-case';
import { ForgetUseCase } from './forget.use-case';
import { ReembedMemoriesUseCase } from './reembed-memories.use-case';
import { RememberUseCase } from './remember.use-case';

/**
 * Enrichment and re-embedding on the real standalone pieces (PGlite, filesystem blobs, embedded vector
 * index, in-process job queue, Universal Sentence Encoder lite) with a real local HTTP server standing in
 * for the OpenAI-compatible LLM endpoint.
 */
describe('enrichment and re-embedding (standalone platform, local LLM server)', () => {
  let dataDir: string;
  let app: INestApplicationContext;
  let llm: Server;
  /** What the fake LLM answers (the assistant message content) for a memory's content. */
  let reply: (content: string) => string;
  /** When set, the LLM holds its answer until this promise resolves. */
  let gate: Promise<void> | null = null;
  let llmRequests: string[] = [];
  let onRequest: (() => void) | null = null;

  let remember: RememberUseCase;
  let forget: ForgetUseCase;
  let enrich: EnrichMemoryUseCase;
  let reembed: ReembedMemoriesUseCase;
  let jobs: JobQueue;
  let index: VectorIndex;
  let blobs: BlobStore;
  let prisma: MemoryPrismaClient;
  let embedder: Embedder;

  beforeAll(async () => {
    llm = createServer((req, res: ServerResponse) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        const body = JSON.parse(raw) as { messages: { role: string; content: string }[] };
        const content = body.messages[1].content;
        llmRequests.push(content);
        onRequest?.();
        void Promise.resolve(gate).then(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: reply(content) } }] }));
        });
      });
    });
    await new Promise<void>((resolve) => llm.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;

    dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-enrich-'));
    @Module({
      imports: [
        PlatformModule.standalone({ dataDir, busRequestTimeoutMs: 5_000, bus: new InProcessBus() }),
        MemoryModule.forRoot({
          embedder: { kind: 'use-lite' },
          vectorIndex: { kind: 'embedded', directory: join(dataDir, 'vectors') },
          enrichment: { baseUrl, model: 'fake-llm', timeoutMs: 10_000 },
        }),
      ],
    })
    class TestModule {}
    app = await NestFactory.createApplicationContext(TestModule, { logger: false });
    remember = app.get(RememberUseCase);
    forget = app.get(ForgetUseCase);
    enrich = app.get(EnrichMemoryUseCase);
    reembed = app.get(ReembedMemoriesUseCase);
    jobs = app.get(JOB_QUEUE);
    index = app.get(VECTOR_INDEX);
    blobs = app.get(BLOB_STORE);
    prisma = app.get(MEMORY_PRISMA);
    embedder = app.get(EMBEDDER);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    llm?.closeAllConnections();
    await new Promise((resolve) => llm?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    reply = () => '{}';
    gate = null;
    onRequest = null;
    llmRequests = [];
  });

  const row = (id: string) => prisma.memory.findUnique({ where: { id } });
  /** Ids of the record's points of `type` nearest to the content's embedding. */
  async function indexedAs(recordId: string, content: string, type: MemoryType): Promise<string[]> {
    const vector = await embedDocument(embedder, content, { scope: recordId });
    return (await index.searchDense(vector, { tenant: recordId, limit: 10, types: [type] })).map((hit) => hit.id);
  }
  /** A gate the test opens later, and a promise that resolves when the LLM has received a request. */
  function holdLlm(): { release: () => void; requested: Promise<void> } {
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    const requested = new Promise<void>((resolve) => (onRequest = resolve));
    return { release, requested };
  }

  it('replaces the classified type and the extractive summary, in the row and in the vector payload', async () => {
    const recordId = newId('record');
    const content = 'Grind 18 g of beans, pour 250 ml of water at 94 °C, and wait four minutes before pressing.';
    reply = () => '{"type": "episode", "summary": "A French-press recipe."}';
    const { result } = await remember.execute({ agentId: 'agt_test', recordId, body: { content } });
    expect(result.type).not.toBe('episode');
    const before = await row(result.id);
    await jobs.drain();

    expect(llmRequests).toEqual([content]);
    const after = await row(result.id);
    expect(after).toMatchObject({ type: 'episode', summary: 'A French-press recipe.', contentHash: before!.contentHash, embedderId: embedder.id });
    // Enrichment is not a content write: updatedAt stays.
    expect(after!.updatedAt).toEqual(before!.updatedAt);
    expect(await indexedAs(recordId, content, 'episode')).toEqual([result.id]);
    expect(await indexedAs(recordId, content, result.type)).toEqual([]);
    expect(await index.count(recordId)).toBe(1);
    // The same job again finds nothing to change.
    await expect(enrich.execute({ memoryId: result.id, contentHash: after!.contentHash, reclassify: true })).resolves.toBe('unchanged');
  }, 120_000);

  it('keeps a type the agent gave and refines only the summary', async () => {
    const recordId = newId('record');
    const content = 'The quarterly report is due on the first Monday of April, May and June.';
    reply = () => '{"type": "skill", "summary": "Quarterly report due dates."}';
    const { result } = await remember.execute({ agentId: 'agt_test', recordId, body: { content, type: 'fact' } });
    await jobs.drain();
    expect(await row(result.id)).toMatchObject({ type: 'fact', summary: 'Quarterly report due dates.' });
    expect(await indexedAs(recordId, content, 'fact')).toEqual([result.id]);
  }, 60_000);

  it('keeps the local type and summary when the reply is not a valid enrichment', async () => {
    const recordId = newId('record');
    reply = () => 'I think this is a fact about tea.';
    const { result } = await remember.execute({ agentId: 'agt_test', recordId, body: { content: 'I drink green tea every afternoon.' } });
    await jobs.drain();
    expect(llmRequests).toHaveLength(1);
    expect(await row(result.id)).toMatchObject({ type: result.type, summary: result.summary });
    reply = () => '{"type": "preference", "summary": "Tea."}';
    await expect(enrich.execute({ memoryId: result.id, reclassify: true })).resolves.toBe('unchanged');
  }, 60_000);

  it('never resurrects a memory forgotten while the LLM is answering', async () => {
    const recordId = newId('record');
    const content = 'My sister Lena moved to Vienna last spring.';
    reply = () => '{"type": "skill", "summary": "Lena lives in Vienna."}';
    const held = holdLlm();
    const { result } = await remember.execute({ agentId: 'agt_test', recordId, body: { content } });
    await held.requested;
    await forget.execute({ agentId: 'agt_test', recordId, target: { id: result.id } });
    expect(await index.count(recordId)).toBe(0);
    held.release();
    await jobs.drain();

    expect(await row(result.id)).toBeNull();
    expect(await index.count(recordId)).toBe(0);
    expect(await indexedAs(recordId, content, 'skill')).toEqual([]);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
    expect(await jobs.failed()).toEqual([]);
    // Running the job again (a redelivery) still writes nothing.
    await expect(enrich.execute({ memoryId: result.id, reclassify: true })).resolves.toBe('gone');
    expect(await index.count(recordId)).toBe(0);
  }, 60_000);

  it('does not let the enrichment of an older version overwrite a newer one', async () => {
    const recordId = newId('record');
    reply = (content) => (content.startsWith('v1') ? '{"type": "skill", "summary": "Old version."}' : '{"summary": "New version."}');
    const held = holdLlm();
    const first = await remember.execute({ agentId: 'agt_test', recordId, body: { content: 'v1: the office wifi password is on the fridge.', path: 'office/wifi' } });
    await held.requested;
    gate = null;
    const second = await remember.execute({ agentId: 'agt_test', recordId, body: { content: 'v2: the office wifi password changed to hunter2.', path: 'office/wifi', type: 'fact' } });
    expect(second.result.id).toBe(first.result.id);
    held.release();
    await jobs.drain();

    expect(await row(first.result.id)).toMatchObject({ type: 'fact', summary: 'New version.' });
    expect(await indexedAs(recordId, 'v2: the office wifi password changed to hunter2.', 'fact')).toEqual([first.result.id]);
    expect(await indexedAs(recordId, 'v2: the office wifi password changed to hunter2.', 'skill')).toEqual([]);
  }, 60_000);

  it('re-embeds, in batches, the memories another embedder made, skipping forgotten ones', async () => {
    const recordId = newId('record');
    const contents = ['Ana is a nurse in Lisbon.', 'Bob plays the cello.', 'The deploy key is in the vault.', 'We hiked Mount Olympus in 2019.', 'To reset the router, hold the button for ten seconds.'];
    const ids: string[] = [];
    for (const content of contents) ids.push((await remember.execute({ agentId: 'agt_test', recordId, body: { content } })).result.id);
    await jobs.drain();
    // As after an embedder change: rows carry the old id, and the index opened for the new embedder is empty.
    await prisma.memory.updateMany({ where: { recordId }, data: { embedderId: 'old-model@512' } });
    await index.deleteTenant(recordId);
    await forget.execute({ agentId: 'agt_test', recordId, target: { id: ids[1] } });

    const first = await reembed.runBatch({ embedderId: embedder.id }, 2);
    expect(first.reembedded).toBe(2);
    expect(first.next).toEqual(expect.any(String));
    await jobs.drain(); // the queued next batches
    const rows = await prisma.memory.findMany({ where: { recordId } });
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map((r) => r.embedderId))).toEqual(new Set([embedder.id]));
    expect(await index.count(recordId)).toBe(4);
    for (const [i, content] of contents.entries()) {
      const vector = await embedDocument(embedder, content, { scope: recordId });
      const hits = await index.searchDense(vector, { tenant: recordId, limit: 1 });
      if (i === 1) expect(hits[0]?.id).not.toBe(ids[1]);
      else expect(hits[0]).toEqual({ id: ids[i], score: expect.closeTo(1, 4) });
    }
    // Nothing left: a new pass does nothing.
    expect(await reembed.runBatch({ embedderId: embedder.id })).toEqual({ reembedded: 0, next: undefined });
    // A job for another embedder is dropped.
    await prisma.memory.updateMany({ where: { recordId }, data: { embedderId: 'old-model@512' } });
    expect(await reembed.runBatch({ embedderId: 'someone-else@3' })).toEqual({ reembedded: 0 });
  }, 120_000);

  it('queues re-embedding at start-up when any memory has another embedder id', async () => {
    const recordId = newId('record');
    const { result } = await remember.execute({ agentId: 'agt_test', recordId, body: { content: 'Carla is allergic to penicillin.', type: 'fact' } });
    await jobs.drain();
    await prisma.memory.updateMany({ data: { embedderId: 'old-model@512' } });
    await index.delete(recordId, [result.id]);
    await reembed.start();
    await jobs.drain();
    expect(await prisma.memory.count({ where: { embedderId: { not: embedder.id } } })).toBe(0);
    expect(await indexedAs(recordId, 'Carla is allergic to penicillin.', 'fact')).toEqual([result.id]);
  }, 60_000);
});
