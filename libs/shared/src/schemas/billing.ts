import { z } from 'zod';
import { LIMITS } from '../limits';
import { formatUsd, parseUsd, TOP_UP_LIMITS_MICRO_USD } from '../prices';
import { KeyEnvironmentSchema, WalletAddressSchema } from './agents';
import { AgentIdSchema, CommitIdSchema, queryInt, RecordIdSchema, TimestampSchema } from './common';

/** Paid operations (docs/billing.md, "Prices"). */
export const PAID_OPERATIONS = ['recall', 'remember', 'forget', 'read_file', 'write_file', 'context', 'list_memories'] as const;
export const PaidOperationSchema = z.enum(PAID_OPERATIONS);
export type PaidOperation = z.infer<typeof PaidOperationSchema>;

/**
 * How a charged call was paid: `agent_key` (ledger mode: recorded, not drawn), `balance` (enforce mode:
 * drawn from the prepaid balance), `payment` (an `Authorization: Payment` credential settled for the call).
 */
export const PAYMENT_METHODS = ['agent_key', 'payment', 'balance', 'passkey', 'signature'] as const;
export const PaymentMethodSchema = z.enum(PAYMENT_METHODS);

/** Billing modes (docs/billing.md): `off` records nothing, `ledger` records usage, `enforce` also requires payment. */
export const BILLING_MODES = ['off', 'ledger', 'enforce'] as const;
export const BillingModeSchema = z.enum(BILLING_MODES);
export type BillingMode = z.infer<typeof BillingModeSchema>;

/**
 * A balance environment: `live` (real money, live keys, Payment credentials) or `test` (sandbox money,
 * `_test_` keys; docs/billing.md). Same words as the key environments of agent keys.
 */
export const BillingEnvironmentSchema = KeyEnvironmentSchema;
export type BillingEnvironment = z.infer<typeof BillingEnvironmentSchema>;

/** A charge id: the gateway's key of one paid call (unique; the client's x-request-id is not trusted for it). */
export const ChargeIdSchema = z.string().regex(/^chg_[0-9A-Za-z]{8,64}$/, 'must be a charge id (chg_...)');
const RequestIdSchema = z.string().min(1).max(128);
const MicroUsdSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * A USD amount in a request body: a decimal string (`"10.00"`) or a JSON number (`10`), at most 6
 * decimals, within {@link TOP_UP_LIMITS_MICRO_USD}; parsed to micro-USD.
 */
export const UsdAmountSchema = z.union([z.string(), z.number()]).transform((raw, ctx) => {
  const micro = parseUsd(typeof raw === 'number' ? String(raw) : raw.trim());
  if (micro === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a USD amount such as "10.00" (at most 6 decimals)' });
    return z.NEVER;
  }
  if (micro < TOP_UP_LIMITS_MICRO_USD.min || micro > TOP_UP_LIMITS_MICRO_USD.max) {
    ctx.addIssue({ code: 'custom', message: `must be between ${formatUsd(TOP_UP_LIMITS_MICRO_USD.min)} and ${formatUsd(TOP_UP_LIMITS_MICRO_USD.max)} USD` });
    return z.NEVER;
  }
  return micro;
}).meta({
  description: `A USD amount: a decimal string ("10.00") or a number, at most 6 decimals, from ${formatUsd(TOP_UP_LIMITS_MICRO_USD.min)} to ${formatUsd(TOP_UP_LIMITS_MICRO_USD.max)} USD.`,
});

// --- HTTP bodies, queries and responses (docs/billing.md) ---

/** POST /api/v1/billing/top-up and POST /api/v1/billing/sandbox/top-up body. */
export const TopUpBodySchema = z.strictObject({ amount: UsdAmountSchema });

/** GET /api/v1/billing/usage query: paging and optional filters (`from`/`to` are UTC dates or timestamps, `to` exclusive). */
export const UsageQuerySchema = z.strictObject({
  limit: queryInt(1, LIMITS.listRecords.maxLimit).default(LIMITS.listRecords.defaultLimit),
  offset: queryInt(0, Number.MAX_SAFE_INTEGER).default(0),
  operation: PaidOperationSchema.optional(),
  from: z.union([z.iso.date(), z.iso.datetime()]).optional(),
  to: z.union([z.iso.date(), z.iso.datetime()]).optional(),
});
export type UsageQuery = z.output<typeof UsageQuerySchema>;

/** An agent's balance in one environment. */
export const BalanceSchema = z.object({
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema,
  balanceMicroUsd: MicroUsdSchema,
});
export type Balance = z.infer<typeof BalanceSchema>;

/** An agent's balances in both environments (the human dashboard's agent list). */
export const AgentBalancesSchema = z.object({ live: BalanceSchema, test: BalanceSchema });
export type AgentBalances = z.infer<typeof AgentBalancesSchema>;

