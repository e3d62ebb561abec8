import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { loadOnnxUseLiteRunner, type OnnxUseLiteRunner } from './onnx-use-lite.runner';
import { UseLiteWorkerThread, UseLiteWorkerThreadError } from './onnx-use-lite.worker-thread';
import { ensureUseLiteOnnxModel } from './use-lite-onnx-cache';

/**
 * The onnx runner with its worker thread (docs/architecture.md, "The embedder"): documents are embedded in
 * the thread and give exactly the vectors the event loop's thread gives; when the thread fails, documents
 * are embedded on the calling thread (the failure reported once); an idle thread does not keep the
 * process alive.
 */
const TEXTS = ['', 'Hello', 'The caterer brought the bitter orange marmalade to the picnic last week.', 'word '.repeat(400)];

describe('onnx USE-lite runner with a worker thread for documents', () => {
  let directory: string;
  let modelPath: string;
  let runner: OnnxUseLiteRunner;
  const failures: Error[] = [];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'use-lite-worker-'));
    modelPath = (await ensureUseLiteOnnxModel(directory, { precision: 'int8' })).path;
    runner = await loadOnnxUseLiteRunner({ modelPath, textPerRun: true, workerThread: true, onWorkerFailure: (error) => failures.push(error) });
  }, 120_000);
  afterAll(async () => {
    runner?.dispose();
    await rm(directory, { recursive: true, force: true });
  });

  it('embeds documents in the thread, bit for bit as queries on the calling thread', async () => {
    // Documents go to the thread once it has opened its session; the embedder then keeps them apart.
    expect(await runner.workerThread!.started).toBe(true);
    expect(runner.concurrentPurposes).toBe(true);
    const documents = await runner.run(TEXTS, 'document');
    const queries = await runner.run(TEXTS, 'query');
    expect(documents.map((row) => Array.from(row))).toEqual(queries.map((row) => Array.from(row)));
    expect(runner.workerThread?.texts).toBe(TEXTS.length);
    expect(failures).toEqual([]);
  }, 60_000);

  it('embeds documents on the calling thread once the thread has failed, and reports the failure once', async () => {
    const before = await runner.run(TEXTS, 'query');
    // The thread dies (as a crash would end it): its exit marks it failed.
    const worker = (runner.workerThread as unknown as { worker: Worker }).worker;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    await worker.terminate();
    await exited;
    expect(runner.workerThread?.failed).toBeInstanceOf(UseLiteWorkerThreadError);
    // Documents now share the calling thread (and the embedder's one queue) with queries.
    expect(runner.concurrentPurposes).toBe(false);
    const first = await runner.run(TEXTS, 'document');
    const second = await runner.run(TEXTS.slice(0, 2), 'document');
    expect(first.map((row) => Array.from(row))).toEqual(before.map((row) => Array.from(row)));
    expect(second).toHaveLength(2);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(UseLiteWorkerThreadError);
    expect(failures[0].message).toMatch(/embedding worker thread cannot serve requests: it exited with code \d+/);
  }, 60_000);

  it('a request left unanswered fails the thread, which is reported once and ends', async () => {
    const reported: Error[] = [];
    // 1 ms: no model run of a long text answers that fast.
    const thread = new UseLiteWorkerThread({ model: modelPath, textPerRun: true }, (error) => reported.push(error), { requestTimeoutMs: 1 });
    expect(await thread.started).toBe(true);
    const exited = new Promise((resolve) => (thread as unknown as { worker: Worker }).worker.once('exit', resolve));
    await expect(thread.rows([Array.from({ length: 400 }, (_, i) => 100 + i)])).rejects.toThrow(/got no answer within 1 ms/);
    await exited;
    expect(reported.map((e) => e.message)).toEqual([expect.stringMatching(/request 1 got no answer within 1 ms/)]);
    await expect(thread.rows([[100]])).rejects.toBeInstanceOf(UseLiteWorkerThreadError);
  }, 60_000);

  it('a thread stopped while it starts never counts as started; a disposed runner refuses to run', async () => {
    const thread = new UseLiteWorkerThread({ model: modelPath, textPerRun: true });
    await thread.terminate();
    expect(await thread.started).toBe(false);
    expect(thread.isReady).toBe(false);
    await expect(thread.rows([[100]])).rejects.toMatchObject({ stopped: true });
    const disposed = await loadOnnxUseLiteRunner({ modelPath, textPerRun: true, workerThread: true });
    disposed.dispose();
    await expect(disposed.run(['after'], 'document')).rejects.toThrow('The embedding runner is disposed');
  }, 60_000);

  it('an idle thread does not keep the process alive', () => {
    // A process that embeds one document and never disposes the runner still exits by itself.
    const script = `
      const { loadOnnxUseLiteRunner } = require(${JSON.stringify(join(__dirname, 'onnx-use-lite.runner.ts'))});
      loadOnnxUseLiteRunner({ modelPath: ${JSON.stringify(modelPath)}, textPerRun: true, workerThread: true })
        .then((r) => r.run(['a stored memory'], 'document'))
        .then((rows) => console.log('embedded', rows[0].length, 'floats'));`;
    const child = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: join(__dirname, '../../../../..'), encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, stdout: child.stdout.trim(), stderr: child.stderr.trim() }).toEqual({ status: 0, stdout: 'embedded 512 floats', stderr: '' });
  }, 90_000);
});
