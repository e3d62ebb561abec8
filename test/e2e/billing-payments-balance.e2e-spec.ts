import { parsePaymentChallenge, PaymentTestClient } from '@agent-memory/test-support';
import { api, settlement, liveAgent, receiptOf, usage, balance, challengeOf, usePaymentsServer } from './billing-payments/world';

// Payments and billing end to end (docs/billing.md), standalone, BILLING_MODE=enforce, with a local
// settlement (billing-payments/world.ts): the prepaid balance, agent keys on it, and the sandbox credit.

usePaymentsServer();

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
