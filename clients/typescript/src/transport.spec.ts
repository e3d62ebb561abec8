import { AgentMemory } from './client';
import { AgentMemoryNetworkError, InternalError, PaymentRefusedError, PaymentRequiredError, RateLimitedError } from './errors';
import { challengePriceMicroUsd, formatMicro, usdToMicro } from './payments';
import { rateLimitWaitSeconds } from './retry';

type Answer = Response | Error;
const ok = (data: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify({ success: true, data }), { status: 200, headers });
const fail = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ success: false, error: { code, message: `${code} message` } }), { status, headers: { 'x-request-id': 'req-1', ...headers } });
const connectRefused = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

/** A client whose fetch answers `answers` in order and records each request. */
function scripted(answers: Answer[], options: Partial<ConstructorParameters<typeof AgentMemory>[0]> = {}) {
  const calls: { method: string; url: string; body?: string; authorization?: string }[] = [];
  const fakeFetch: typeof fetch = async (url, init) => {
    const headers = init?.headers as Record<string, string>;
    calls.push({ method: init!.method!, url: url as string, body: init?.body as string | undefined, authorization: headers['authorization'] });
    const next = answers.shift();
    if (!next) throw new Error('no scripted answer left');
    if (next instanceof Error) throw next;
    return next;
  };
  const client = new AgentMemory({ baseUrl: 'http://api.test', apiKey: 'amk_test_k', fetch: fakeFetch, retries: { baseDelayMs: 1 }, ...options });
  return { client, calls };
}

const challenge = (amount: string) =>
  `Payment id="c1", realm="api.test", method="evm", intent="charge", request="${Buffer.from(JSON.stringify({ amount, currency: '0x0', recipient: '0x1', methodDetails: { chainId: 84532, decimals: 6 } })).toString('base64url')}"`;

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

describe('payments', () => {
  it('without payments enabled: PaymentRequiredError carrying the challenge', async () => {
    const { client } = scripted([fail(402, 'PAYMENT_REQUIRED', { 'www-authenticate': challenge('50000') })]);
    const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRequiredError);
    expect((error as PaymentRequiredError).challenge).toBe(challenge('50000'));
  });

  it('refuses a challenge above maxPricePerCall before signing anything', async () => {
    const { client, calls } = scripted([fail(402, 'PAYMENT_REQUIRED', { 'www-authenticate': challenge('50000') })], {
      wallet: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
      payments: { enabled: true, maxPricePerCall: '0.049999' },
    });
    const error = await client.memories.recall('rec_1', { query: 'q' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRefusedError);
    expect(error).toMatchObject({ code: 'PAYMENT_REQUIRED', status: 402, priceMicroUsd: 50_000n, maxPriceMicroUsd: 49_999n });
    expect(calls).toHaveLength(1);
  });

  it('reads prices in micro-USD, rounding a fraction of a micro-USD up', () => {
    expect(usdToMicro('0.05')).toBe(50_000n);
    expect(usdToMicro(10)).toBe(10_000_000n);
    expect(() => usdToMicro('0.0000001')).toThrow(TypeError);
    expect(challengePriceMicroUsd(challenge('50000'))).toBe(50_000n);
    const eighteen = `Payment request="${Buffer.from(JSON.stringify({ amount: '50000000000000001', methodDetails: { decimals: 18 } })).toString('base64url')}"`;
    expect(challengePriceMicroUsd(eighteen)).toBe(50_001n);
    expect(challengePriceMicroUsd('Payment request="!!"')).toBeUndefined();
    expect(formatMicro(50_000n)).toBe('0.05');
    expect(formatMicro(1_234_567n)).toBe('1.234567');
  });
});
