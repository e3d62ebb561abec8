import { AgentMemory } from './client';
import { AgentMemoryNetworkError, errorFromResponse, InternalError, RateLimitedError, ValidationError } from './errors';
import { rateLimitWaitSeconds } from './retry';
import { signatureMessage } from './signature';
import { recoverMessageAddress } from 'viem';
import { connectRefused, fail, ok, scripted } from '../test/scripted-fetch';

describe('retries', () => {
  it('repeats a 429 after Retry-After, for any method (a refused call changed nothing)', async () => {
    const { client, calls } = scripted([fail(429, 'RATE_LIMITED', { 'retry-after': '1' }), ok({ id: 'rec_1' })]);
    const started = Date.now();
    expect(await client.records.create({ name: 'r' })).toEqual({ id: 'rec_1' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(calls.map((c) => c.method)).toEqual(['POST', 'POST']);
  });

  it('reports a 429 whose wait exceeds maxRetryAfterMs as RateLimitedError with retryAfterSeconds and requestId', async () => {
    const { client, calls } = scripted([fail(429, 'RATE_LIMITED', { 'retry-after': '61' })]);
    const error = await client.agents.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, requestId: 'req-1', retryAfterSeconds: 61 });
    expect(calls).toHaveLength(1);
  });

  it('reads the wait from Retry-After, else the RateLimit header reset, else 1 s', () => {
    expect(rateLimitWaitSeconds(new Headers({ 'retry-after': '7' }))).toBe(7);
    expect(rateLimitWaitSeconds(new Headers({ 'retry-after': new Date(Date.now() + 3_000).toUTCString() }))).toBeGreaterThanOrEqual(2);
    expect(rateLimitWaitSeconds(new Headers({ ratelimit: '"agent";r=0;t=12' }))).toBe(12);
    expect(rateLimitWaitSeconds(new Headers())).toBe(1);
  });

  it('repeats 500/502/503 and lost answers only for safe calls (reads, idempotent writes)', async () => {
    const get = scripted([fail(503, 'INTERNAL_ERROR'), new TypeError('socket hang up'), ok({ id: 'agt_1' })]);
    expect(await get.client.agents.get()).toEqual({ id: 'agt_1' });
    expect(get.calls).toHaveLength(3);

    const create = scripted([fail(500, 'INTERNAL_ERROR')]);
    await expect(create.client.records.create({ name: 'r' })).rejects.toBeInstanceOf(InternalError);
    const lost = scripted([new TypeError('socket hang up')]);
    await expect(lost.client.records.create({ name: 'r' })).rejects.toBeInstanceOf(AgentMemoryNetworkError);
    expect(create.calls.length + lost.calls.length).toBe(2);
  });

  it('repeats any call whose connection could not be opened', async () => {
    const { client, calls } = scripted([connectRefused(), ok({ id: 'rec_1' })]);
    expect(await client.records.create({ name: 'r' })).toEqual({ id: 'rec_1' });
    expect(calls).toHaveLength(2);
  });

  it('sends one idempotency key on every attempt of a remember, a new one per call', async () => {
    const { client, calls } = scripted([new TypeError('lost'), fail(500, 'INTERNAL_ERROR'), ok({ id: 'mem_1' }), ok({ id: 'mem_2' })]);
    await client.memories.remember('rec_1', { content: 'a' });
    await client.memories.remember('rec_1', { content: 'a' });
    const keys = calls.map((c) => (JSON.parse(c.body!) as { idempotency_key: string }).idempotency_key);
    expect(new Set(keys.slice(0, 3)).size).toBe(1);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('gives up after maxAttempts', async () => {
    const { client, calls } = scripted([fail(503, 'INTERNAL_ERROR'), fail(503, 'INTERNAL_ERROR')], { retries: { maxAttempts: 2, baseDelayMs: 1 } });
    await expect(client.agents.get()).rejects.toMatchObject({ status: 503, code: 'INTERNAL_ERROR' });
    expect(calls).toHaveLength(2);
  });

  it('times out an attempt (timedOut) and stops at once on the caller abort', async () => {
    const hanging: typeof fetch = (_url, init) => new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason as Error)));
    const slow = new AgentMemory({ baseUrl: 'http://api.test', apiKey: 'k', fetch: hanging, timeoutMs: 20, retries: 0 });
    await expect(slow.agents.get()).rejects.toMatchObject({ code: 'NETWORK_ERROR', timedOut: true });
    const controller = new AbortController();
    const pending = slow.agents.get({ signal: controller.signal, timeoutMs: 10_000 });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});

describe('paid reads are not repeated once they may have reached the server (each attempt is charged)', () => {
  const lost = () => new TypeError('socket hang up');

  it('recall, context, memory page and read file: a lost answer or a 503 is reported after one attempt', async () => {
    const calls = [
      (c: AgentMemory) => c.memories.recall('rec_1', { query: 'q' }),
      (c: AgentMemory) => c.memories.context('rec_1'),
      (c: AgentMemory) => c.memories.page('rec_1'),
      (c: AgentMemory) => c.files.read('rec_1', 'a.md'),
    ];
    for (const call of calls) {
      const dropped = scripted([lost(), ok({})]);
      await expect(call(dropped.client)).rejects.toBeInstanceOf(AgentMemoryNetworkError);
      expect(dropped.calls).toHaveLength(1);
      const unavailable = scripted([fail(503, 'INTERNAL_ERROR'), ok({})]);
      await expect(call(unavailable.client)).rejects.toBeInstanceOf(InternalError);
      expect(unavailable.calls).toHaveLength(1);
    }
  });

  it('still repeats a paid read after a 429 or a connection that never opened (never charged)', async () => {
    const { client, calls } = scripted([connectRefused(), fail(429, 'RATE_LIMITED', { 'retry-after': '0' }), ok({ memories: [], count: 0 })]);
    expect(await client.memories.recall('rec_1', { query: 'q' })).toEqual({ memories: [], count: 0 });
    expect(calls).toHaveLength(3);
  });

  it('repeats paid reads after a lost answer when the caller opts in with retries.paidReads', async () => {
    const { client, calls } = scripted([lost(), fail(500, 'INTERNAL_ERROR'), ok({ memories: [], count: 0 })], { retries: { baseDelayMs: 1, paidReads: true } });
    expect(await client.memories.recall('rec_1', { query: 'q' })).toEqual({ memories: [], count: 0 });
    expect(calls).toHaveLength(3);
  });

  it('keeps repeating free reads and idempotent paid writes (one idempotency key: charged once)', async () => {
    const files = scripted([lost(), ok({ files: [], nextCursor: null })]);
    await files.client.files.page('rec_1');
    expect(files.calls).toHaveLength(2);
    const write = scripted([lost(), ok({ path: 'a.md' })]);
    await write.client.files.write('rec_1', { path: 'a.md', content: 'a' });
    expect(write.calls).toHaveLength(2);
  });
});

describe('a baseUrl with a path prefix (a reverse proxy that strips it)', () => {
  it('sends to <baseUrl>/api/v1/… and signs /api/v1/…, the path the gateway sees', async () => {
    const { client, calls } = scripted([ok({ id: 'agt_1' })], {
      baseUrl: 'https://proxy.example.com/memory/',
      apiKey: undefined,
      wallet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      signature: { domain: 'memory.example.com', chainId: 8453 },
    });
    await client.agents.get();
    expect(calls[0].url).toBe('https://proxy.example.com/memory/api/v1/agents');
    const [, ts, address, signature] = /^Signature (\d+):(0x[0-9a-fA-F]{40}):(0x[0-9a-f]{130})$/.exec(calls[0].authorization!)!;
    const message = await signatureMessage({ domain: 'memory.example.com', chainId: 8453, method: 'GET', pathWithQuery: '/api/v1/agents', timestamp: Number(ts), body: '' });
    expect(await recoverMessageAddress({ message, signature: signature as `0x${string}` })).toBe(address);
  });
});

describe('error codes', () => {
  it('takes a code from the body only when it is one of the service\'s own codes (not an inherited name)', () => {
    for (const code of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const error = errorFromResponse(400, new Headers(), { success: false, error: { code, message: 'm' } });
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.code).toBe('VALIDATION_ERROR');
    }
    expect(errorFromResponse(500, new Headers(), { success: false, error: { code: 'RATE_LIMITED', message: 'm' } })).toBeInstanceOf(RateLimitedError);
  });
});
