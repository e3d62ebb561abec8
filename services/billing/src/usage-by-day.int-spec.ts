import { Client } from 'pg';
import { PgDatabase } from '@agent-memory/platform';
import { newId, USAGE_BY_DAY_MAX_DAYS } from '@agent-memory/shared';
import { createTestDatabase, type TestDatabase } from '@agent-memory/testing';
import { billingUseCases } from './billing.fixture';
import { GetAgentsActivityUseCase } from './use-cases/get-agents-activity.use-case';
import { PrismaBillingRepository } from './persistence/prisma-billing.repository';
import { openBillingPrisma } from './persistence/prisma';

// Usage per UTC day (`byDay`, docs/billing.md "Endpoints") and the batched balances and last activity of a
// human's agents (`billing.v1.agents-activity`), against the machine's PostgreSQL.

let testDb: TestDatabase;
let db: PgDatabase;
let pg: Client;
let repository: PrismaBillingRepository;
let billing: ReturnType<typeof billingUseCases>;
const record = newId('record');

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = new PgDatabase({ connectionString: testDb.url, poolSize: 5 });
  repository = new PrismaBillingRepository(await openBillingPrisma(db), { sandboxCreditMicroUsd: 100_000 });
  billing = billingUseCases(repository);
  pg = new Client({ connectionString: testDb.url });
  await pg.connect();
}, 60_000);
afterAll(async () => {
  await pg?.end();
  await db?.close();
  await testDb?.drop();
});

/** Ledger entries of `agentId` at the given instants (50,000 micro-USD each, `operation`), written in one statement. */
async function entriesAt(agentId: string, instants: Date[], operation = 'recall', environment = 'live') {
  await pg.query(
    `INSERT INTO "billing"."ledger_entries" ("id", "charge_id", "agent_id", "environment", "operation", "record_id", "amount_micro_usd", "request_id", "payment_method", "created_at")
     SELECT 'led_' || md5(random()::text || i::text), 'chg_' || md5(random()::text || i::text), $1, $4, $3, $5, 50000, 'req', 'agent_key', t
     FROM unnest($2::timestamptz[]) WITH ORDINALITY AS x(t, i)`,
    [agentId, instants, operation, environment, record],
  );
}

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
/** An explicit `to` after the entries: byDay's window ends there, not at the clock's now. */
const APRIL = '2026-04-01T00:00:00.000Z';

