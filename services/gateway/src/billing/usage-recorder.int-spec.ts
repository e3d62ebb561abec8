import 'reflect-metadata';
import { PgDatabase } from '@agent-memory/platform';
import { DomainError, newId, SUBJECTS } from '@agent-memory/shared';
import { createTestDatabase, type TestDatabase } from '@agent-memory/testing';
import { billingUseCases } from '../../../billing/src/billing.fixture';
import { openBillingPrisma } from '../../../billing/src/persistence/prisma';
import { PrismaBillingRepository } from '../../../billing/src/persistence/prisma-billing.repository';
import type { GatewayRequest } from '../auth/request-context';
import type { GatewayOptions } from '../gateway.options';
import type { PaymentProtocol } from './payment-protocol';
import { setPaymentState } from './payment-state';
import { UsageRecorder } from './usage-recorder';

/**
 * The gateway's charging of idempotent writes against the real billing service (the machine's PostgreSQL),
 * over a bus that calls the billing use cases directly: a write whose first request answered 500 although
 * it committed (a bus timeout) is charged by the first replay of its key, once, however many replays follow
 * (docs/api.md "After a 500 or a timeout").
 */
let testDb: TestDatabase;
let db: PgDatabase;
let billing: ReturnType<typeof billingUseCases>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = new PgDatabase({ connectionString: testDb.url, poolSize: 10 });
  billing = billingUseCases(new PrismaBillingRepository(await openBillingPrisma(db), { sandboxCreditMicroUsd: 1_000_000 }));
}, 60_000);
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

/** A bus that hands the billing subjects to the billing service, validating replies as BusClient does. */
const bus = {
  async request(subject: string, payload: never, schema: { parse(v: unknown): unknown }) {
    const m = payload as { chargeId: string; idempotencyKey?: string; commitId?: string; challengeId?: string };
    const handlers: Record<string, () => Promise<unknown>> = {
      [SUBJECTS.billing.reserve]: () => billing.reserve(payload),
      [SUBJECTS.billing.commit]: () => billing.commit(m.chargeId, m.idempotencyKey, m.commitId),
      [SUBJECTS.billing.release]: () => billing.release(payload),
      [SUBJECTS.billing.recordUsage]: () => billing.recordUsage(payload),
      [SUBJECTS.billing.recordUsageBatch]: () => billing.recordUsageBatch(payload),
      [SUBJECTS.billing.claimPayment]: () => billing.claimPayment(payload),
      [SUBJECTS.billing.completePayment]: () => billing.completePayment(m.challengeId as never, (m as never as { outcome: 'settled' }).outcome, (m as never as { reference?: string }).reference),
      [SUBJECTS.billing.credit]: () => billing.credit(payload),
      [SUBJECTS.billing.settlePaidCall]: () => billing.settlePaidCall(payload),
    };
    const handler = handlers[subject];
    if (!handler) throw new Error(`unexpected subject ${subject}`);
    return schema.parse(JSON.parse(JSON.stringify(await handler())));
  },
};

function recorder(billingMode: 'enforce' | 'ledger'): UsageRecorder {
  return new UsageRecorder(bus as never, {} as PaymentProtocol, { billingMode } as GatewayOptions);
}

function request(agentId: string): GatewayRequest {
  return { id: `req-${Math.random().toString(36).slice(2)}`, gateway: { principal: { agentId, keyEnvironment: 'test', mode: 'managed' }, authMethod: 'agent_key' } } as unknown as GatewayRequest;
}

/** The agent's ledger once the recorder's writes after the answer are done (as the gateway's usage route reads it). */
async function settledUsage(usage: UsageRecorder, agentId: string) {
  await usage.settled(agentId);
  return billing.usage({ agentId, limit: 10, offset: 0 });
}
async function settledBalance(usage: UsageRecorder, agentId: string) {
  await usage.settled(agentId);
  return billing.balance(agentId, 'test');
}

type Reply = { result: { id: string }; replayed: boolean; commitId?: string };
const outcome = (r: Reply) => r;

