import { BalanceSchema, CompletePaymentReplySchema, PaymentRecordSchema, SUBJECTS } from '@agent-memory/shared';
import { ApiClient } from '@agent-memory/testing';
import { type E2eServer, parsePaymentChallenge, startE2eServer } from '@agent-memory/test-support';

// Prepaid balances in BILLING_MODE=enforce, in either run mode (E2E_MODE=cluster runs it over NATS and
// PostgreSQL: test/e2e/cluster/billing-balance.cluster.e2e-spec.ts). Payment credentials need a settlement,
// which only the standalone suite can inject (billing-payments.e2e-spec.ts); here a live balance is seeded
// through the billing service's own top-up path (a claimed payment, completed as settled). Rate limits stay
// on: 50 context calls on one record fit the 60 queries per minute per record and 100 requests per agent.

let server: E2eServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startE2eServer({ env: { BILLING_MODE: 'enforce' } });
  api = new ApiClient(server.url);
}, 300_000);
afterAll(() => server?.close({ removeData: true }));

async function seedLiveBalance(agentId: string, amountMicroUsd: number) {
  const challengeId = `seed-${agentId}-${Date.now()}`;
  await server.bus().request(
    SUBJECTS.billing.claimPayment,
    { challengeId, purpose: 'top_up', agentId, amountMicroUsd, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'seed' },
    PaymentRecordSchema,
  );
  return server.bus().request(SUBJECTS.billing.completePayment, { challengeId, outcome: 'settled', reference: 'seed' }, CompletePaymentReplySchema);
}

it('answers 402 with a challenge to a live key without balance, and draws on the balance once it has one', async () => {
  const a = await api.createAgent({ name: 'live payer' });
  const url = `/api/v1/records/${a.recordId}/recall`;
  const refused = await api.request('POST', url, { key: a.agentKey, body: { query: 'hi' } });
  expect([refused.status, refused.code]).toEqual([402, 'PAYMENT_REQUIRED']);
  expect(parsePaymentChallenge(refused.headers.get('www-authenticate')!).request).toMatchObject({ amount: '50000' });

  await seedLiveBalance(a.agentId, 100_000);
  expect((await api.request('POST', url, { key: a.agentKey, body: { query: 'hi' } })).status).toBe(200);
  expect((await api.request('GET', '/api/v1/billing/balance', { key: a.agentKey })).data.balanceMicroUsd).toBe(50_000);
  const usage = (await api.request('GET', '/api/v1/billing/usage', { key: a.agentKey })).data;
  expect(usage).toMatchObject({ total: 1, totalMicroUsd: 50_000, entries: [expect.objectContaining({ operation: 'recall', paymentMethod: 'balance' })] });
});

it('50 parallel paid calls on a balance that covers 30 never overdraw', async () => {
  const a = await api.createAgent({ name: 'parallel payer' });
  expect((await seedLiveBalance(a.agentId, 1_500_000)).balance?.balanceMicroUsd).toBe(1_500_000);
  const results = await Promise.all(Array.from({ length: 50 }, () => api.request('GET', `/api/v1/records/${a.recordId}/context`, { key: a.agentKey })));
  expect(results.filter((r) => r.status === 200)).toHaveLength(30);
  expect(results.filter((r) => r.status === 402)).toHaveLength(20);
  const balance = await server.bus().request(SUBJECTS.billing.balance, { agentId: a.agentId, environment: 'live' }, BalanceSchema);
  expect(balance.balanceMicroUsd).toBe(0);
  const usage = (await api.request('GET', '/api/v1/billing/usage?limit=100', { key: a.agentKey })).data;
  expect([usage.total, usage.totalMicroUsd, usage.entries.length]).toEqual([30, 1_500_000, 30]);
});

it('a test key draws on its sandbox: N calls, N entries, N × 0.05 USD; a replay and a failure add none', async () => {
  const a = await api.createAgent({ name: 'sandbox', environment: 'test' });
  const base = `/api/v1/records/${a.recordId}`;
  const start = (await api.request('GET', '/api/v1/billing/balance', { key: a.agentKey })).data.balanceMicroUsd;
  expect(start).toBeGreaterThan(0);
  const body = { content: 'Sandbox money is never real.', idempotency_key: 'once' };
  expect((await api.request('POST', `${base}/remember`, { key: a.agentKey, body })).status).toBe(200);
  expect((await api.request('POST', `${base}/remember`, { key: a.agentKey, body })).status).toBe(200);
  expect((await api.request('GET', `${base}/context`, { key: a.agentKey })).status).toBe(200);
  expect((await api.request('GET', `${base}/read?path=none.md`, { key: a.agentKey })).status).toBe(404);
  const usage = (await api.request('GET', '/api/v1/billing/usage', { key: a.agentKey })).data;
  expect([usage.environment, usage.total, usage.totalMicroUsd]).toEqual(['test', 2, 100_000]);
  expect((await api.request('GET', '/api/v1/billing/balance', { key: a.agentKey })).data.balanceMicroUsd).toBe(start - 100_000);
});
