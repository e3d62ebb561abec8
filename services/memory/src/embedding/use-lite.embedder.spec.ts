import * as tfCore from '@energetic-ai/core';
import { dot } from './vector-math';
import { loadUseLiteRunner, USE_LITE_MAX_TEXT_CHARS, UseLiteEmbedder, type EmbeddingBatchRunner } from './use-lite.embedder';

const tf = tfCore as unknown as { memory(): { numTensors: number } };

/** Fake runner: vector = [length, 1, 0, ...]; throws for any batch containing "boom". */
function fakeRunner(dimension = 512): EmbeddingBatchRunner & { batches: string[][] } {
  const batches: string[][] = [];
  return {
    batches,
    async run(texts) {
      batches.push([...texts]);
      if (texts.some((t) => t.includes('boom'))) throw new Error('model exploded');
      return texts.map((t) => Array.from({ length: dimension }, (_, i) => (i === 0 ? t.length + 1 : i === 1 ? 1 : 0)));
    },
    dispose() {},
  };
}

describe('UseLiteEmbedder with the real model', () => {
  let shared: EmbeddingBatchRunner;
  /** Embedders in this file share one loaded model; `dispose` is a no-op so `close` keeps it alive. */
  const make = (options: ConstructorParameters<typeof UseLiteEmbedder>[0] = {}) =>
    new UseLiteEmbedder({ ...options, loadRunner: async () => ({ run: (t) => shared.run(t), dispose() {} }) });

  beforeAll(async () => {
    const warn = jest.spyOn(console, 'warn');
    const log = jest.spyOn(console, 'log');
    shared = await loadUseLiteRunner();
    // The package and its bundled tfjs print nothing on load under Node; keep it that way.
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
    warn.mockRestore();
    log.mockRestore();
  });

  afterAll(() => shared.dispose());

  it('returns 512-dimensional unit Float32Arrays in input order', async () => {
    const embedder = make();
    expect(embedder.id).toBe('use-lite@512');
    expect(embedder.dimension).toBe(512);
    const vectors = await embedder.embed(['The cat sat on the mat.', '', 'Quarterly revenue grew by 12 percent.']);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 5);
    }
    expect(dot(vectors[0], vectors[2])).toBeLessThan(0.99);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('puts paraphrases closer together than unrelated sentences', async () => {
    const [a, b, c] = await make().embed([
      'How do I reset my password?',
      'I forgot my password and need to change it.',
      'The weather in Lisbon is sunny today.',
    ]);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c) + 0.2);
    expect(dot(a, b)).toBeGreaterThan(dot(b, c) + 0.2);
  });

  it('coalesces concurrent calls into one model call and gives each caller its own vectors', async () => {
    const texts = Array.from({ length: 10 }, (_, i) => `Sentence number ${i} talks about topic ${i * 7}.`);
    const solo = make({ cacheSize: 0 });
    const alone: Float32Array[] = [];
    for (const text of texts) alone.push((await solo.embed([text]))[0]);
    expect(solo.stats.modelCalls).toBe(10);

    const batched = make({ batchWindowMs: 20 });
    const results = await Promise.all(texts.map((text, i) => batched.embed(i % 2 ? [text, texts[0]] : [text])));
    expect(batched.stats.modelCalls).toBe(1);
    expect(batched.stats.textsEmbedded).toBe(10); // texts[0] asked 6 times, embedded once
    results.forEach((vectors, i) => {
      const expected = i % 2 ? [alone[i], alone[0]] : [alone[i]];
      expect(vectors).toHaveLength(expected.length);
      vectors.forEach((v, j) => {
        const maxDiff = Math.max(...v.map((x, k) => Math.abs(x - expected[j][k])));
        expect(maxDiff).toBeLessThan(1e-4);
      });
    });
  });

  it('splits a large call into batches of maxBatchSize and keeps the order', async () => {
    const embedder = make({ maxBatchSize: 64, cacheSize: 0 });
    const texts = Array.from({ length: 150 }, (_, i) => `Note ${i}: ${i % 3 ? 'billing' : 'deploy'} item ${i * 13}`);
    const vectors = await embedder.embed(texts);
    expect(embedder.stats.modelCalls).toBe(3);
    const [check] = await embedder.embed([texts[149]]);
    expect(Math.max(...check.map((x, k) => Math.abs(x - vectors[149][k])))).toBeLessThan(1e-4);
  });

  it('answers texts repeated in one scope from the cache with fresh arrays', async () => {
    const embedder = make();
    const [first] = await embedder.embed(['What does the user like to drink?'], { scope: 'rec_a' });
    first.fill(0); // a caller mutating its copy must not poison the cache
    const [second] = await embedder.embed(['What does the user like to drink?'], { scope: 'rec_a' });
    expect(embedder.stats).toEqual({ modelCalls: 1, textsEmbedded: 1, cacheHits: 1 });
    expect(Math.sqrt(dot(second, second))).toBeCloseTo(1, 5);
  });

  it('disposes every tensor it creates', async () => {
    const embedder = make({ cacheSize: 0 });
    await embedder.embed(['warm-up']);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 5; i++) await embedder.embed(Array.from({ length: 20 }, (_, j) => `text ${i} ${j}`));
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('UseLiteEmbedder cache isolation between tenants (fake runner)', () => {
  it("never answers one record's text from another record's cache entry", async () => {
    const runner = fakeRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 0 });
    await embedder.embed(['The door code is 4711.'], { scope: 'rec_alice' });
    // Bob guesses Alice's sentence: it must reach the model, exactly as a sentence nobody wrote.
    await embedder.embed(['The door code is 4711.'], { scope: 'rec_bob' });
    expect(embedder.stats).toEqual({ modelCalls: 2, textsEmbedded: 2, cacheHits: 0 });
    expect(runner.batches).toEqual([['The door code is 4711.'], ['The door code is 4711.']]);
    // Within one record a repeat may be answered from the cache.
    await embedder.embed(['The door code is 4711.'], { scope: 'rec_alice' });
    await embedder.embed(['The door code is 4711.'], { scope: 'rec_bob' });
    expect(embedder.stats).toEqual({ modelCalls: 2, textsEmbedded: 2, cacheHits: 2 });
  });

  it('caches nothing for calls without a scope', async () => {
    const runner = fakeRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 0 });
    await embedder.embed(['prototype sentence']);
    await embedder.embed(['prototype sentence']);
    await embedder.embed(['prototype sentence'], { scope: 'rec_a' });
    expect(embedder.stats).toEqual({ modelCalls: 3, textsEmbedded: 3, cacheHits: 0 });
  });

  it('does not share a model row between records in a coalesced batch', async () => {
    const runner = fakeRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 20 });
    const [a, b, a2] = await Promise.all([
      embedder.embed(['same text'], { scope: 'rec_a' }),
      embedder.embed(['same text'], { scope: 'rec_b' }),
      embedder.embed(['same text', 'other'], { scope: 'rec_a' }),
    ]);
    expect(runner.batches).toEqual([['same text', 'same text', 'other']]);
    expect([a, b, a2].map((v) => v.length)).toEqual([1, 1, 2]);
    expect(Array.from(b[0])).toEqual(Array.from(a[0]));
  });

  it('hands the model at most USE_LITE_MAX_TEXT_CHARS characters of a text, never half a surrogate pair', async () => {
    const runner = fakeRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 0 });
    await embedder.embed(['a'.repeat(50 * 1024), 'b' + '😀'.repeat(12_000)]);
    expect(USE_LITE_MAX_TEXT_CHARS).toBeLessThanOrEqual(4_000);
    const seen = runner.batches.flat();
    expect(seen).toHaveLength(2);
    for (const text of seen) {
      expect(text.length).toBeLessThanOrEqual(USE_LITE_MAX_TEXT_CHARS);
      expect(text).not.toMatch(/[\uD800-\uDBFF]$/);
    }
  });
});

