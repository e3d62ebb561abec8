import { Inject, Injectable } from '@nestjs/common';
import {
  type AgentActivity,
  type BillingClaimPaymentMessage,
  type BillingCreditMessage,
  type BillingEnvironment,
  type BillingRecordUsageMessage,
  type BillingReleaseMessage,
  type BillingReserveMessage,
  type BillingSettlePaidCallMessage,
  type LedgerEntry,
  newId,
  type PaidOperation,
  type PaymentRecord,
  type SettlePaidCallReply,
  USAGE_BY_DAY_MAX_DAYS,
  type UsageSummary,
} from '@agent-memory/shared';
import { BILLING_OPTIONS, type BillingOptions } from '../billing.options';
import { type BalanceOpening, BillingRepository, type HeldReservation, type LedgerFilter, sandboxOpening } from './billing.repository';
import { Prisma } from './generated/client';
import { BILLING_PRISMA, type BillingPrismaClient as PrismaClient } from './prisma';

type Tx = Prisma.TransactionClient;
/** Interactive transactions may wait for a pooled connection and a balance row lock under parallel calls. */
const TX = { maxWait: 10_000, timeout: 20_000 } as const;
type LedgerRow = Prisma.LedgerEntryModel;

/** The columns of a ledger entry under the model's field names, for raw statements that return rows. */
const LEDGER_COLUMNS = Prisma.sql`id, charge_id AS "chargeId", agent_id AS "agentId", environment, operation, record_id AS "recordId",
  amount_micro_usd AS "amountMicroUsd", request_id AS "requestId", idempotency_key AS "idempotencyKey", commit_id AS "commitId",
  payment_method AS "paymentMethod", created_at AS "createdAt"`;
type PaymentRow = Prisma.PaymentModel;

