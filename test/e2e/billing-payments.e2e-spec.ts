import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { GetPaymentUseCase, SweepReservationsUseCase } from '@agent-memory/billing';
import { type GatewayOptions, PaymentEnvSchema, paymentOptionsFromEnv, PaymentProtocol, requestDigest } from '@agent-memory/gateway';
import { BusClient } from '@agent-memory/platform';
import { DomainError, SUBJECTS } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { LocalPaymentSettlement, parsePaymentChallenge, PaymentTestClient, startStandaloneServer, type TestServer } from '@agent-memory/test-support';

// Payments and billing end to end (docs/billing.md), standalone, BILLING_MODE=enforce, with a local
// settlement in place of the chain. Credentials are real: mppx's client signs EIP-3009 authorizations
// with viem local accounts (the agents' own wallets). Rate limits stay on: the parallel test makes 50
// context calls on one record, within the 60 queries per minute per record and 100 requests per agent.

const SECRET = 'billing-e2e-secret-0123456789abcdefghijklmnop';
const RECIPIENT = privateKeyToAccount(generatePrivateKey()).address;
const ENV = { BILLING_MODE: 'enforce', PAYMENT_SECRET_KEY: SECRET, PAYMENT_RECIPIENT: RECIPIENT, BILLING_SANDBOX_CREDIT_USD: '0.50' };

let server: TestServer;
let api: ApiClient;
const settlement = new LocalPaymentSettlement();