/** GET /api/v1/billing/balance response data. */
export const BalanceResponseSchema = BalanceSchema.extend({
  balanceUsd: z.string(),
  currency: z.literal('USD'),
  billingMode: BillingModeSchema,
});

/** Top-up responses (live and sandbox). */
export const TopUpResponseSchema = BalanceResponseSchema.extend({
  creditedMicroUsd: MicroUsdSchema,
  /** Settlement reference of the payment (a transaction hash on chain); absent for sandbox credit. */
  reference: z.string().optional(),
});

/** GET /api/v1/billing/prices response data (free, no auth). */
export const PricesResponseSchema = z.object({
  currency: z.literal('USD'),
  billingMode: BillingModeSchema,
  paid: z.array(z.object({ operation: PaidOperationSchema, method: z.string(), path: z.string(), unit: z.string(), priceMicroUsd: z.number().int(), priceUsd: z.string() })),
  free: z.array(z.string()),
  payment: z.object({ scheme: z.literal('Payment'), method: z.string(), intent: z.string(), chainId: z.number().int(), currency: z.string(), recipient: z.string(), decimals: z.number().int() }),
});

// --- ledger ---

export const LedgerEntrySchema = z.object({
  id: z.string(),
  chargeId: z.string(),
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema,
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
  amountMicroUsd: z.number().int(),
  requestId: z.string(),
  idempotencyKey: z.string().nullable(),
  paymentMethod: z.string(),
  createdAt: TimestampSchema,
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/**
 * A usage summary's `byDay` covers only the last this many days of the selection: entries from
 * max(`from`, (`to` or now) − 366 days); narrow `to` for older days (docs/billing.md). It has at most this many days.
 */
export const USAGE_BY_DAY_MAX_DAYS = 366;

/**
 * Totals of the selected ledger entries per operation and per UTC day (`date` `YYYY-MM-DD`, days with
 * entries only, newest day first, over the last {@link USAGE_BY_DAY_MAX_DAYS} days of the selection only).
 */
export const UsageTotalsSchema = z.object({
  byOperation: z.array(z.object({ operation: PaidOperationSchema, count: z.number().int(), amountMicroUsd: z.number().int() })),
  byDay: z.array(z.object({ date: z.iso.date(), count: z.number().int(), amountMicroUsd: z.number().int() })).max(USAGE_BY_DAY_MAX_DAYS),
});

/** Reply of `billing.v1.usage`: one page of entries (newest first) and totals over all selected entries. */
export const UsageSummarySchema = z
  .object({
    entries: z.array(LedgerEntrySchema),
    total: z.number().int(),
    totalMicroUsd: z.number().int(),
  })
  .extend(UsageTotalsSchema.shape);
export type UsageSummary = z.infer<typeof UsageSummarySchema>;

/** GET /api/v1/billing/usage response data. */
export const UsageResponseSchema = UsageSummarySchema.extend({
  environment: BillingEnvironmentSchema,
  limit: z.number().int(),
  offset: z.number().int(),
  totalUsd: z.string(),
});

// --- bus messages (billing.v1.*) ---

/**
 * Records one ledger entry without touching a balance (ledger mode, and calls paid by a settled Payment
 * credential). `chargeId` is unique, so a repeated message records once.
 */
export const BillingRecordUsageMessageSchema = z.object({
  chargeId: ChargeIdSchema,
  requestId: RequestIdSchema,
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema.default('live'),
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
  idempotencyKey: z.string().optional(),
  /** The idempotent write this call pays for ({@link CommitIdSchema}); at most one ledger entry per commit id. */
  commitId: CommitIdSchema.optional(),
  paymentMethod: PaymentMethodSchema,
});
export type BillingRecordUsageMessage = z.output<typeof BillingRecordUsageMessageSchema>;

/** At most this many ledger entries per `billing.v1.record-usage-batch` message (about 300 bytes each). */
export const RECORD_USAGE_BATCH_MAX_ENTRIES = 100;

/**
 * Records the ledger entries of several answered calls, of any agents, in one message and one insert
 * (the gateway's ledger writes after the answer, batched per gateway process: docs/billing.md, "When the
 * ledger entry is written"). Each entry is what `billing.v1.record-usage` takes, with the same rules: a
 * repeated charge id records once, a commit id already charged is not charged again (also within the batch).
 */
export const BillingRecordUsageBatchMessageSchema = z.object({
  entries: z.array(BillingRecordUsageMessageSchema).min(1).max(RECORD_USAGE_BATCH_MAX_ENTRIES),
});
export type BillingRecordUsageBatchMessage = z.output<typeof BillingRecordUsageBatchMessageSchema>;

/** Reply of `billing.v1.record-usage-batch`: how many of its entries were written now (the rest were already there). */
export const RecordUsageBatchReplySchema = z.object({ recorded: z.number().int().min(0) });
export type RecordUsageBatchReply = z.infer<typeof RecordUsageBatchReplySchema>;

/** Ledger query; without `environment`, both environments. */
export const BillingUsageMessageSchema = z.object({
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema.optional(),
  limit: z.number().int().min(1).max(1000),
  offset: z.number().int().min(0),
  operation: PaidOperationSchema.optional(),
  from: TimestampSchema.optional(),
  to: TimestampSchema.optional(),
});
export type BillingUsageMessage = z.output<typeof BillingUsageMessageSchema>;

/** At most this many agents per `billing.v1.agents-activity` message (the gateway sends larger lists in chunks). */
export const AGENTS_ACTIVITY_MAX_AGENTS = 500;

/**
 * Balances and last activity of several agents at once, read only (`billing.v1.agents-activity`): one
 * message for a human's whole agent list instead of one per agent (docs/authentication.md).
 */
export const BillingAgentsActivityMessageSchema = z.object({ agentIds: z.array(AgentIdSchema).max(AGENTS_ACTIVITY_MAX_AGENTS) });
export type BillingAgentsActivityMessage = z.output<typeof BillingAgentsActivityMessageSchema>;
/**
 * One agent's balances (a balance not opened yet reads as its opening credit: 0 live, the sandbox grant
 * for test, as its first use would open it) and `lastActivityAt`, the time of its most recent ledger
 * entry (a charged call, either environment), or null.
 */
export const AgentActivitySchema = z.object({ agentId: AgentIdSchema, balance: AgentBalancesSchema, lastActivityAt: TimestampSchema.nullable() });
export type AgentActivity = z.infer<typeof AgentActivitySchema>;
/** Reply of `billing.v1.agents-activity`: one item per distinct requested agent id, in the order asked. */
export const BillingAgentsActivityReplySchema = z.object({ agents: z.array(AgentActivitySchema) });

/** Reads a balance (a sandbox balance is created with its initial credit on first use). */
export const BillingBalanceMessageSchema = z.object({ agentId: AgentIdSchema, environment: BillingEnvironmentSchema });
export type BillingBalanceMessage = z.output<typeof BillingBalanceMessageSchema>;

/**
 * Reserves the price of one paid call from the balance with an atomic conditional debit (enforce mode).
 * Fails with PAYMENT_REQUIRED when the balance does not cover the price. Repeating a `chargeId` returns
 * the first reservation and debits nothing more.
 */
export const BillingReserveMessageSchema = z.object({
  chargeId: ChargeIdSchema,
  requestId: RequestIdSchema,
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema,
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
});
export type BillingReserveMessage = z.output<typeof BillingReserveMessageSchema>;
export const ReservationSchema = z.object({
  chargeId: z.string(),
  amountMicroUsd: MicroUsdSchema,
  status: z.enum(['reserved', 'committed', 'voided']),
  balanceMicroUsd: MicroUsdSchema,
});
export type Reservation = z.infer<typeof ReservationSchema>;

/**
 * Turns a reservation into its one ledger entry (the call succeeded). Repeating it returns the same entry.
 * With `commitId` (an idempotent write), when that write was charged already (its original request or a
 * replay reached the ledger first) the reservation is voided (refunded) instead and the earlier entry is
 * returned, so a write is charged exactly once (docs/api.md "After a 500 or a timeout").
 */
export const BillingCommitMessageSchema = z.object({ chargeId: ChargeIdSchema, idempotencyKey: z.string().optional(), commitId: CommitIdSchema.optional() });
export type BillingCommitMessage = z.output<typeof BillingCommitMessageSchema>;

/**
 * Voids a reservation and gives the amount back (the call failed or was an idempotent replay). Repeating it
 * refunds once. Releasing a charge id with no reservation yet leaves a `voided` marker row (amount 0), so a
 * reserve of that id still in flight conflicts on it and debits nothing; the optional fields describe the
 * call on that marker (for operators).
 */
export const BillingReleaseMessageSchema = z.object({
  chargeId: ChargeIdSchema,
  requestId: RequestIdSchema.optional(),
  agentId: AgentIdSchema.optional(),
  environment: BillingEnvironmentSchema.optional(),
  operation: PaidOperationSchema.optional(),
  recordId: RecordIdSchema.optional(),
});
export type BillingReleaseMessage = z.output<typeof BillingReleaseMessageSchema>;

/** What a Payment credential pays for: one call, or a top-up of the live balance. */
export const PaymentPurposeSchema = z.enum(['call', 'top_up']);

/**
 * Claims a Payment credential's challenge id before settlement (mppx does not stop replays): the first
 * claim wins; any later claim of the same challenge id fails with PAYMENT_REQUIRED.
 */
export const BillingClaimPaymentMessageSchema = z.object({
  challengeId: z.string().min(1).max(256),
  purpose: PaymentPurposeSchema,
  agentId: AgentIdSchema,
  operation: PaidOperationSchema.optional(),
  recordId: RecordIdSchema.optional(),
  amountMicroUsd: MicroUsdSchema,
  payer: WalletAddressSchema,
  requestId: RequestIdSchema,
});
export type BillingClaimPaymentMessage = z.output<typeof BillingClaimPaymentMessageSchema>;

/**
 * Records the outcome of a claimed payment's settlement. A settled `top_up` credits the agent's live
 * balance in the same transaction. Only a `claimed` payment changes; repeating it changes nothing.
 * `submitted` only stores the settlement reference (the transaction hash, known before it is broadcast)
 * and leaves the payment `claimed`, so an unconfirmed settlement can be reconciled (docs/billing.md).
 */
export const BillingCompletePaymentMessageSchema = z.object({
  challengeId: z.string().min(1).max(256),
  outcome: z.enum(['settled', 'failed', 'submitted']),
  reference: z.string().max(256).optional(),
});
export type BillingCompletePaymentMessage = z.output<typeof BillingCompletePaymentMessageSchema>;

export const PaymentRecordSchema = z.object({
  challengeId: z.string(),
  purpose: PaymentPurposeSchema,
  agentId: AgentIdSchema,
  operation: PaidOperationSchema.nullable(),
  recordId: z.string().nullable(),
  amountMicroUsd: MicroUsdSchema,
  payer: z.string(),
  status: z.enum(['claimed', 'settled', 'failed']),
  reference: z.string().nullable(),
  requestId: z.string(),
  createdAt: TimestampSchema,
});
export type PaymentRecord = z.infer<typeof PaymentRecordSchema>;
export const CompletePaymentReplySchema = z.object({ payment: PaymentRecordSchema, balance: BalanceSchema.optional() });

/**
 * After a successful call paid with a settled Payment credential, in one billing transaction: completes the
 * claimed payment as `settled` with its reference, writes the call's ledger entry (`recordUsage`: false when
 * the billing mode is `off`), and credits the refund `refund:<challengeId>` to the live balance when the
 * call must not keep the payment. The rule: a replay keeps its payment only when this very message's
 * `chargeId` charged its `commitId` (the write no earlier request paid for); a replay without a commit id,
 * or without a ledger entry, is refunded; a first write keeps its payment unless another request already
 * charged its commit. Every step is keyed (challenge id, charge id, commit id, credit id), so a repeat
 * changes nothing and answers the same.
 */
export const BillingSettlePaidCallMessageSchema = z.object({
  challengeId: z.string().min(1).max(256),
  reference: z.string().max(256),
  chargeId: ChargeIdSchema,
  requestId: RequestIdSchema,
  agentId: AgentIdSchema,
  environment: BillingEnvironmentSchema.default('live'),
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
  idempotencyKey: z.string().optional(),
  replayed: z.boolean(),
  commitId: CommitIdSchema.optional(),
  recordUsage: z.boolean(),
});
export type BillingSettlePaidCallMessage = z.output<typeof BillingSettlePaidCallMessageSchema>;
/** The settled payment, the ledger entry that charges the call's write (possibly another request's), and whether the payment was refunded. */
export const SettlePaidCallReplySchema = z.object({ payment: PaymentRecordSchema, entry: LedgerEntrySchema.optional(), refunded: z.boolean() });
export type SettlePaidCallReply = z.infer<typeof SettlePaidCallReplySchema>;

/**
 * Credits a balance: `refund` (a call paid by a settled Payment credential failed or was an idempotent
 * replay: the amount goes to the live balance) or `sandbox_top_up` (test environment only). `creditId` is
 * unique, so a repeated message credits once.
 */
export const BillingCreditMessageSchema = z
  .object({
    creditId: z.string().min(1).max(300),
    agentId: AgentIdSchema,
    environment: BillingEnvironmentSchema,
    amountMicroUsd: MicroUsdSchema.min(1).max(TOP_UP_LIMITS_MICRO_USD.max),
    reason: z.enum(['refund', 'sandbox_top_up']),
    reference: z.string().max(256).optional(),
  })
  .refine((m) => m.reason !== 'sandbox_top_up' || m.environment === 'test', { message: 'sandbox top-ups credit the test environment only', path: ['environment'] });
export type BillingCreditMessage = z.output<typeof BillingCreditMessageSchema>;

/** Micro-USD in a display string with the unit, for messages: `0.05 USD`. */
export function usdLabel(microUsd: number): string {
  return `${formatUsd(microUsd)} USD`;
}
