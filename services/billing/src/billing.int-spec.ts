import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PgDatabase } from '@agent-memory/platform';
import { DomainError, newId, type PaidOperation } from '@agent-memory/shared';
import { createTestDatabase, type TestDatabase } from '@agent-memory/testing';
import { billingUseCases } from './billing.fixture';
import { BillingLifecycle } from './billing.lifecycle';
import { PrismaBillingRepository } from './persistence/prisma-billing.repository';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, openBillingPrisma } from './persistence/prisma';

// The billing service against the machine's PostgreSQL (a pool of 20 connections, so parallel requests
// really run in parallel): balances, reservations, ledger, payments, credits, and the migration of a
// ledger written before this change.

let testDb: TestDatabase;
let db: PgDatabase;
let billing: ReturnType<typeof billingUseCases>;

const chg = () => `chg_${newId('ledgerEntry').slice(4)}`;
const agent = () => newId('agent');
const record = newId('record');

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = new PgDatabase({ connectionString: testDb.url, poolSize: 20 });
  billing = billingUseCases(new PrismaBillingRepository(await openBillingPrisma(db), { sandboxCreditMicroUsd: 100_000 }));
}, 60_000);
afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

function reserve(agentId: string, environment: 'live' | 'test', chargeId = chg(), operation: PaidOperation = 'context') {
  return billing.reserve({ chargeId, requestId: `req-${chargeId}`, agentId, environment, operation, recordId: record });
}

/** Live money through the real path: a claimed top-up payment, settled. */
async function topUp(agentId: string, amountMicroUsd: number) {
  const challengeId = `ch_${Math.random().toString(36).slice(2)}`;
  await billing.claimPayment({ challengeId, purpose: 'top_up', agentId, amountMicroUsd, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'req' });
  return billing.completePayment(challengeId, 'settled', '0xabc');
}