describe.each(['enforce', 'ledger'] as const)('billing mode %s', (mode) => {
  it('a replay of a write that committed after a 500 is charged once, however many replays (stored 1, charged 1)', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const usage = recorder(mode);
    const commitId = `remember:${newId('memory')}`;
    // the first request: the service committed the write, but the gateway saw a bus timeout (500, nothing charged)
    await expect(
      usage.paid(request(agentId), { operation: 'remember', recordId, call: () => Promise.reject(new DomainError('INTERNAL_ERROR', 'The service did not answer in time')), outcome, idempotencyKey: 'k-1' }),
    ).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    expect((await settledUsage(usage, agentId)).total).toBe(0);

    // the client retries with the same key, three times, two of them at once: each is a replay of that commit
    const replay = (): Promise<Reply> => Promise.resolve({ result: { id: 'mem_1' }, replayed: true, commitId });
    await usage.paid(request(agentId), { operation: 'remember', recordId, call: replay, outcome, idempotencyKey: 'k-1' });
    await Promise.all([1, 2].map(() => usage.paid(request(agentId), { operation: 'remember', recordId, call: replay, outcome, idempotencyKey: 'k-1' })));

    const ledger = await settledUsage(usage, agentId);
    expect(ledger.total).toBe(1);
    expect(ledger.entries[0]).toMatchObject({ operation: 'remember', recordId, idempotencyKey: 'k-1', amountMicroUsd: 50_000 });
    if (mode === 'enforce') expect((await settledBalance(usage, agentId)).balanceMicroUsd).toBe(1_000_000 - 50_000);
  });

  it('a write charged when it committed is not charged again by its replays; another commit of the same key is', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const usage = recorder(mode);
    const commitId = `remember:${newId('memory')}`;
    await usage.paid(request(agentId), { operation: 'remember', recordId, call: () => Promise.resolve({ result: { id: 'mem_1' }, replayed: false, commitId }), outcome, idempotencyKey: 'k-2' });
    for (let i = 0; i < 3; i++) await usage.paid(request(agentId), { operation: 'remember', recordId, call: () => Promise.resolve({ result: { id: 'mem_1' }, replayed: true, commitId }), outcome, idempotencyKey: 'k-2' });
    expect((await settledUsage(usage, agentId)).total).toBe(1);
    // the same key claimed again after the memory was forgotten (a new write, a new commit id): charged
    await usage.paid(request(agentId), { operation: 'remember', recordId, call: () => Promise.resolve({ result: { id: 'mem_2' }, replayed: false, commitId: `remember:${newId('memory')}` }), outcome, idempotencyKey: 'k-2' });
    expect((await settledUsage(usage, agentId)).total).toBe(2);
    if (mode === 'enforce') expect((await settledBalance(usage, agentId)).balanceMicroUsd).toBe(1_000_000 - 100_000);
  });

  it('a replay without a commit id (a write made before commit ids) is not charged', async () => {
    const agentId = newId('agent');
    const usage = recorder(mode);
    await usage.paid(request(agentId), { operation: 'remember', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'mem_1' }, replayed: true }), outcome, idempotencyKey: 'k-3' });
    expect((await settledUsage(usage, agentId)).total).toBe(0);
    if (mode === 'enforce') expect((await settledBalance(usage, agentId)).balanceMicroUsd).toBe(1_000_000);
  });
});

describe.each(['enforce', 'ledger'] as const)('billing mode %s: the ledger entry after the answer', (mode) => {
  it('answers before the entry is written; settled(agent) and shutdown wait for it; another agent waits for nothing', async () => {
    const agentId = newId('agent');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = new Set<string>([SUBJECTS.billing.commit, SUBJECTS.billing.recordUsageBatch]);
    const slowBus = { request: async (subject: string, payload: never, schema: never) => {
      if (held.has(subject)) await gate;
      return bus.request(subject, payload, schema);
    } };
    const usage = new UsageRecorder(slowBus as never, {} as PaymentProtocol, { billingMode: mode } as GatewayOptions);
    const answer = await usage.paid(request(agentId), { operation: 'recall', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'x' }, replayed: false }), outcome });
    expect(answer.result.id).toBe('x');
    expect((await billing.usage({ agentId, limit: 10, offset: 0 })).total).toBe(0);
    let settled = false;
    const waiting = usage.settled(agentId).then(() => (settled = true));
    let shutDown = false;
    const shutdown = usage.onModuleDestroy().then(() => (shutDown = true));
    await usage.settled(newId('agent')); // nothing pending for another agent: resolves at once
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([settled, shutDown]).toEqual([false, false]);
    release();
    await Promise.all([waiting, shutdown]);
    expect((await billing.usage({ agentId, limit: 10, offset: 0 })).entries).toEqual([expect.objectContaining({ operation: 'recall', amountMicroUsd: 50_000 })]);
    // once shutting down (the HTTP server still answers calls in flight), a call's entry is written before its answer
    await usage.paid(request(agentId), { operation: 'context', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'y' }, replayed: false }), outcome });
    expect((await billing.usage({ agentId, limit: 10, offset: 0 })).total).toBe(2);
  });
});