beforeAll(async () => {
  server = await startStandaloneServer({ env: ENV, paymentSettlement: settlement });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

/** A live agent whose wallet the service generated; its key, record and a payment client on that wallet. */
async function liveAgent() {
  const a = await api.createAgent({ name: `payer ${Math.random()}` });
  return { ...a, wallet: new PaymentTestClient({ privateKey: a.walletPrivateKey as `0x${string}` }) };
}

/** Another minter of challenges with this server's parameters, for credentials the server must refuse. */
function minter(overrides: { secretKey?: string; challengeTtlSeconds?: number } = {}) {
  const payments = { ...paymentOptionsFromEnv(PaymentEnvSchema.parse(ENV)), ...overrides };
  return new PaymentProtocol({ rateLimitsEnabled: true, anonymousPerMinute: 100, billingMode: 'enforce', signatureWindowSeconds: 300, payments } as GatewayOptions, settlement);
}

function receiptOf(res: { headers: Headers }) {
  const header = res.headers.get('payment-receipt');
  return header ? JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) : undefined;
}

async function usage(key: string, query = '') {
  return (await api.request('GET', `/api/v1/billing/usage${query}`, { key })).data;
}

async function balance(key: string) {
  return (await api.request('GET', '/api/v1/billing/balance', { key })).data;
}

/** 402 with a Payment challenge: the challenge header. */
async function challengeOf(res: { status: number; code?: string; headers: Headers }) {
  expect(res.status).toBe(402);
  expect(res.code).toBe('PAYMENT_REQUIRED');
  const header = res.headers.get('www-authenticate');
  expect(header).toMatch(/^Payment /);
  return header!;
}

describe('prices and challenges', () => {
  it('lists the price list and the payment parameters, without auth', async () => {
    const prices = (await api.request('GET', '/api/v1/billing/prices')).data;
    expect(prices.billingMode).toBe('enforce');
    expect(prices.paid.map((p: any) => [p.operation, p.priceMicroUsd, p.priceUsd])).toEqual([
      ['recall', 50_000, '0.05'],
      ['remember', 50_000, '0.05'],
      ['forget', 50_000, '0.05'],
      ['read_file', 50_000, '0.05'],
      ['write_file', 50_000, '0.05'],
      ['context', 50_000, '0.05'],
    ]);
    expect(prices.payment).toMatchObject({ scheme: 'Payment', method: 'evm', intent: 'charge', chainId: 84532, recipient: RECIPIENT, decimals: 6 });
  });

  it('answers a paid call without payment with 402 in the envelope and a challenge stating 0.05 USD for that operation', async () => {
    const { recordId, agentKey } = await liveAgent();
    const res = await api.request('POST', `/api/v1/records/${recordId}/recall`, { body: { query: 'anything' } });
    expect(res.body).toEqual({ success: false, error: { code: 'PAYMENT_REQUIRED', message: expect.stringContaining('0.05 USD') } });
    const c = parsePaymentChallenge(await challengeOf(res));
    expect(c.params).toMatchObject({ method: 'evm', intent: 'charge', realm: 'agent-memory', description: expect.stringContaining('recall: 0.05 USD per query') });
    expect(c.request).toMatchObject({ amount: '50000', recipient: RECIPIENT, methodDetails: { chainId: 84532, decimals: 6 } });
    // The scope binds the operation, the record and this exact request (method, path and query, raw body).
    const digest = requestDigest({ method: 'POST', url: `/api/v1/records/${recordId}/recall`, body: JSON.stringify({ query: 'anything' }) });
    expect(c.opaque).toMatchObject({ _mppx_scope: `call:recall:${recordId}:${digest}` });
    expect(res.headers.get('cache-control')).toBe('no-store');

    // A live key with an empty balance gets the same kind of challenge for its operation.
    const withKey = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    expect(parsePaymentChallenge(await challengeOf(withKey)).opaque).toMatchObject({ _mppx_scope: `call:context:${recordId}:${requestDigest({ method: 'GET', url: `/api/v1/records/${recordId}/context` })}` });
    expect(withKey.body).toMatchObject({ error: { message: expect.stringContaining('Insufficient balance: 0.00 USD available, 0.05 USD needed') } });
    // Free endpoints stay free, and unauthenticated free calls are still 401.
    expect((await api.request('GET', '/api/v1/records', { key: agentKey })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/records')).status).toBe(401);
    expect((await usage(agentKey)).total).toBe(0);
  });
});

describe('paying a call with a Payment credential', () => {
  it('verifies the credential, runs the call, answers Payment-Receipt, and records one ledger entry', async () => {
    const { recordId, agentKey, wallet, walletAddress } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember`;
    const body = { content: 'Paid memories are still memories.', path: 'notes/paid' };
    const header = await challengeOf(await api.request('POST', url, { key: agentKey, body }));
    const credential = await wallet.credentialFor(header);
    expect(credential).toMatch(/^Payment /);
    const before = settlement.settled.length;

    const paid = await api.request('POST', url, { headers: { authorization: credential }, body });
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ path: 'notes/paid', type: expect.any(String) });
    expect(receiptOf(paid)).toMatchObject({ method: 'evm', status: 'success', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(settlement.settled.slice(before)).toEqual([
      expect.objectContaining({ chainId: 84532, authorization: expect.objectContaining({ from: walletAddress, to: RECIPIENT, value: '50000' }) }),
    ]);
    const u = await usage(agentKey);
    expect(u.entries).toEqual([expect.objectContaining({ operation: 'remember', amountMicroUsd: 50_000, paymentMethod: 'payment', environment: 'live', recordId })]);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);

    // The same credential again: refused (replay), nothing settled, nothing charged, nothing written.
    const replay = await api.request('POST', url, { headers: { authorization: credential }, body });
    await challengeOf(replay);
    expect(replay.body).toMatchObject({ error: { message: expect.stringContaining('already used') } });
    // With another body it is not even this request's credential.
    const other = await api.request('POST', url, { headers: { authorization: credential }, body: { content: 'A replayed write.', path: 'notes/replayed' } });
    await challengeOf(other);
    expect(other.body).toMatchObject({ error: { message: expect.stringContaining('scope does not match') } });
    expect(settlement.settled.length).toBe(before + 1);
    expect((await usage(agentKey)).total).toBe(1);
    const ctx: any = await (await wallet.fetch(`${server.url}/api/v1/records/${recordId}/context`)).json();
    expect(Object.values(ctx.data).flat().map((m: any) => m.path)).toEqual(['notes/paid']);
  });

  it('refuses a credential for another operation, another record, less than the price, expired, not issued here, or from another wallet', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const other = (await api.request('POST', '/api/v1/records', { key: agentKey, body: { name: 'second' } })).data.id;
    const recall = `/api/v1/records/${recordId}/recall`;
    const body = { query: 'what do I know?' };
    const before = settlement.settled.length;
    const refuse = async (credential: string, reason: RegExp) => {
      const res = await api.request('POST', recall, { headers: { authorization: credential }, body });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: expect.stringMatching(reason) } });
    };

    const contextChallenge = await challengeOf(await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey }));
    await refuse(await wallet.credentialFor(contextChallenge), /scope|does not match/);
    const otherRecordChallenge = await challengeOf(await api.request('POST', `/api/v1/records/${other}/recall`, { key: agentKey, body }));
    await refuse(await wallet.credentialFor(otherRecordChallenge), /scope|does not match/);

    const target = minter().callTarget('recall', recordId, { method: 'POST', url: recall, body: JSON.stringify(body) });
    await refuse(await wallet.credentialFor(await minter().challenge({ ...target, amountMicroUsd: 10_000 })), /amount/);
    const shortLived = minter({ challengeTtlSeconds: 1 });
    const expiring = await wallet.credentialFor(await shortLived.challenge(target));
    await new Promise((r) => setTimeout(r, 1_500));
    await refuse(expiring, /expired/i);
    await refuse(await wallet.credentialFor(await minter({ secretKey: 'another-server-secret-0123456789abcdef' }).challenge(target)), /not issued by this server/);

    // A valid challenge paid by a wallet that is not the record's agent: as for another agent's record.
    const stranger = new PaymentTestClient();
    const valid = await challengeOf(await api.request('POST', recall, { key: agentKey, body }));
    const strangerPaid = await api.request('POST', recall, { headers: { authorization: await stranger.credentialFor(valid) }, body });
    expect(strangerPaid.status).toBe(404);
    expect(strangerPaid.code).toBe('NOT_FOUND');

    expect(settlement.settled.length).toBe(before);
    expect((await usage(agentKey)).total).toBe(0);
  });

  it('refuses a credential sent with another body or query than the request its challenge was issued for, and changes nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const base = `/api/v1/records/${recordId}`;
    const before = settlement.settled.length;
    const refused = async (method: string, asked: { url: string; body?: unknown }, sent: { url: string; body?: unknown }) => {
      const credential = await wallet.credentialFor(await challengeOf(await api.request(method, asked.url, { key: agentKey, body: asked.body })));
      const res = await api.request(method, sent.url, { headers: { authorization: credential }, body: sent.body });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: expect.stringMatching(/scope|does not match/) } });
      return credential;
    };
    // forget ?path=a paid, sent as forget ?path=b; write of one file paid, sent as another; recall with another query text.
    await refused('DELETE', { url: `${base}/remember?path=notes/a` }, { url: `${base}/remember?path=notes/b` });
    await refused('POST', { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless' } }, { url: `${base}/write`, body: { path: 'b.txt', content: 'overwritten' } });
    await refused('POST', { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless' } }, { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless', idempotency_key: 'k' } });
    await refused('POST', { url: `${base}/recall`, body: { query: 'one' } }, { url: `${base}/recall`, body: { query: 'two' } });
    expect(settlement.settled.length).toBe(before);
    expect((await usage(agentKey)).total).toBe(0);
    // Nothing was written: a paid read of b.txt finds no file (and its price goes back to the balance).
    expect((await wallet.fetch(`${server.url}${base}/read?path=b.txt`)).status).toBe(404);
  });

  it("lets mppx's payment-aware fetch discover the price and pay, with no agent key", async () => {
    const { recordId, wallet, agentKey } = await liveAgent();
    const res = await wallet.fetch(`${server.url}/api/v1/records/${recordId}/context`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, data: { identity: [], fact: [] } });
    expect(receiptOf(res)).toMatchObject({ status: 'success' });
    expect((await usage(agentKey)).entries).toEqual([expect.objectContaining({ operation: 'context', paymentMethod: 'payment' })]);
  });

  it('does not charge a paid call that fails or is an idempotent replay: the settled amount goes to the live balance', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const pay = async (method: string, url: string, body?: unknown) =>
      api.request(method, url, { headers: { authorization: await wallet.credentialFor(await challengeOf(await api.request(method, url, { key: agentKey, body }))) }, body });

    const write = { path: 'a.txt', content: 'once', idempotency_key: 'w-1' };
    const first = await pay('POST', `/api/v1/records/${recordId}/write`, write);
    expect(first.status).toBe(200);

    const missing = await pay('DELETE', `/api/v1/records/${recordId}/remember?path=nothing/here`);
    expect(missing.status).toBe(404);
    expect(receiptOf(missing)).toMatchObject({ status: 'success' });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);

    // An idempotent replay paid from the balance: reserved, then voided.
    const replay = await api.request('POST', `/api/v1/records/${recordId}/write`, { key: agentKey, body: write });
    expect(replay.data).toEqual(first.data);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);
    // An idempotent replay paid with a credential (challenge from an unauthenticated call): settled, then refunded.
    const challenge = await challengeOf(await api.request('POST', `/api/v1/records/${recordId}/write`, { body: write }));
    const paidReplay = await api.request('POST', `/api/v1/records/${recordId}/write`, { headers: { authorization: await wallet.credentialFor(challenge) }, body: write });
    expect(paidReplay.data).toEqual(first.data);
    expect(receiptOf(paidReplay)).toMatchObject({ status: 'success' });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(100_000);
    const u = await usage(agentKey);
    expect(u.entries.map((e: any) => [e.operation, e.paymentMethod])).toEqual([['write_file', 'payment']]);
  });

  it('answers 402 when settlement fails, and charges nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/context`;
    settlement.failWith = 'the payer has insufficient funds';
    try {
      const res = await api.request('GET', url, { headers: { authorization: await wallet.credentialFor(await challengeOf(await api.request('GET', url, { key: agentKey }))) } });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: 'Payment could not be settled: the payer has insufficient funds' } });
    } finally {
      settlement.failWith = undefined;
    }
    expect((await usage(agentKey)).total).toBe(0);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
  });
});