describe('balances and reservations', () => {
  it('50 parallel reservations on a balance that covers 30 never overdraw: 30 reserved, 20 refused, 30 ledger entries of 0.05 USD', async () => {
    const a = agent();
    const top = await topUp(a, 30 * 50_000);
    expect(top.balance?.balanceMicroUsd).toBe(1_500_000);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => reserve(a, 'live')));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(30);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect((r).reason).toMatchObject({ code: 'PAYMENT_REQUIRED' });
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(0);

    const entries = await Promise.all(ok.map((r) => billing.commit((r as PromiseFulfilledResult<{ chargeId: string }>).value.chargeId, undefined)));
    expect(new Set(entries.map((e) => e.chargeId)).size).toBe(30);
    const usage = await billing.usage({ agentId: a, environment: 'live', limit: 100, offset: 0 });
    expect(usage.total).toBe(30);
    expect(usage.totalMicroUsd).toBe(1_500_000);
    expect(usage.entries.every((e) => e.paymentMethod === 'balance' && e.amountMicroUsd === 50_000)).toBe(true);
  });

  it('commit writes one entry however often it is sent; release refunds once and never after a commit', async () => {
    const a = agent();
    await topUp(a, 200_000);
    const r1 = await reserve(a, 'live');
    const first = await billing.commit(r1.chargeId, 'key-1');
    const again = await billing.commit(r1.chargeId, 'key-1');
    expect(again.id).toBe(first.id);
    expect((await billing.release({ chargeId: r1.chargeId })).released).toBe(false);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(150_000);

    const r2 = await reserve(a, 'live');
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(100_000);
    expect((await billing.release({ chargeId: r2.chargeId })).released).toBe(true);
    expect((await billing.release({ chargeId: r2.chargeId })).released).toBe(false);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(150_000);
    await expect(billing.commit(r2.chargeId, undefined)).rejects.toBeInstanceOf(DomainError);

    // A repeated reserve message debits once.
    const id = chg();
    await reserve(a, 'live', id);
    await reserve(a, 'live', id);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(100_000);
    expect((await billing.usage({ agentId: a, limit: 10, offset: 0 })).total).toBe(1);
  });

  it('a release that arrives before its reserve leaves a voided marker: the late reserve debits nothing and nothing stays held', async () => {
    const a = agent();
    await topUp(a, 200_000);
    const id = chg();
    // The gateway gave up on the reserve (bus timeout) and released it; the reserve message is still in flight.
    expect(await billing.release({ chargeId: id, requestId: `req-${id}`, agentId: a, environment: 'live', operation: 'recall', recordId: record })).toEqual({ chargeId: id, released: false });
    const late = await reserve(a, 'live', id, 'recall');
    expect(late).toMatchObject({ chargeId: id, status: 'voided', amountMicroUsd: 0 });
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(200_000);
    await expect(billing.commit(id, undefined)).rejects.toBeInstanceOf(DomainError);

    // Released and reserved at the same time, 20 times over: every charge ends voided, and the balance whole.
    const ids = Array.from({ length: 20 }, () => chg());
    await Promise.all(ids.flatMap((c) => [reserve(a, 'live', c).catch(() => undefined), billing.release({ chargeId: c })]));
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(200_000);
    expect((await billing.usage({ agentId: a, limit: 10, offset: 0 })).total).toBe(0);
  });

  it('the sweeper voids reservations held longer than the limit and refunds each exactly once, even with two sweeps at the same time', async () => {
    const a = agent();
    const b = agent();
    await topUp(a, 200_000);
    await topUp(b, 100_000);
    const oldA1 = await reserve(a, 'live');
    const oldA2 = await reserve(a, 'live');
    const oldB = await reserve(b, 'live');
    const fresh = await reserve(a, 'live');
    const committed = await reserve(b, 'live');
    await billing.commit(committed.chargeId, undefined);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(50_000);
    expect((await billing.balance(b, 'live')).balanceMicroUsd).toBe(0);
    const pg = new Client({ connectionString: testDb.url });
    await pg.connect();
    try {
      await pg.query(`UPDATE billing.reservations SET created_at = now() - interval '11 minutes' WHERE charge_id = ANY($1)`, [[oldA1.chargeId, oldA2.chargeId, oldB.chargeId, committed.chargeId]]);
    } finally {
      await pg.end();
    }
    const tenMinutes = 10 * 60_000;
    // Two replicas' sweepers at once: the use case and the sweep BillingLifecycle runs every 60 s.
    const [s1, swept] = await Promise.all([billing.sweepReservations(tenMinutes), new BillingLifecycle(billing.sweep, { reservationMaxAgeMs: tenMinutes }).sweepReservations()]);
    expect(s1.voided + swept).toBe(3);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(150_000);
    expect((await billing.balance(b, 'live')).balanceMicroUsd).toBe(50_000);
    expect(await billing.sweepReservations(tenMinutes)).toEqual({ voided: 0, refundedMicroUsd: 0 });
    // The fresh reservation is still held and commits; the swept ones cannot be committed or refunded again.
    expect((await billing.commit(fresh.chargeId, undefined)).chargeId).toBe(fresh.chargeId);
    await expect(billing.commit(oldA1.chargeId, undefined)).rejects.toBeInstanceOf(DomainError);
    expect((await billing.release({ chargeId: oldB.chargeId })).released).toBe(false);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(150_000);
    expect((await billing.balance(b, 'live')).balanceMicroUsd).toBe(50_000);
  });

  it('a sandbox balance opens with its credit, is separate from the live one, and refuses below the price', async () => {
    const a = agent();
    expect(await billing.balance(a, 'test')).toEqual({ agentId: a, environment: 'test', balanceMicroUsd: 100_000 });
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(0);
    await reserve(a, 'test');
    await reserve(a, 'test');
    await expect(reserve(a, 'test')).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED', message: expect.stringContaining('sandbox balance') });
    await expect(reserve(a, 'live')).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED' });
    const credited = await billing.credit({ creditId: `sandbox_top_up:${a}:1`, agentId: a, environment: 'test', amountMicroUsd: 1_000_000, reason: 'sandbox_top_up' });
    expect(credited.balanceMicroUsd).toBe(1_000_000);
    // The same credit id applies once.
    expect((await billing.credit({ creditId: `sandbox_top_up:${a}:1`, agentId: a, environment: 'test', amountMicroUsd: 1_000_000, reason: 'sandbox_top_up' })).balanceMicroUsd).toBe(1_000_000);
  });
});