describe('UseLiteEmbedder batching and errors (fake runner)', () => {
  it('rejects only the caller whose input fails when a coalesced batch fails', async () => {
    const runner = fakeRunner();
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 10 });
    const [ok, bad, alsoOk] = await Promise.allSettled([
      embedder.embed(['fine']),
      embedder.embed(['boom']),
      embedder.embed(['also fine', 'x']),
    ]);
    expect(ok.status).toBe('fulfilled');
    expect(alsoOk.status).toBe('fulfilled');
    expect(bad).toEqual({ status: 'rejected', reason: new Error('model exploded') });
    // One coalesced call, then each caller alone.
    expect(runner.batches).toEqual([['fine', 'boom', 'also fine', 'x'], ['fine'], ['boom'], ['also fine', 'x']]);
    expect((alsoOk as PromiseFulfilledResult<Float32Array[]>).value).toHaveLength(2);
  });

  it('by default runs a lone call without waiting for a timer, and still coalesces calls of one turn and calls queued behind a running batch', async () => {
    // Timers are faked and never advanced: a call that waited for a batch window would never resolve.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const runner = fakeRunner();
      const embedder = new UseLiteEmbedder({ loadRunner: async () => runner });
      await expect(embedder.embed(['alone'])).resolves.toHaveLength(1);
      await Promise.all([embedder.embed(['one']), embedder.embed(['two']), embedder.embed(['three'])]);
      expect(runner.batches).toEqual([['alone'], ['one', 'two', 'three']]);
      // Queued while a model call runs: the next batch takes them together.
      const slow = fakeRunner();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const gated = new UseLiteEmbedder({ loadRunner: async () => ({ ...slow, run: async (texts) => (texts[0] === 'first' ? gate.then(() => slow.run(texts)) : slow.run(texts)) }) });
      const first = gated.embed(['first']);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const later = Promise.all([gated.embed(['a']), gated.embed(['b'])]);
      release();
      await Promise.all([first, later]);
      expect(slow.batches).toEqual([['first'], ['a', 'b']]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('propagates a model error to a lone caller and keeps working afterwards', async () => {
    const embedder = new UseLiteEmbedder({ loadRunner: async () => fakeRunner(), batchWindowMs: 0 });
    await expect(embedder.embed(['boom'])).rejects.toThrow('model exploded');
    await expect(embedder.embed(['fine'])).resolves.toHaveLength(1);
  });

  it('loads the model once for concurrent callers and retries a failed load', async () => {
    let loads = 0;
    const embedder = new UseLiteEmbedder({
      batchWindowMs: 0,
      maxBatchSize: 2,
      loadRunner: async () => {
        loads++;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (loads === 1) throw new Error('weights missing');
        return fakeRunner();
      },
    });
    const first = await Promise.allSettled([embedder.embed(['a', 'b', 'c']), embedder.embed(['d'])]);
    expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(loads).toBe(1);
    const second = await Promise.all([embedder.embed(['a', 'b', 'c']), embedder.embed(['d'])]);
    expect(second.map((v) => v.length)).toEqual([3, 1]);
    expect(loads).toBe(2);
  });

  it('queries and documents: apart, a query does not wait behind a running document batch; in one queue, they share batches', async () => {
    /** A runner whose document runs wait for `release`; records each run's texts and purpose. */
    const gatedRunner = (concurrentPurposes: boolean) => {
      const runs: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const inner = fakeRunner();
      const runner: EmbeddingBatchRunner = {
        concurrentPurposes,
        async run(texts, purpose) {
          runs.push(`${purpose}:${texts.join('+')}`);
          if (purpose === 'document') await gate;
          return inner.run(texts);
        },
        dispose() {},
      };
      return { runner, runs, release };
    };
    const settledIn = async (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 50))]);

    // Apart (the onnx runner with its worker thread): the query is answered while the document is still running.
    const apart = gatedRunner(true);
    const embedder = new UseLiteEmbedder({ loadRunner: async () => apart.runner });
    await embedder.embed(['load']);
    const document = embedder.embed(['stored content', 'more content'], { purpose: 'document' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await settledIn(embedder.embed(['a question']))).toBe(true);
    expect(await settledIn(document)).toBe(false);
    apart.release();
    await expect(document).resolves.toHaveLength(2);
    expect(apart.runs).toEqual(['query:load', 'document:stored content+more content', 'query:a question']);

    // In one queue (a runner that runs documents on the event loop's thread): the query waits for the document,
    // and calls of both purposes queued in one turn make one batch, run as a query batch.
    const together = gatedRunner(false);
    const serial = new UseLiteEmbedder({ loadRunner: async () => together.runner });
    await serial.embed(['load']);
    const doc = serial.embed(['stored content'], { purpose: 'document' });
    await new Promise((resolve) => setImmediate(resolve));
    const query = serial.embed(['a question']);
    expect(await settledIn(query)).toBe(false);
    together.release();
    await Promise.all([doc, query]);
    await Promise.all([serial.embed(['more content'], { purpose: 'document' }), serial.embed(['another question'])]);
    expect(together.runs).toEqual(['query:load', 'document:stored content', 'query:a question', 'query:more content+another question']);
  });

  it('documents queued in the shared queue move to their own once the runner runs them apart', async () => {
    const inner = fakeRunner();
    let apart = false;
    const gate = () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    };
    const gates = { query: gate(), document: gate() };
    const runs: string[] = [];
    const runner: EmbeddingBatchRunner = {
      get concurrentPurposes() {
        return apart;
      },
      async run(texts, purpose) {
        runs.push(`${purpose}:${texts.join('+')}`);
        if (texts[0] === 'slow question') await gates.query.promise;
        if (purpose === 'document') await gates.document.promise;
        return inner.run(texts);
      },
      dispose() {},
    };
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner });
    await embedder.embed(['load']);
    const slow = embedder.embed(['slow question']);
    await new Promise((resolve) => setImmediate(resolve));
    // Queued behind the slow query while documents share the queue (the worker thread is not ready yet)...
    const document = embedder.embed(['stored content'], { purpose: 'document' });
    const question = embedder.embed(['next question']);
    // ...then the thread becomes ready: the document moves to its own queue, and the question does not wait for it.
    apart = true;
    gates.query.resolve();
    await slow;
    await expect(question).resolves.toHaveLength(1);
    expect(runs).toContain('document:stored content');
    gates.document.resolve();
    await expect(document).resolves.toHaveLength(1);
    expect(runs).toEqual(expect.arrayContaining(['query:load', 'query:slow question', 'document:stored content', 'query:next question']));
    expect(runs).toHaveLength(4);
  });

  it('rejects vectors of the wrong dimension', async () => {
    const embedder = new UseLiteEmbedder({ loadRunner: async () => fakeRunner(384) });
    await expect(embedder.embed(['a'])).rejects.toThrow(/384 dimensions, expected 512/);
  });

  it('rejects queued and later calls after close, and disposes the runner', async () => {
    const runner = fakeRunner();
    const dispose = jest.spyOn(runner, 'dispose');
    const embedder = new UseLiteEmbedder({ loadRunner: async () => runner, batchWindowMs: 50 });
    await embedder.embed(['load it']);
    const queued = embedder.embed(['waiting']);
    await embedder.close();
    await expect(queued).rejects.toThrow(/closed/);
    await expect(embedder.embed(['after'])).rejects.toThrow(/closed/);
    expect(dispose).toHaveBeenCalledTimes(1);
  });
});