describe('paid with a Payment credential (ledger mode)', () => {
  /** A request carrying a verified credential of 0.05 USD; settlement succeeds at once. */
  function paidRequest(agentId: string): GatewayRequest {
    const req = request(agentId);
    const challengeId = `ch_${Math.random().toString(36).slice(2)}`;
    setPaymentState(req, {
      reply: { header: () => undefined } as never,
      target: {} as never,
      verified: { challengeId, payer: '0x000000000000000000000000000000000000dEaD', amountMicroUsd: 50_000, credential: {} },
    });
    return req;
  }
  const payments = { settle: async () => ({ reference: `0x${Math.random().toString(16).slice(2)}`, receipt: 'receipt' }) } as unknown as PaymentProtocol;

  it('a replay of a write no request paid for keeps its payment; later replays are refunded to the live balance', async () => {
    const agentId = newId('agent');
    const recordId = newId('record');
    const usage = new UsageRecorder(bus as never, payments, { billingMode: 'ledger' } as GatewayOptions);
    const commitId = `files:${newId('memory')}`;
    // the first request failed at the gateway (500) after its write committed: its payment was refunded
    await expect(usage.paid(paidRequest(agentId), { operation: 'write_file', recordId, call: () => Promise.reject(new DomainError('INTERNAL_ERROR', 'timeout')), outcome, idempotencyKey: 'k-p' })).rejects.toBeDefined();
    expect((await billing.balance(agentId, 'live')).balanceMicroUsd).toBe(50_000);
    const replay = (): Promise<Reply> => Promise.resolve({ result: { id: 'f' }, replayed: true, commitId });
    await usage.paid(paidRequest(agentId), { operation: 'write_file', recordId, call: replay, outcome, idempotencyKey: 'k-p' }); // charged: no refund
    await usage.paid(paidRequest(agentId), { operation: 'write_file', recordId, call: replay, outcome, idempotencyKey: 'k-p' }); // already charged: refunded
    const ledger = await billing.usage({ agentId, limit: 10, offset: 0 });
    expect(ledger.total).toBe(1);
    expect(ledger.entries[0]).toMatchObject({ operation: 'write_file', paymentMethod: 'payment', idempotencyKey: 'k-p' });
    expect((await billing.balance(agentId, 'live')).balanceMicroUsd).toBe(100_000); // refunds of the failed call and of the second replay
  });

  it('with BILLING_MODE=off, a paid replay of a committed write is refunded (no ledger tells it was uncharged)', async () => {
    const agentId = newId('agent');
    const usage = new UsageRecorder(bus as never, payments, { billingMode: 'off' } as GatewayOptions);
    const commitId = `files:${newId('memory')}`;
    await usage.paid(paidRequest(agentId), { operation: 'write_file', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'f' }, replayed: true, commitId }), outcome, idempotencyKey: 'k-off' });
    expect((await billing.balance(agentId, 'live')).balanceMicroUsd).toBe(50_000);
  });

  it('a paid replay whose usage could not be recorded is refunded; a first write whose usage could not be recorded keeps its payment', async () => {
    const agentId = newId('agent');
    const failingBus = {
      request: (subject: string, payload: never, schema: { parse(v: unknown): unknown }) =>
        subject === SUBJECTS.billing.settlePaidCall ? Promise.reject(new DomainError('VALIDATION_ERROR', 'ledger refused')) : bus.request(subject, payload, schema),
    };
    const usage = new UsageRecorder(failingBus as never, payments, { billingMode: 'ledger' } as GatewayOptions);
    (usage as unknown as { logger: { error(): void } }).logger = { error: () => undefined };
    const commitId = `files:${newId('memory')}`;
    await usage.paid(paidRequest(agentId), { operation: 'write_file', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'f' }, replayed: true, commitId }), outcome, idempotencyKey: 'k-fail' });
    expect((await billing.balance(agentId, 'live')).balanceMicroUsd).toBe(50_000);
    await usage.paid(paidRequest(agentId), { operation: 'write_file', recordId: newId('record'), call: () => Promise.resolve({ result: { id: 'g' }, replayed: false, commitId: `files:${newId('memory')}` }), outcome, idempotencyKey: 'k-new' });
    expect((await billing.balance(agentId, 'live')).balanceMicroUsd).toBe(50_000);
  });
});