describe('payments', () => {
  it('claims a challenge id once; a settled top-up credits the live balance once', async () => {
    const a = agent();
    const claim = { challengeId: 'challenge-once', purpose: 'top_up' as const, agentId: a, amountMicroUsd: 250_000, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'r1' };
    const payment = await billing.claimPayment(claim);
    expect(payment).toMatchObject({ status: 'claimed', amountMicroUsd: 250_000 });
    await expect(billing.claimPayment({ ...claim, requestId: 'r2' })).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED', message: expect.stringContaining('already used') });
    const done = await billing.completePayment('challenge-once', 'settled', '0xfeed');
    expect(done.payment).toMatchObject({ status: 'settled', reference: '0xfeed' });
    expect(done.balance?.balanceMicroUsd).toBe(250_000);
    const repeated = await billing.completePayment('challenge-once', 'settled', '0xfeed');
    expect(repeated.balance?.balanceMicroUsd).toBe(250_000);
    // A failed settlement credits nothing and the challenge id stays used.
    await billing.claimPayment({ ...claim, challengeId: 'challenge-failed' });
    expect((await billing.completePayment('challenge-failed', 'failed', undefined)).payment.status).toBe('failed');
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(250_000);
    await expect(billing.claimPayment({ ...claim, challengeId: 'challenge-failed' })).rejects.toMatchObject({ code: 'PAYMENT_REQUIRED' });
  });
});

describe('payment retries and reconciliation', () => {
  it('a settled top-up and a refund credit once however often and however concurrently they are sent', async () => {
    const a = agent();
    const challengeId = `ch_${Math.random().toString(36).slice(2)}`;
    await billing.claimPayment({ challengeId, purpose: 'top_up', agentId: a, amountMicroUsd: 300_000, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'r' });
    const settles = await Promise.all(Array.from({ length: 5 }, () => billing.completePayment(challengeId, 'settled', '0xhash')));
    expect(settles.every((s) => s.payment.status === 'settled')).toBe(true);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(300_000);
    // A late "failed" (or a repeated claim) changes nothing once settled.
    expect((await billing.completePayment(challengeId, 'failed', undefined)).payment).toMatchObject({ status: 'settled', reference: '0xhash' });

    const refund = { creditId: `refund:${challengeId}`, agentId: a, environment: 'live' as const, amountMicroUsd: 50_000, reason: 'refund' as const, reference: '0xhash' };
    await Promise.all(Array.from({ length: 5 }, () => billing.credit(refund)));
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(350_000);
  });

  it('stores the settlement reference while the payment stays claimed, keeps it when the outcome comes without one, and settles it later', async () => {
    const a = agent();
    const claim = { challengeId: `ch_${Math.random().toString(36).slice(2)}`, purpose: 'top_up' as const, agentId: a, amountMicroUsd: 100_000, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'r' };
    await billing.claimPayment(claim);
    const submitted = await billing.completePayment(claim.challengeId, 'submitted', '0xsubmitted');
    expect(submitted.payment).toMatchObject({ status: 'claimed', reference: '0xsubmitted' });
    expect(submitted.balance).toBeUndefined();
    expect(await billing.payment(claim.challengeId)).toMatchObject({ status: 'claimed', reference: '0xsubmitted' });
    // Reconciled: the transaction confirmed; the top-up is credited once.
    expect((await billing.completePayment(claim.challengeId, 'settled', undefined)).balance?.balanceMicroUsd).toBe(100_000);
    expect(await billing.payment(claim.challengeId)).toMatchObject({ status: 'settled', reference: '0xsubmitted' });

    const other = { ...claim, challengeId: `${claim.challengeId}-2` };
    await billing.claimPayment(other);
    await billing.completePayment(other.challengeId, 'submitted', '0xreverted');
    expect((await billing.completePayment(other.challengeId, 'failed', undefined)).payment).toMatchObject({ status: 'failed', reference: '0xreverted' });
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(100_000);
    expect(await billing.payment('unknown-challenge')).toBeUndefined();
  });
});