describe('prepaid balance', () => {
  it('is topped up by a verified payment, once per credential', async () => {
    const { agentKey, wallet, agentId } = await liveAgent();
    const ask = await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '1.50' } });
    const c = parsePaymentChallenge(await challengeOf(ask));
    expect(c.request).toMatchObject({ amount: '1500000' });
    expect(c.opaque).toMatchObject({ agent: agentId, _mppx_scope: 'top_up' });
    const credential = await wallet.credentialFor(ask.headers.get('www-authenticate')!);

    const paid = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '1.50' } });
    expect(paid.data).toMatchObject({ agentId, environment: 'live', balanceMicroUsd: 1_500_000, balanceUsd: '1.50', creditedMicroUsd: 1_500_000, reference: expect.any(String) });
    expect(receiptOf(paid)).toMatchObject({ status: 'success' });
    await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '1.50' } }));
    // The credential states its amount: another body amount is refused.
    const cheaper = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '15.00' } });
    await challengeOf(cheaper);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(1_500_000);
    // Any wallet may pay an agent's top-up challenge (the money only adds to that agent's balance).
    const gift = await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: 1 } });
    const friend = new PaymentTestClient();
    const gifted = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: await friend.credentialFor(gift.headers.get('www-authenticate')!) }, body: { amount: 1 } });
    expect(gifted.data.balanceMicroUsd).toBe(2_500_000);
    // A call challenge (bound to no agent) cannot top up.
    const callChallenge = await challengeOf(await api.request('GET', `/api/v1/records/${(await liveAgent()).recordId}/context`));
    const wrong = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: await wallet.credentialFor(callChallenge) }, body: { amount: '0.05' } });
    expect(wrong.status).toBe(402);
    expect(wrong.body).toMatchObject({ error: { code: 'PAYMENT_REQUIRED', message: expect.stringContaining('issued to an agent') } });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(2_500_000);
  });

  it('50 parallel paid calls on a balance that covers 30 never overdraw: 30 answered, 20 refused with 402, 30 ledger entries', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const ask = await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '1.50' } });
    await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: await wallet.credentialFor(ask.headers.get('www-authenticate')!) }, body: { amount: '1.50' } });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(1_500_000);

    const results = await Promise.all(Array.from({ length: 50 }, () => api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    expect(results.filter((r) => r.status === 402 && r.code === 'PAYMENT_REQUIRED')).toHaveLength(20);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
    const u = await usage(agentKey, '?limit=100');
    expect(u.total).toBe(30);
    expect(u.totalMicroUsd).toBe(1_500_000);
    expect(u.totalUsd).toBe('1.50');
    expect(u.entries.every((e: any) => e.paymentMethod === 'balance' && e.operation === 'context')).toBe(true);
  });
});