describe('usage per UTC day', () => {
  it('groups by the UTC date in SQL, newest first, over the same filter (from, to, operation)', async () => {
    const a = newId('agent');
    await entriesAt(a, [new Date('2026-03-01T00:00:00Z'), new Date('2026-03-01T23:59:59.999Z'), new Date('2026-03-03T12:00:00Z')]);
    await entriesAt(a, [new Date('2026-03-02T23:30:00Z')], 'remember', 'test');
    await entriesAt(a, [new Date('2026-02-28T23:59:59.999Z')], 'forget');
    const all = await billing.usage({ agentId: a, limit: 1, offset: 0, to: APRIL });
    expect(all.byDay).toEqual([
      { date: '2026-03-03', count: 1, amountMicroUsd: 50_000 },
      { date: '2026-03-02', count: 1, amountMicroUsd: 50_000 },
      { date: '2026-03-01', count: 2, amountMicroUsd: 100_000 },
      { date: '2026-02-28', count: 1, amountMicroUsd: 50_000 },
    ]);
    expect(all.total).toBe(5);
    const march = await billing.usage({ agentId: a, limit: 1, offset: 0, from: day('2026-03-01').toISOString(), to: day('2026-03-03').toISOString() });
    expect(march.byDay.map((d) => [d.date, d.count])).toEqual([['2026-03-02', 1], ['2026-03-01', 2]]);
    const recalls = await billing.usage({ agentId: a, limit: 1, offset: 0, operation: 'recall', to: APRIL });
    expect(recalls.byDay.map((d) => [d.date, d.count])).toEqual([['2026-03-03', 1], ['2026-03-01', 2]]);
    const live = await billing.usage({ agentId: a, environment: 'live', limit: 1, offset: 0, to: APRIL });
    expect(live.byDay.map((d) => d.date)).toEqual(['2026-03-03', '2026-03-01', '2026-02-28']);
  });

  it(`aggregates only the last ${USAGE_BY_DAY_MAX_DAYS} days before \`to\` (or now), from \`from\` if later; an earlier \`to\` reaches older days`, async () => {
    const a = newId('agent');
    const start = day('2025-01-01').getTime();
    await entriesAt(a, Array.from({ length: 400 }, (_, i) => new Date(start + i * 86_400_000 + 3_600_000)));
    const to = new Date(start + 400 * 86_400_000).toISOString();
    const summary = await billing.usage({ agentId: a, limit: 1, offset: 0, to });
    expect(summary.total).toBe(400);
    expect(summary.byDay).toHaveLength(USAGE_BY_DAY_MAX_DAYS);
    expect(summary.byDay[0].date).toBe(new Date(start + 399 * 86_400_000).toISOString().slice(0, 10));
    expect(summary.byDay.at(-1)!.date).toBe(new Date(start + (400 - USAGE_BY_DAY_MAX_DAYS) * 86_400_000).toISOString().slice(0, 10));
    const dates = summary.byDay.map((d) => d.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const oldest = await billing.usage({ agentId: a, limit: 1, offset: 0, to: day('2025-01-03').toISOString() });
    expect(oldest.byDay).toEqual([
      { date: '2025-01-02', count: 1, amountMicroUsd: 50_000 },
      { date: '2025-01-01', count: 1, amountMicroUsd: 50_000 },
    ]);
    // a later `from` bounds it too
    const fromLater = await billing.usage({ agentId: a, limit: 1, offset: 0, from: new Date(start + 398 * 86_400_000).toISOString(), to });
    expect(fromLater.byDay.map((d) => d.date)).toEqual([new Date(start + 399 * 86_400_000), new Date(start + 398 * 86_400_000)].map((d) => d.toISOString().slice(0, 10)));
  });

  it('leaves out days older than the window even when fewer days have entries (the bound is in the query, not only a cap on the answer)', async () => {
    const a = newId('agent');
    const now = Date.now();
    await entriesAt(a, [new Date(now - 400 * 86_400_000), new Date(now - (USAGE_BY_DAY_MAX_DAYS + 1) * 86_400_000), new Date(now - 3_600_000)]);
    const summary = await billing.usage({ agentId: a, limit: 10, offset: 0 });
    expect(summary.total).toBe(3);
    expect(summary.byDay).toEqual([{ date: new Date(now - 3_600_000).toISOString().slice(0, 10), count: 1, amountMicroUsd: 50_000 }]);
    const to = new Date(now - 399 * 86_400_000).toISOString();
    expect((await billing.usage({ agentId: a, limit: 10, offset: 0, to })).byDay).toEqual([{ date: new Date(now - 400 * 86_400_000).toISOString().slice(0, 10), count: 1, amountMicroUsd: 50_000 }]);
  });
});

describe('billing.v1.agents-activity', () => {
  const activity = (agentIds: string[]) => new GetAgentsActivityUseCase(repository).execute({ agentIds });

  it('answers both balances and the last ledger entry of each agent in the order asked, read only', async () => {
    const busy = newId('agent');
    const idle = newId('agent');
    const challengeId = `ch_${Math.random().toString(36).slice(2)}`;
    await billing.claimPayment({ challengeId, purpose: 'top_up', agentId: busy, amountMicroUsd: 250_000, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'req' });
    await billing.completePayment(challengeId, 'settled', '0xabc');
    await billing.balance(busy, 'test');
    await billing.reserve({ chargeId: `chg_${newId('ledgerEntry').slice(4)}`, requestId: 'r', agentId: busy, environment: 'test', operation: 'recall', recordId: record });
    await entriesAt(busy, [new Date('2026-01-01T10:00:00Z'), new Date('2026-01-05T10:00:00.123Z'), new Date('2025-12-31T10:00:00Z')]);

    const { agents } = await activity([idle, busy, idle]);
    expect(agents).toEqual([
      {
        agentId: idle,
        balance: { live: { agentId: idle, environment: 'live', balanceMicroUsd: 0 }, test: { agentId: idle, environment: 'test', balanceMicroUsd: 100_000 } },
        lastActivityAt: null,
      },
      {
        agentId: busy,
        balance: { live: { agentId: busy, environment: 'live', balanceMicroUsd: 250_000 }, test: { agentId: busy, environment: 'test', balanceMicroUsd: 50_000 } },
        lastActivityAt: '2026-01-05T10:00:00.123Z',
      },
    ]);
    // reading opened nothing: the idle agent has no balance rows
    expect((await pg.query('SELECT count(*)::int AS n FROM "billing"."balances" WHERE "agent_id" = $1', [idle])).rows[0].n).toBe(0);
    expect(await activity([])).toEqual({ agents: [] });
  });
});