describe('usage ledger', () => {
  it('records once per charge id and totals per operation and per UTC day, with paging and filters', async () => {
    const a = agent();
    const ops: PaidOperation[] = ['recall', 'remember', 'remember', 'forget', 'read_file', 'write_file', 'context'];
    const ids = ops.map(() => chg());
    for (const [i, operation] of ops.entries()) {
      await billing.recordUsage({ chargeId: ids[i], requestId: 'same-request-id', agentId: a, environment: 'live', operation, recordId: record, paymentMethod: 'agent_key' });
    }
    await billing.recordUsage({ chargeId: ids[0], requestId: 'x', agentId: a, environment: 'live', operation: 'recall', recordId: record, paymentMethod: 'agent_key' });
    await billing.recordUsage({ chargeId: chg(), requestId: 'y', agentId: a, environment: 'test', operation: 'recall', recordId: record, paymentMethod: 'agent_key' });

    const live = await billing.usage({ agentId: a, environment: 'live', limit: 3, offset: 0 });
    expect(live.total).toBe(7);
    expect(live.entries).toHaveLength(3);
    expect(live.totalMicroUsd).toBe(7 * 50_000);
    expect(live.byOperation).toEqual(
      expect.arrayContaining([
        { operation: 'remember', count: 2, amountMicroUsd: 100_000 },
        { operation: 'recall', count: 1, amountMicroUsd: 50_000 },
      ]),
    );
    expect(live.byOperation).toHaveLength(6);
    const today = new Date().toISOString().slice(0, 10);
    expect(live.byDay).toEqual([{ date: today, count: 7, amountMicroUsd: 350_000 }]);
    const page3 = await billing.usage({ agentId: a, environment: 'live', limit: 3, offset: 6 });
    expect(page3.entries).toHaveLength(1);
    expect((await billing.usage({ agentId: a, limit: 100, offset: 0 })).total).toBe(8);
    expect((await billing.usage({ agentId: a, environment: 'live', operation: 'remember', limit: 100, offset: 0 })).total).toBe(2);
    expect((await billing.usage({ agentId: a, environment: 'live', from: new Date(Date.now() + 60_000).toISOString(), limit: 100, offset: 0 })).total).toBe(0);
  });

  it('a batch of entries of several agents is one insert with the single rules: a repeated charge id or a charged commit id (earlier or in the batch) writes nothing', async () => {
    const [a, b] = [agent(), agent()];
    const entry = (agentId: string, operation: PaidOperation, over: { chargeId?: string; commitId?: string; environment?: 'live' | 'test' } = {}) => ({
      chargeId: over.chargeId ?? chg(),
      requestId: `req-${agentId}`,
      agentId,
      environment: over.environment ?? ('live' as const),
      operation,
      recordId: record,
      commitId: over.commitId,
      paymentMethod: 'agent_key' as const,
    });
    const charged = await billing.recordUsage(entry(a, 'remember', { commitId: 'remember:mem_charged' }));
    const repeated = chg();
    const reply = await billing.recordUsageBatch({
      entries: [
        entry(a, 'recall'),
        entry(a, 'remember', { chargeId: charged.chargeId }), // its charge id is already in the ledger
        entry(a, 'remember', { commitId: 'remember:mem_charged' }), // its write was already charged
        entry(b, 'write_file', { commitId: 'files:mem_new' }),
        entry(b, 'write_file', { commitId: 'files:mem_new' }), // the same write twice in one batch: charged once
        entry(b, 'context', { chargeId: repeated }),
        entry(b, 'context', { chargeId: repeated }), // the same charge twice in one batch
        entry(b, 'read_file', { environment: 'test' }),
      ],
    });
    expect(reply).toEqual({ recorded: 4 });
    const ofA = await billing.usage({ agentId: a, limit: 10, offset: 0 });
    expect(ofA.entries.map((e) => e.operation).sort()).toEqual(['recall', 'remember']);
    expect(ofA.totalMicroUsd).toBe(100_000);
    const ofB = await billing.usage({ agentId: b, limit: 10, offset: 0 });
    expect(ofB.entries.map((e) => [e.operation, e.environment]).sort()).toEqual([['context', 'live'], ['read_file', 'test'], ['write_file', 'live']]);
    expect(ofB.entries.find((e) => e.operation === 'write_file')).toMatchObject({ amountMicroUsd: 50_000, requestId: `req-${b}`, paymentMethod: 'agent_key' });
    // the same batch again (a retry after a lost reply) changes nothing
    expect(await billing.recordUsageBatch({ entries: [entry(b, 'context', { chargeId: repeated })] })).toEqual({ recorded: 0 });
    expect((await billing.usage({ agentId: b, limit: 10, offset: 0 })).total).toBe(3);
  });
});