describe('agent keys on the balance, and the sandbox', () => {
  it('N successful paid calls give exactly N ledger entries and N × 0.05 USD; replays, failures and free calls add none', async () => {
    const a = await api.createAgent({ name: 'sandbox agent', environment: 'test' });
    const key = a.agentKey;
    expect(key).toMatch(/_test_/);
    const base = `/api/v1/records/${a.recordId}`;
    expect(await balance(key)).toMatchObject({ environment: 'test', balanceMicroUsd: 500_000, balanceUsd: '0.50', currency: 'USD' });

    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await api.request(method, `${base}${path}`, { key, body });
      expect(res.status).toBe(200);
      return res.data;
    };
    const memory = await ok('POST', '/remember', { content: 'I keep my keys in the blue bowl.', idempotency_key: 'm-1' });
    expect(await ok('POST', '/remember', { content: 'I keep my keys in the blue bowl.', idempotency_key: 'm-1' })).toEqual(memory);
    await ok('POST', '/write', { path: 'todo.md', content: '- milk' });
    await ok('GET', '/read?path=todo.md');
    await ok('POST', '/recall', { query: 'where are my keys?' });
    await ok('GET', '/context');
    await ok('DELETE', `/remember?id=${memory.id}`);
    // Failures: not found, invalid body, unknown record; free calls: records, agent, billing reads.
    expect((await api.request('DELETE', `${base}/remember?path=missing`, { key })).status).toBe(404);
    expect((await api.request('GET', `${base}/read?path=missing.md`, { key })).status).toBe(404);
    expect((await api.request('POST', `${base}/recall`, { key, body: { query: '' } })).status).toBe(400);
    // A test key gets 403 for any record not its own (no existence oracle; docs/authentication.md).
    expect((await api.request('GET', `/api/v1/records/rec_doesnotexist0000000000/context`, { key })).status).toBe(403);
    expect((await api.request('POST', '/api/v1/records', { key, body: { name: 'free' } })).status).toBe(201);
    expect((await api.request('GET', '/api/v1/agents', { key })).status).toBe(200);

    const u = await usage(key, '?limit=2');
    expect(u).toMatchObject({ environment: 'test', total: 6, totalMicroUsd: 300_000, totalUsd: '0.30', limit: 2, offset: 0 });
    expect(u.entries).toHaveLength(2);
    expect(Object.fromEntries(u.byOperation.map((o: any) => [o.operation, o.count]))).toEqual({ context: 1, forget: 1, read_file: 1, recall: 1, remember: 1, write_file: 1 });
    expect(u.byDay).toEqual([{ date: new Date().toISOString().slice(0, 10), count: 6, amountMicroUsd: 300_000 }]);
    expect((await usage(key, '?operation=remember')).total).toBe(1);
    expect((await api.request('GET', '/api/v1/billing/usage?limit=0', { key })).status).toBe(400);
    expect((await balance(key)).balanceMicroUsd).toBe(200_000);
  });

  it('a test key draws on the sandbox only and can never spend real funds', async () => {
    const a = await api.createAgent({ name: 'sandbox only', environment: 'test' });
    const url = `/api/v1/records/${a.recordId}/context`;
    for (let i = 0; i < 10; i++) expect((await api.request('GET', url, { key: a.agentKey })).status).toBe(200);
    const empty = await api.request('GET', url, { key: a.agentKey });
    expect(empty.status).toBe(402);
    expect(empty.headers.get('www-authenticate')).toBeNull();
    expect(empty.body).toMatchObject({ error: { message: expect.stringContaining('sandbox/top-up') } });
    expect((await api.request('POST', '/api/v1/billing/top-up', { key: a.agentKey, body: { amount: '5' } })).status).toBe(403);

    const topped = await api.request('POST', '/api/v1/billing/sandbox/top-up', { key: a.agentKey, body: { amount: '1.00' } });
    expect(topped.data).toMatchObject({ environment: 'test', balanceMicroUsd: 1_000_000, creditedMicroUsd: 1_000_000 });
    expect((await api.request('GET', url, { key: a.agentKey })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/billing/sandbox/top-up', { key: a.agentKey, body: { amount: '0.01' } })).status).toBe(400);

    // Its wallet cannot pay real money for its calls either.
    const wallet = new PaymentTestClient({ privateKey: a.walletPrivateKey as `0x${string}` });
    const before = settlement.settled.length;
    const challenge = await challengeOf(await api.request('GET', url));
    const paid = await api.request('GET', url, { headers: { authorization: await wallet.credentialFor(challenge) } });
    expect([paid.status, paid.code]).toEqual([403, 'FORBIDDEN']);
    expect(settlement.settled.length).toBe(before);

    const live = await liveAgent();
    expect((await api.request('POST', '/api/v1/billing/sandbox/top-up', { key: live.agentKey, body: { amount: '1' } })).status).toBe(403);
    expect((await balance(live.agentKey)).environment).toBe('live');
  });
});

describe('when the bus or the settlement fails after the money moved or was held', () => {
  type Fault = 'dropped' | 'lost-reply' | 'late';
  /**
   * Fault injection on the real server's bus: the next requests on `subject` (whose payload matches `when`)
   * fail as a NATS timeout would, one per entry of `faults`: `dropped` (never handled), `lost-reply`
   * (handled, the reply lost) or `late` (handled 300 ms after the sender gave up, as a queued message).
   */
  function injectBusFaults(subject: string, faults: Fault[], when: (payload: any) => boolean = () => true) {
    const bus = server.app.get(BusClient);
    const original = bus.request.bind(bus);
    const left = [...faults];
    const late: Promise<unknown>[] = [];
    const spy = jest.spyOn(bus, 'request').mockImplementation(async (s: string, payload: unknown, schema: any) => {
      const fault = s === subject && when(payload) ? left.shift() : undefined;
      if (fault === 'lost-reply') await original(s, payload, schema);
      if (fault === 'late') late.push(new Promise((r) => setTimeout(r, 300)).then(() => original(s, payload, schema).catch(() => undefined)));
      if (fault) throw new DomainError('INTERNAL_ERROR', `The service did not answer in time (${s})`);
      return original(s, payload, schema);
    });
    return {
      injected: () => faults.length - left.length,
      restore: async () => {
        spy.mockRestore();
        await Promise.all(late);
      },
    };
  }
  const challengeIdOf = (credential: string) => JSON.parse(Buffer.from(credential.replace(/^Payment\s+/, ''), 'base64url').toString('utf8')).challenge.id as string;
  const paymentRow = (credential: string) => server.app.get(GetPaymentUseCase).execute({ challengeId: challengeIdOf(credential) });

  it('credits a settled top-up exactly once although its completion is lost twice on the bus (retried); its reference is stored', async () => {
    const { agentKey, wallet } = await liveAgent();
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.50' } })));
    const faults = injectBusFaults(SUBJECTS.billing.completePayment, ['lost-reply', 'dropped'], (p) => p.outcome === 'settled');
    const paid = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '0.50' } }).finally(faults.restore);
    expect(faults.injected()).toBe(2);
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ balanceMicroUsd: 500_000, creditedMicroUsd: 500_000 });
    expect(await paymentRow(credential)).toMatchObject({ status: 'settled', reference: paid.data.reference });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(500_000);
  });

  it('refunds a failed paid call exactly once although the refund credit is lost twice on the bus (retried)', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember?path=nothing/here`;
    const credential = await wallet.credentialFor(await challengeOf(await api.request('DELETE', url, { key: agentKey })));
    const faults = injectBusFaults(SUBJECTS.billing.credit, ['lost-reply', 'lost-reply']);
    const missing = await api.request('DELETE', url, { headers: { authorization: credential } }).finally(faults.restore);
    expect(faults.injected()).toBe(2);
    expect(missing.status).toBe(404);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);
    expect((await usage(agentKey)).total).toBe(0);
  });

  it('a settlement not confirmed in time answers 402 without a challenge, leaves the payment claimed with its reference, and runs and charges nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember`;
    const body = { content: 'Written only if paid.', path: 'notes/pending' };
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', url, { key: agentKey, body })));
    const topUp = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '1' } })));
    settlement.pendingWith = 'no receipt within 60000 ms';
    let call, top;
    try {
      call = await api.request('POST', url, { headers: { authorization: credential }, body });
      top = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: topUp }, body: { amount: '1' } });
    } finally {
      settlement.pendingWith = undefined;
    }
    for (const [res, cred] of [[call, credential], [top, topUp]] as const) {
      expect([res.status, res.code]).toEqual([402, 'PAYMENT_REQUIRED']);
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect((res.body as any).error.message).toMatch(/^Payment submitted as 0x[0-9a-f]{64} but not confirmed yet .*being reconciled. Do not pay again/);
      const row = await paymentRow(cred);
      expect(row).toMatchObject({ status: 'claimed', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect((res.body as any).error.message).toContain(row!.reference);
    }
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
    expect((await usage(agentKey)).total).toBe(0);
    expect((await api.request('GET', `/api/v1/records/${recordId}`, { key: agentKey })).status).toBe(200);
    // The credential stays used: paying it again is refused.
    const again = await api.request('POST', url, { headers: { authorization: credential }, body });
    expect(again.body).toMatchObject({ error: { message: expect.stringContaining('already used') } });
  });

  it('a settled top-up whose credit cannot be recorded after every retry answers 402 "being reconciled", with its receipt; the payment stays claimed with its reference', async () => {
    const { agentKey, wallet } = await liveAgent();
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.10' } })));
    const faults = injectBusFaults(SUBJECTS.billing.completePayment, ['dropped', 'dropped', 'dropped', 'dropped', 'dropped'], (p) => p.outcome === 'settled');
    const res = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '0.10' } }).finally(faults.restore);
    expect(faults.injected()).toBe(5);
    expect([res.status, res.code]).toEqual([402, 'PAYMENT_REQUIRED']);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(receiptOf(res)).toMatchObject({ status: 'success' });
    expect((res.body as any).error.message).toContain('being reconciled');
    expect(await paymentRow(credential)).toMatchObject({ status: 'claimed', reference: receiptOf(res).reference });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
  });

  it('a reserve that arrives after the gateway gave up and released it debits nothing and holds nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const ask = await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.50' } });
    await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: await wallet.credentialFor(await challengeOf(ask)) }, body: { amount: '0.50' } });
    const faults = injectBusFaults(SUBJECTS.billing.reserve, ['late', 'lost-reply']);
    const first = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    const second = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    await faults.restore();
    expect([first.status, second.status]).toEqual([500, 500]);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(500_000);
    expect(await server.app.get(SweepReservationsUseCase).execute({ olderThanMs: 0 })).toMatchObject({ voided: 0 });
    expect((await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey })).status).toBe(200);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(450_000);
  });
});
