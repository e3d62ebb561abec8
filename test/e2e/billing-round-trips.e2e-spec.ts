import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { BUS_TRANSPORT_CLIENT, BusClient } from '@agent-memory/platform';
import { CompletePaymentReplySchema, PaymentRecordSchema, SUBJECTS } from '@agent-memory/shared';
import { ApiClient, OperatorBusClient } from '@agent-memory/testing';
import { LocalPaymentSettlement, PaymentTestClient, startStandaloneServer, type TestServer } from '@agent-memory/test-support';

// Bus round trips of one paid recall (docs/architecture.md, "Request path of a paid recall"), counted by a
// spy on the gateway's BusClient in a standalone server with BILLING_MODE=enforce and a local settlement:
// paid from a prepaid balance with the agent key, and paid with a Payment credential.

const ENV = {
  BILLING_MODE: 'enforce',
  PAYMENT_SECRET_KEY: 'round-trips-e2e-secret-0123456789abcdefghij',
  PAYMENT_RECIPIENT: privateKeyToAccount(generatePrivateKey()).address,
};
let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startStandaloneServer({ env: ENV, paymentSettlement: new LocalPaymentSettlement() });
  api = new ApiClient(server.url);
}, 120_000);
afterAll(() => server?.close({ removeData: true }));

/** The subjects of every bus request made while `run` runs, in order. */
async function subjectsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const bus = server.app.get(BusClient);
  const original = bus.request.bind(bus);
  const subjects: string[] = [];
  const spy = jest.spyOn(bus, 'request').mockImplementation((subject: string, payload: unknown, schema: Parameters<BusClient['request']>[2]) => {
    subjects.push(subject);
    return original(subject, payload, schema);
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return subjects;
}

it('a recall paid from the balance with an agent key takes 5 bus round trips, 3 once the standalone gateway has seen the key and the record', async () => {
  const a = await api.createAgent({ name: 'balance payer' });
  // A live balance seeded through the billing service's own top-up path (a claimed payment, settled).
  const bus = new OperatorBusClient(server.app.get(BUS_TRANSPORT_CLIENT), 30_000);
  const challengeId = `seed-${a.agentId}`;
  await bus.request(SUBJECTS.billing.claimPayment, { challengeId, purpose: 'top_up', agentId: a.agentId, amountMicroUsd: 100_000, payer: ENV.PAYMENT_RECIPIENT, requestId: 'seed' }, PaymentRecordSchema);
  await bus.request(SUBJECTS.billing.completePayment, { challengeId, outcome: 'settled', reference: 'seed' }, CompletePaymentReplySchema);
  const recall = () => api.request('POST', `/api/v1/records/${a.recordId}/recall`, { key: a.agentKey, body: { query: 'anything' } });
  // warm-up of the service on another agent (the embedder loads on first use)
  const other = await api.createAgent({ name: 'warm-up' });
  await api.request('POST', `/api/v1/records/${other.recordId}/recall`, { key: other.agentKey, body: { query: 'anything' } });
  const first = await subjectsDuring(async () => expect((await recall()).status).toBe(200));
  expect(first).toEqual([SUBJECTS.agents.authenticateKey, SUBJECTS.records.resolveAccess, SUBJECTS.billing.reserve, SUBJECTS.memory.recall, SUBJECTS.billing.commit]);
  // the standalone gateway keeps the key's principal and the record's access (docs/architecture.md, "Caches of the gateway")
  const next = await subjectsDuring(async () => expect((await recall()).status).toBe(200));
  expect(next).toEqual([SUBJECTS.billing.reserve, SUBJECTS.memory.recall, SUBJECTS.billing.commit]);
}, 120_000);

it('a recall paid with a Payment credential takes 6 bus round trips (the record access check is the payment guard’s)', async () => {
  const a = await api.createAgent({ name: 'credential payer' });
  const wallet = new PaymentTestClient({ privateKey: a.walletPrivateKey as `0x${string}` });
  const url = `/api/v1/records/${a.recordId}/recall`;
  const body = { query: 'anything' };
  const refused = await api.request('POST', url, { body });
  expect(refused.status).toBe(402);
  const credential = await wallet.credentialFor(refused.headers.get('www-authenticate')!);
  const subjects = await subjectsDuring(async () => expect((await api.request('POST', url, { headers: { authorization: credential }, body })).status).toBe(200));
  expect(subjects).toEqual([
    SUBJECTS.records.resolveOwner,
    SUBJECTS.agents.getWallet,
    SUBJECTS.billing.claimPayment,
    SUBJECTS.billing.completePayment, // submitted: the settlement reference, stored before the money moves
    SUBJECTS.memory.recall,
    SUBJECTS.billing.settlePaidCall, // settled, usage recorded, refund decided: one transaction
  ]);
}, 120_000);