/** The ledger row as the contract's {@link LedgerEntry}. */
function toLedgerEntry(row: LedgerRow): LedgerEntry {
  return {
    id: row.id,
    chargeId: row.chargeId,
    agentId: row.agentId,
    environment: row.environment as BillingEnvironment,
    operation: row.operation as PaidOperation,
    recordId: row.recordId,
    amountMicroUsd: row.amountMicroUsd,
    requestId: row.requestId,
    idempotencyKey: row.idempotencyKey,
    paymentMethod: row.paymentMethod,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The payment row as the contract's {@link PaymentRecord}. */
function toPaymentRecord(row: PaymentRow): PaymentRecord {
  return {
    challengeId: row.challengeId,
    purpose: row.purpose as PaymentRecord['purpose'],
    agentId: row.agentId,
    operation: row.operation as PaidOperation | null,
    recordId: row.recordId,
    amountMicroUsd: Number(row.amountMicroUsd),
    payer: row.payer,
    status: row.status as PaymentRecord['status'],
    reference: row.reference,
    requestId: row.requestId,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Adapter of {@link BillingRepository} on PostgreSQL through Prisma (schema `billing`): ledger, balances,
 * reservations, payments and credits. Money moves only inside transactions; the debit of a reservation is
 * one conditional UPDATE (`balance >= price`), so parallel calls can never overdraw a balance (PostgreSQL
 * row lock; PGlite runs one transaction at a time). The only billing file that touches Prisma.
 */
@Injectable()
export class PrismaBillingRepository extends BillingRepository {
  private readonly opening: BalanceOpening;

  /** `options.sandboxCreditMicroUsd`: the opening credit of a sandbox balance ({@link sandboxOpening}). */
  constructor(
    @Inject(BILLING_PRISMA) private readonly prisma: PrismaClient,
    @Inject(BILLING_OPTIONS) options: BillingOptions,
  ) {
    super();
    this.opening = sandboxOpening(options.sandboxCreditMicroUsd);
  }

  /**
   * Creates the balance row on first use, with its opening credit (e.g. the sandbox grant) in the same
   * statement; concurrent first uses create it once (ON CONFLICT DO NOTHING).
   */
  private async ensureBalance(db: Tx | PrismaClient, agentId: string, environment: BillingEnvironment): Promise<void> {
    const open = this.opening(environment);
    if (!open || open.amountMicroUsd <= 0) {
      await db.$executeRaw`INSERT INTO "billing"."balances" ("agent_id", "environment", "balance_micro_usd") VALUES (${agentId}, ${environment}, 0) ON CONFLICT DO NOTHING`;
      return;
    }
    const amount = BigInt(open.amountMicroUsd);
    await db.$executeRaw`
      WITH created AS (
        INSERT INTO "billing"."balances" ("agent_id", "environment", "balance_micro_usd") VALUES (${agentId}, ${environment}, ${amount})
        ON CONFLICT DO NOTHING RETURNING "agent_id"
      )
      INSERT INTO "billing"."credits" ("credit_id", "agent_id", "environment", "reason", "amount_micro_usd")
      SELECT ${`${open.reason}:${agentId}:${environment}`}, ${agentId}, ${environment}, ${open.reason}, ${amount} FROM created`;
  }

  private async readBalance(tx: Tx | PrismaClient, agentId: string, environment: BillingEnvironment): Promise<number> {
    const row = await tx.balance.findUnique({ where: { agentId_environment: { agentId, environment } } });
    return Number(row?.balanceMicroUsd ?? 0n);
  }

  /** Adds `amount` micro-USD to a balance (creating it first). */
  private async addToBalance(tx: Tx, agentId: string, environment: BillingEnvironment, amountMicroUsd: number): Promise<void> {
    await this.ensureBalance(tx, agentId, environment);
    await tx.$executeRaw`UPDATE "billing"."balances" SET "balance_micro_usd" = "balance_micro_usd" + ${BigInt(amountMicroUsd)}, "updated_at" = now() WHERE "agent_id" = ${agentId} AND "environment" = ${environment}`;
  }

  async agentsActivity(agentIds: readonly string[]): Promise<AgentActivity[]> {
    const ids = [...new Set(agentIds)];
    if (ids.length === 0) return [];
    const [balances, latest] = await Promise.all([
      this.prisma.balance.findMany({ where: { agentId: { in: ids } }, select: { agentId: true, environment: true, balanceMicroUsd: true } }),
      // One index probe per agent (ledger_entries (agent_id, created_at DESC)), not a scan of its entries.
      this.prisma.$queryRaw<Array<{ agent_id: string; last: Date | null }>>`
        SELECT ids."agent_id", (SELECT l."created_at" FROM "billing"."ledger_entries" l WHERE l."agent_id" = ids."agent_id" ORDER BY l."created_at" DESC LIMIT 1) AS "last"
        FROM unnest(${ids}::text[]) AS ids("agent_id")`,
    ]);
    const stored = new Map(balances.map((b) => [`${b.agentId}:${b.environment}`, Number(b.balanceMicroUsd)]));
    const lastOf = new Map(latest.map((r) => [r.agent_id, r.last]));
    const balanceOf = (agentId: string, environment: BillingEnvironment) => ({
      agentId,
      environment,
      balanceMicroUsd: stored.get(`${agentId}:${environment}`) ?? this.opening(environment)?.amountMicroUsd ?? 0,
    });
    return ids.map((agentId) => ({
      agentId,
      balance: { live: balanceOf(agentId, 'live'), test: balanceOf(agentId, 'test') },
      lastActivityAt: lastOf.get(agentId)?.toISOString() ?? null,
    }));
  }

  /** The balance in micro-USD (created with its opening credit on first read). */
  async balance(agentId: string, environment: BillingEnvironment): Promise<number> {
    await this.ensureBalance(this.prisma, agentId, environment);
    return this.readBalance(this.prisma, agentId, environment);
  }

  /**
   * Reserves `amountMicroUsd` for the call `m.chargeId` in one statement: the atomic conditional debit
   * (`UPDATE ... SET balance = balance - amount WHERE ... AND balance >= amount`) and the reservation row
   * it feeds, so the row lock is held for one statement only. Returns the reservation, the existing one for
   * a repeated charge id (whose statement fails on the primary key and debits nothing), or `insufficient`.
   */
  async reserve(m: BillingReserveMessage, amountMicroUsd: number): Promise<{ reservation: HeldReservation; balanceMicroUsd: number } | { insufficient: true; balanceMicroUsd: number }> {
    const existing = await this.prisma.reservation.findUnique({ where: { chargeId: m.chargeId } });
    if (existing) return { reservation: held(existing), balanceMicroUsd: await this.readBalance(this.prisma, m.agentId, m.environment) };
    await this.ensureBalance(this.prisma, m.agentId, m.environment);
    const amount = BigInt(amountMicroUsd);
    let rows: Array<{ balance: bigint }>;
    try {
      rows = await this.prisma.$queryRaw<Array<{ balance: bigint }>>`
        WITH debit AS (
          UPDATE "billing"."balances" SET "balance_micro_usd" = "balance_micro_usd" - ${amount}, "updated_at" = now()
          WHERE "agent_id" = ${m.agentId} AND "environment" = ${m.environment} AND "balance_micro_usd" >= ${amount}
          RETURNING "balance_micro_usd"
        ), reservation AS (
          INSERT INTO "billing"."reservations" ("charge_id", "request_id", "agent_id", "environment", "operation", "record_id", "amount_micro_usd", "status")
          SELECT ${m.chargeId}, ${m.requestId}, ${m.agentId}, ${m.environment}, ${m.operation}, ${m.recordId}, ${amountMicroUsd}, 'reserved' FROM debit
          RETURNING "charge_id"
        )
        SELECT debit."balance_micro_usd" AS "balance" FROM debit, reservation`;
    } catch (err) {
      const raced = await this.prisma.reservation.findUnique({ where: { chargeId: m.chargeId } });
      if (raced) return { reservation: held(raced), balanceMicroUsd: await this.readBalance(this.prisma, m.agentId, m.environment) };
      throw err;
    }
    if (rows.length === 0) return { insufficient: true, balanceMicroUsd: await this.readBalance(this.prisma, m.agentId, m.environment) };
    const reservation = await this.prisma.reservation.findUniqueOrThrow({ where: { chargeId: m.chargeId } });
    return { reservation: held(reservation), balanceMicroUsd: Number(rows[0].balance) };
  }

  /**
   * Commits a reservation into exactly one ledger entry (keyed by the charge id). Returns the entry;
   * the existing one when already committed; undefined when there is no such reservation or it was voided.
   * With `commitId` (an idempotent write, docs/api.md "After a 500 or a timeout") the entry is inserted only
   * if no entry has that commit id yet (`ON CONFLICT DO NOTHING` on its unique index, which also orders
   * concurrent commits of replays of one write); otherwise the reservation is voided and its amount given
   * back in the same transaction, and the entry that already charged the write is returned.
   */
  async commit(chargeId: string, idempotencyKey: string | undefined, commitId: string | undefined): Promise<LedgerEntry | undefined> {
    const row = await this.prisma.$transaction(async (tx) => {
      const already = await tx.ledgerEntry.findUnique({ where: { chargeId } });
      if (already) return already;
      const moved = await tx.reservation.updateMany({ where: { chargeId, status: 'reserved' }, data: { status: 'committed', updatedAt: new Date() } });
      if (moved.count !== 1) return undefined;
      const r = await tx.reservation.findUniqueOrThrow({ where: { chargeId } });
      const data = {
        id: newId('ledgerEntry'),
        chargeId,
        agentId: r.agentId,
        environment: r.environment,
        operation: r.operation,
        recordId: r.recordId,
        amountMicroUsd: r.amountMicroUsd,
        requestId: r.requestId,
        idempotencyKey: idempotencyKey ?? null,
        commitId: commitId ?? null,
        paymentMethod: 'balance',
      };
      if (!commitId) return tx.ledgerEntry.create({ data });
      const { count } = await tx.ledgerEntry.createMany({ data: [data], skipDuplicates: true });
      if (count === 1) return tx.ledgerEntry.findUniqueOrThrow({ where: { chargeId } });
      // The write was charged by another request (its original or another replay): refund this hold.
      await tx.reservation.update({ where: { chargeId }, data: { status: 'voided', updatedAt: new Date() } });
      await this.addToBalance(tx, r.agentId, r.environment as BillingEnvironment, r.amountMicroUsd);
      return tx.ledgerEntry.findUniqueOrThrow({ where: { commitId } });
    }, TX);
    return row && toLedgerEntry(row);
  }

  /**
   * Voids the reservation of `m.chargeId` and gives its amount back, in one statement:
   * `INSERT ... ON CONFLICT (charge_id) DO UPDATE SET status = 'voided' WHERE status = 'reserved'`, with the
   * refund fed by the updated row. When no reservation exists yet (the reserve is still in flight: queued,
   * or on another billing replica) the INSERT leaves a `voided` marker row of amount 0, so that late reserve
   * fails on the primary key and debits nothing. A committed or voided reservation is left as it is.
   * Returns `released: true` only when a held amount was refunded (then with the balance afterwards).
   */
  async release(m: BillingReleaseMessage): Promise<{ released: boolean; balanceMicroUsd?: number }> {
    const rows = await this.prisma.$queryRaw<Array<{ amount: number | bigint | null; balance: bigint | null }>>`
      WITH voided AS (
        INSERT INTO "billing"."reservations" AS r ("charge_id", "request_id", "agent_id", "environment", "operation", "record_id", "amount_micro_usd", "status")
        VALUES (${m.chargeId}, ${m.requestId ?? ''}, ${m.agentId ?? ''}, ${m.environment ?? ''}, ${m.operation ?? ''}, ${m.recordId ?? ''}, 0, 'voided')
        ON CONFLICT ("charge_id") DO UPDATE SET "status" = 'voided', "updated_at" = now() WHERE r."status" = 'reserved'
        RETURNING r."agent_id", r."environment", r."amount_micro_usd"
      ), refund AS (
        UPDATE "billing"."balances" b SET "balance_micro_usd" = b."balance_micro_usd" + v."amount_micro_usd", "updated_at" = now()
        FROM voided v WHERE v."amount_micro_usd" > 0 AND b."agent_id" = v."agent_id" AND b."environment" = v."environment"
        RETURNING b."balance_micro_usd"
      )
      SELECT (SELECT "amount_micro_usd" FROM voided) AS "amount", (SELECT "balance_micro_usd" FROM refund) AS "balance"`;
    const row = rows[0];
    if (!row || row.amount === null || Number(row.amount) <= 0) return { released: false };
    return { released: true, balanceMicroUsd: row.balance === null ? undefined : Number(row.balance) };
  }

  /**
   * Voids every reservation still `reserved` that was created more than `olderThanMs` ago and refunds each
   * balance by the sum it held, in one statement (a reservation is never held longer than a call, whose bus
   * timeout is at most 30 s; an older one lost its commit or release). Safe with several billing replicas
   * sweeping at once: a row voided by one is re-checked by the other's `WHERE status = 'reserved'` and
   * skipped, so each reservation is refunded exactly once. Returns how many were voided and the amount.
   */
  async sweepReservations(olderThanMs: number): Promise<{ voided: number; refundedMicroUsd: number }> {
    const rows = await this.prisma.$queryRaw<Array<{ voided: number | bigint; amount: number | bigint }>>`
      WITH expired AS (
        UPDATE "billing"."reservations" SET "status" = 'voided', "updated_at" = now()
        WHERE "status" = 'reserved' AND "created_at" < now() - (${olderThanMs}::double precision * interval '1 millisecond')
        RETURNING "agent_id", "environment", "amount_micro_usd"
      ), totals AS (
        SELECT "agent_id", "environment", sum("amount_micro_usd")::bigint AS "amount", count(*)::bigint AS "n" FROM expired GROUP BY "agent_id", "environment"
      ), refund AS (
        UPDATE "billing"."balances" b SET "balance_micro_usd" = b."balance_micro_usd" + t."amount", "updated_at" = now()
        FROM totals t WHERE b."agent_id" = t."agent_id" AND b."environment" = t."environment"
        RETURNING b."agent_id"
      )
      SELECT coalesce(sum("n"), 0)::bigint AS "voided", coalesce(sum("amount"), 0)::bigint AS "amount" FROM totals`;
    return { voided: Number(rows[0]?.voided ?? 0), refundedMicroUsd: Number(rows[0]?.amount ?? 0) };
  }

  /**
   * Records a ledger entry with no balance movement; a repeated charge id returns the first entry. With
   * `commitId`, a write already charged under another charge id is not charged again: the entry that
   * charged it is returned (its `chargeId` then differs from `m.chargeId`).
   */
  async recordUsage(m: BillingRecordUsageMessage, amountMicroUsd: number): Promise<LedgerEntry> {
    return toLedgerEntry(await this.recordUsageRow(this.prisma, m, amountMicroUsd));
  }

  /**
   * One statement for the whole batch, of the same text whatever its size (one array per column through
   * `unnest`; PGlite keeps one prepared statement for it instead of one per batch size). ON CONFLICT DO
   * NOTHING skips a row whose charge id or commit id is taken, by an earlier row or by another row of this
   * statement (the first in the batch's order, which is the order the calls were answered in), so the
   * entries keep the single insert's rules. Two replicas' batches sharing two commit ids in opposite
   * orders could deadlock: PostgreSQL aborts one, and the gateway retries it.
   */
  async recordUsageBatch(entries: readonly { entry: BillingRecordUsageMessage; amountMicroUsd: number }[]): Promise<number> {
    if (entries.length === 0) return 0;
    const column = <T>(pick: (e: { entry: BillingRecordUsageMessage; amountMicroUsd: number }) => T) => entries.map(pick);
    const written = await this.prisma.$queryRaw<{ id: string }[]>`
      INSERT INTO "billing"."ledger_entries"
        (id, charge_id, agent_id, environment, operation, record_id, amount_micro_usd, request_id, idempotency_key, commit_id, payment_method)
      SELECT * FROM unnest(
        ${column(() => newId('ledgerEntry'))}::text[], ${column((e) => e.entry.chargeId)}::text[], ${column((e) => e.entry.agentId)}::text[],
        ${column((e) => e.entry.environment)}::text[], ${column((e) => e.entry.operation)}::text[], ${column((e) => e.entry.recordId)}::text[],
        ${column((e) => e.amountMicroUsd)}::int[], ${column((e) => e.entry.requestId)}::text[], ${column((e) => e.entry.idempotencyKey ?? null)}::text[],
        ${column((e) => e.entry.commitId ?? null)}::text[], ${column((e) => e.entry.paymentMethod)}::text[])
      ON CONFLICT DO NOTHING
      RETURNING id`;
    return written.length;
  }

  private async recordUsageRow(db: Tx | PrismaClient, m: BillingRecordUsageMessage, amountMicroUsd: number): Promise<LedgerRow> {
    const data = {
      id: newId('ledgerEntry'),
      chargeId: m.chargeId,
      agentId: m.agentId,
      environment: m.environment,
      operation: m.operation,
      recordId: m.recordId,
      amountMicroUsd,
      requestId: m.requestId,
      idempotencyKey: m.idempotencyKey ?? null,
      commitId: m.commitId ?? null,
      paymentMethod: m.paymentMethod,
    };
    // One insert that skips a repeated charge id or commit id (ON CONFLICT DO NOTHING) and returns the row it
    // wrote; only a repeat reads the entry that was there. Raw SQL: it runs after every paid call, and
    // Prisma's createManyAndReturn cost 0.8 ms against 0.3 ms (an upsert took a transaction of two reads and the insert).
    const [created] = await db.$queryRaw<LedgerRow[]>`
      INSERT INTO "billing"."ledger_entries"
        (id, charge_id, agent_id, environment, operation, record_id, amount_micro_usd, request_id, idempotency_key, commit_id, payment_method)
      VALUES (${data.id}, ${data.chargeId}, ${data.agentId}, ${data.environment}, ${data.operation}, ${data.recordId}, ${data.amountMicroUsd},
              ${data.requestId}, ${data.idempotencyKey}, ${data.commitId}, ${data.paymentMethod})
      ON CONFLICT DO NOTHING
      RETURNING ${LEDGER_COLUMNS}`;
    if (created) return created;
    if (!m.commitId) return db.ledgerEntry.findUniqueOrThrow({ where: { chargeId: m.chargeId } });
    return (await db.ledgerEntry.findUnique({ where: { chargeId: m.chargeId } })) ?? db.ledgerEntry.findUniqueOrThrow({ where: { commitId: m.commitId } });
  }

  /** One page of ledger entries (newest first) and the totals over every entry the filter selects. */
  async usage(filter: LedgerFilter, limit: number, offset: number): Promise<UsageSummary> {
    const where: Prisma.LedgerEntryWhereInput = {
      agentId: filter.agentId,
      ...(filter.environment ? { environment: filter.environment } : {}),
      ...(filter.operation ? { operation: filter.operation } : {}),
      ...(filter.from || filter.to ? { createdAt: { ...(filter.from ? { gte: filter.from } : {}), ...(filter.to ? { lt: filter.to } : {}) } } : {}),
    };
    const conditions = [Prisma.sql`"agent_id" = ${filter.agentId}`];
    if (filter.environment) conditions.push(Prisma.sql`"environment" = ${filter.environment}`);
    if (filter.operation) conditions.push(Prisma.sql`"operation" = ${filter.operation}`);
    if (filter.from) conditions.push(Prisma.sql`"created_at" >= ${filter.from}`);
    if (filter.to) conditions.push(Prisma.sql`"created_at" < ${filter.to}`);
    // byDay aggregates only the last USAGE_BY_DAY_MAX_DAYS days of the selection (docs/billing.md): the
    // bound is in the query, so its cost follows the window, not the agent's whole history.
    const byDayFrom = new Date(Math.max(filter.from?.getTime() ?? 0, (filter.to ?? new Date()).getTime() - USAGE_BY_DAY_MAX_DAYS * 86_400_000));
    const byDayConditions = [...conditions, Prisma.sql`"created_at" >= ${byDayFrom}`];
    const [rows, agg, byOperation, byDay] = await Promise.all([
      this.prisma.ledgerEntry.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.prisma.ledgerEntry.aggregate({ where, _count: { _all: true }, _sum: { amountMicroUsd: true } }),
      this.prisma.ledgerEntry.groupBy({ by: ['operation'], where, _count: { _all: true }, _sum: { amountMicroUsd: true }, orderBy: { operation: 'asc' } }),
      this.prisma.$queryRaw<Array<{ date: string; count: bigint | number; amount: bigint | number | null }>>`
        SELECT to_char("created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "date", count(*) AS "count", sum("amount_micro_usd") AS "amount"
        FROM "billing"."ledger_entries" WHERE ${Prisma.join(byDayConditions, ' AND ')}
        GROUP BY 1 ORDER BY 1 DESC LIMIT ${USAGE_BY_DAY_MAX_DAYS}`,
    ]);
    return {
      entries: rows.map(toLedgerEntry),
      total: agg._count._all,
      totalMicroUsd: agg._sum.amountMicroUsd ?? 0,
      byOperation: byOperation.map((g) => ({ operation: g.operation as PaidOperation, count: g._count._all, amountMicroUsd: g._sum.amountMicroUsd ?? 0 })),
      byDay: byDay.map((d) => ({ date: d.date, count: Number(d.count), amountMicroUsd: Number(d.amount ?? 0) })),
    };
  }

  /** Claims a challenge id (insert-if-absent on the primary key); undefined when it was claimed before. */
  async claimPayment(m: BillingClaimPaymentMessage): Promise<PaymentRecord | undefined> {
    const created = await this.prisma.payment.createMany({
      data: [
        {
          challengeId: m.challengeId,
          purpose: m.purpose,
          agentId: m.agentId,
          operation: m.operation ?? null,
          recordId: m.recordId ?? null,
          amountMicroUsd: BigInt(m.amountMicroUsd),
          payer: m.payer,
          status: 'claimed',
          requestId: m.requestId,
        },
      ],
      skipDuplicates: true,
    });
    if (created.count !== 1) return undefined;
    return toPaymentRecord(await this.prisma.payment.findUniqueOrThrow({ where: { challengeId: m.challengeId } }));
  }

  /**
   * Moves a `claimed` payment to `settled` or `failed`; a settled top-up credits the live balance in the
   * same transaction, once (the status change and the credit id `top_up:<challengeId>` are both unique).
   * `submitted` stores the reference only (the payment stays `claimed`). A reference stored before is kept
   * when none is given. Returns the payment (undefined if unknown) and, for a settled top-up, the balance.
   */
  async completePayment(challengeId: string, outcome: 'settled' | 'failed' | 'submitted', reference: string | undefined): Promise<{ payment?: PaymentRecord; balanceMicroUsd?: number }> {
    if (outcome === 'submitted') {
      await this.prisma.payment.updateMany({ where: { challengeId, status: 'claimed' }, data: { ...(reference !== undefined ? { reference } : {}), updatedAt: new Date() } });
      return { payment: await this.payment(challengeId) };
    }
    const r = await this.prisma.$transaction(async (tx): Promise<{ payment?: PaymentRow; balanceMicroUsd?: number }> => {
      const moved = await tx.payment.updateMany({ where: { challengeId, status: 'claimed' }, data: { status: outcome, ...(reference !== undefined ? { reference } : {}), updatedAt: new Date() } });
      const payment = (await tx.payment.findUnique({ where: { challengeId } })) ?? undefined;
      if (!payment || payment.purpose !== 'top_up' || payment.status !== 'settled') return { payment };
      if (moved.count === 1) {
        const credited = await tx.credit.createMany({
          data: [{ creditId: `top_up:${challengeId}`, agentId: payment.agentId, environment: 'live', reason: 'top_up', amountMicroUsd: payment.amountMicroUsd, reference: payment.reference }],
          skipDuplicates: true,
        });
        if (credited.count === 1) await this.addToBalance(tx, payment.agentId, 'live', Number(payment.amountMicroUsd));
      }
      return { payment, balanceMicroUsd: await this.readBalance(tx, payment.agentId, 'live') };
    }, TX);
    return { payment: r.payment && toPaymentRecord(r.payment), balanceMicroUsd: r.balanceMicroUsd };
  }

  /** One payment by challenge id, or undefined (operators reconcile `claimed` payments by their reference). */
  async settlePaidCall(m: BillingSettlePaidCallMessage, amountMicroUsd: number, refundOf: (entry: LedgerEntry | undefined) => boolean): Promise<SettlePaidCallReply | undefined> {
    return this.prisma.$transaction(async (tx) => {
      await tx.payment.updateMany({ where: { challengeId: m.challengeId, status: 'claimed' }, data: { status: 'settled', reference: m.reference, updatedAt: new Date() } });
      const payment = await tx.payment.findUnique({ where: { challengeId: m.challengeId } });
      if (!payment) return undefined;
      const charges = m.recordUsage && (!m.replayed || m.commitId !== undefined);
      const entry = charges ? toLedgerEntry(await this.recordUsageRow(tx, { ...m, paymentMethod: 'payment' }, amountMicroUsd)) : undefined;
      const refunded = refundOf(entry);
      if (refunded) {
        const credited = await tx.credit.createMany({
          data: [{ creditId: `refund:${m.challengeId}`, agentId: payment.agentId, environment: 'live', reason: 'refund', amountMicroUsd: payment.amountMicroUsd, reference: m.reference }],
          skipDuplicates: true,
        });
        if (credited.count === 1) await this.addToBalance(tx, payment.agentId, 'live', Number(payment.amountMicroUsd));
      }
      return { payment: toPaymentRecord(payment), entry, refunded };
    }, TX);
  }

  async payment(challengeId: string): Promise<PaymentRecord | undefined> {
    const row = await this.prisma.payment.findUnique({ where: { challengeId } });
    return row ? toPaymentRecord(row) : undefined;
  }

  /** Applies a credit once (by `creditId`); returns the balance afterwards. */
  async credit(c: BillingCreditMessage): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.credit.createMany({
        data: [{ creditId: c.creditId, agentId: c.agentId, environment: c.environment, reason: c.reason, amountMicroUsd: BigInt(c.amountMicroUsd), reference: c.reference ?? null }],
        skipDuplicates: true,
      });
      if (created.count === 1) await this.addToBalance(tx, c.agentId, c.environment, c.amountMicroUsd);
      else await this.ensureBalance(tx, c.agentId, c.environment);
      return this.readBalance(tx, c.agentId, c.environment);
    }, TX);
  }
}

/** The held part of a reservation row. */
function held(row: Prisma.ReservationModel): HeldReservation {
  return { chargeId: row.chargeId, amountMicroUsd: row.amountMicroUsd, status: row.status as HeldReservation['status'] };
}