describe('migration', () => {
  it('moves a ledger written before balances and payments to charge ids, keeping its entries', async () => {
    const legacy = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'billing-migrations-'));
    const legacyDb = new PgDatabase({ connectionString: legacy.url });
    try {
      cpSync(join(BILLING_MIGRATIONS_DIR, '20261122000000_init'), join(dir, '20261122000000_init'), { recursive: true });
      await legacyDb.migrate(BILLING_SCHEMA, dir);
      const pg = new Client({ connectionString: legacy.url });
      await pg.connect();
      await pg.query(
        `INSERT INTO billing.ledger_entries (id, agent_id, operation, record_id, amount_micro_usd, request_id, payment_method) VALUES ('led_1', 'agt_1', 'recall', 'rec_1', 50000, 'req-1', 'agent_key')`,
      );
      await pg.end();
      const service = billingUseCases(new PrismaBillingRepository(await openBillingPrisma(legacyDb), {}));
      const usage = await service.usage({ agentId: 'agt_1', limit: 10, offset: 0 });
      expect(usage.entries).toEqual([expect.objectContaining({ id: 'led_1', chargeId: 'req-1', requestId: 'req-1', environment: 'live', amountMicroUsd: 50_000 })]);
    } finally {
      await legacyDb.close();
      await legacy.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('settling a call paid with a Payment credential', () => {
  /** A claimed call payment of 0.05 USD and the settle message of its successful call. */
  async function claimedCall(a: string, write: { replayed: boolean; commitId?: string }, recordUsage = true) {
    const challengeId = `ch_${Math.random().toString(36).slice(2)}`;
    await billing.claimPayment({ challengeId, purpose: 'call', agentId: a, operation: 'remember', recordId: record, amountMicroUsd: 50_000, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'r' });
    return { challengeId, reference: `0x${challengeId}`, chargeId: chg(), requestId: 'r', agentId: a, environment: 'live' as const, operation: 'remember' as const, recordId: record, idempotencyKey: 'k', recordUsage, ...write };
  }

  it('completes the payment, records the usage and refunds only what must not be kept, once however often and however concurrently it is sent', async () => {
    const a = agent();
    const commitId = `remember:${newId('memory')}`;
    // A first write: settled, charged, not refunded; five repeats of the message change nothing.
    const first = await claimedCall(a, { replayed: false, commitId });
    const answers = await Promise.all(Array.from({ length: 5 }, () => billing.settlePaidCall(first)));
    expect(answers.every((r) => r.payment.status === 'settled' && r.payment.reference === first.reference && !r.refunded && r.entry?.chargeId === first.chargeId)).toBe(true);
    // Three replays of that write at once: each is refunded (its write was charged by the first).
    const replays = await Promise.all([1, 2, 3].map(() => claimedCall(a, { replayed: true, commitId })));
    const settled = await Promise.all(replays.map((m) => billing.settlePaidCall(m)));
    expect(settled.map((r) => [r.refunded, r.entry?.chargeId])).toEqual(replays.map(() => [true, first.chargeId]));
    // A replay without a commit id, and any replay without a ledger (billing mode off): refunded, nothing recorded.
    expect((await billing.settlePaidCall(await claimedCall(a, { replayed: true }))).refunded).toBe(true);
    expect(await billing.settlePaidCall(await claimedCall(a, { replayed: true, commitId: `remember:${newId('memory')}` }, false))).toMatchObject({ refunded: true, entry: undefined });
    // A replay of a write no request charged keeps its payment.
    expect((await billing.settlePaidCall(await claimedCall(a, { replayed: true, commitId: `remember:${newId('memory')}` }))).refunded).toBe(false);
    expect((await billing.usage({ agentId: a, limit: 10, offset: 0 })).total).toBe(2);
    expect((await billing.balance(a, 'live')).balanceMicroUsd).toBe(5 * 50_000);
    await expect(billing.settlePaidCall({ ...first, challengeId: 'ch_unknown' })).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });
});
