import { freePort, type JsonStubServer, sendJson, startJsonStubServer } from '@agent-memory/testing';
import { OpenAiCompatibleEmbedder } from './openai-compatible.embedder';


/** A real HTTP server on 127.0.0.1:0 whose behaviour each test sets through `handler`. */
describe('OpenAiCompatibleEmbedder', () => {
  let stub: JsonStubServer<{ model: string; input: string[] }>;
  let baseUrl: string;

  beforeAll(async () => {
    stub = await startJsonStubServer();
    baseUrl = stub.baseUrl;
  });
  afterAll(() => stub.close());
  beforeEach(() => {
    stub.requests.length = 0;
  });
  /** Vector of `dim` floats whose first component encodes the text length, so rows are recognisable. */
  const vectorFor = (text: string, dim: number) => Array.from({ length: dim }, (_, i) => (i === 0 ? text.length : 1));

  it('sends {model, input}, orders rows by index and normalises them', async () => {
    stub.handler = (body, _req, res) =>
      sendJson(res, 200, {
        object: 'list',
        // Reversed on purpose: the adapter must use `index`, not position.
        data: body.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text, 4) })).reverse(),
        model: body.model,
      });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm1', apiKey: 'secret', dimension: 4 });
    const vectors = await embedder.embed(['a', 'bbb', 'cc']);

    expect(embedder.id).toBe('openai:m1@4');
    expect(stub.requests).toHaveLength(1);
    expect(stub.requests[0]).toEqual({ body: { model: 'm1', input: ['a', 'bbb', 'cc'] }, auth: 'Bearer secret', url: '/v1/embeddings' });
    expect(vectors.map((v) => v instanceof Float32Array)).toEqual([true, true, true]);
    for (const [i, text] of ['a', 'bbb', 'cc'].entries()) {
      const raw = vectorFor(text, 4);
      const norm = Math.hypot(...raw);
      expect(Math.hypot(...vectors[i])).toBeCloseTo(1, 5);
      expect(vectors[i][0]).toBeCloseTo(raw[0] / norm, 5);
    }
  });

  it('splits inputs into batches of batchSize and keeps the overall order', async () => {
    stub.handler = (body, _req, res) =>
      sendJson(res, 200, { data: body.input.map((text, index) => ({ index, embedding: vectorFor(text, 3) })) });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 3, batchSize: 2 });
    const texts = ['x', 'xx', 'xxx', 'xxxx', 'xxxxx'];
    const vectors = await embedder.embed(texts);

    expect(stub.requests.map((r) => r.body.input)).toEqual([['x', 'xx'], ['xxx', 'xxxx'], ['xxxxx']]);
    expect(stub.requests[0].auth).toBeUndefined();
    const firstComponents = vectors.map((v) => v[0]);
    expect([...firstComponents].sort((a, b) => a - b)).toEqual(firstComponents);
    expect(await embedder.embed([])).toEqual([]);
    expect(stub.requests).toHaveLength(3);
  });

  it('rejects vectors whose dimension differs from the configured one', async () => {
    stub.handler = (body, _req, res) => sendJson(res, 200, { data: body.input.map((text, index) => ({ index, embedding: vectorFor(text, 5) })) });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 4 });
    await expect(embedder.embed(['a'])).rejects.toThrow(/5 dimensions, configured 4/);
  });

  it('rejects a non-2xx status with the status and body in the message, without leaking the key', async () => {
    stub.handler = (_body, _req, res) => sendJson(res, 429, { error: { message: 'rate limited' } });
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', apiKey: 'sk-hidden', dimension: 4 });
    const error = await embedder.embed(['a']).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/HTTP 429.*rate limited/);
    expect((error as Error).message).not.toContain('sk-hidden');
  });

  it('rejects a malformed body and missing or out-of-range indices', async () => {
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 2 });
    stub.handler = (_body, _req, res) => sendJson(res, 200, { data: [{ index: 0, embedding: 'nope' }] });
    await expect(embedder.embed(['a'])).rejects.toThrow(/unexpected shape/);
    stub.handler = (_body, _req, res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, 0] }] });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/no vector for input 1/);
    stub.handler = (_body, _req, res) => sendJson(res, 200, { data: [{ index: 0, embedding: [1, 0] }, { index: 2, embedding: [1, 0] }] });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow(/out-of-range index 2/);
  });

  it('times out a slow server', async () => {
    stub.handler = (body, _req, res) => {
      const timer = setTimeout(() => sendJson(res, 200, { data: [{ index: 0, embedding: [1, 0] }] }), 2_000);
      res.on('close', () => clearTimeout(timer));
    };
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 2, timeoutMs: 100 });
    const started = Date.now();
    await expect(embedder.embed(['a'])).rejects.toThrow(/timed out after 100 ms/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('reports a connection failure', async () => {
    const port = await freePort(); // nothing listens there
    const embedder = new OpenAiCompatibleEmbedder({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', dimension: 2 });
    await expect(embedder.embed(['a'])).rejects.toThrow(/failed/);
  });

  it('refuses a non-positive dimension', () => {
    expect(() => new OpenAiCompatibleEmbedder({ baseUrl, model: 'm', dimension: 0 })).toThrow(/dimension/);
  });
});
