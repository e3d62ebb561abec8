import { z } from 'zod';
import { AgentIdSchema, RecordIdSchema, TimestampSchema } from './common';

/** Paid operations of the spec (interface-spec.md, "Prices"). */
export const PAID_OPERATIONS = ['recall', 'remember', 'forget', 'read_file', 'write_file', 'context'] as const;
export const PaidOperationSchema = z.enum(PAID_OPERATIONS);
export type PaidOperation = z.infer<typeof PaidOperationSchema>;

export const PAYMENT_METHODS = ['agent_key', 'payment', 'balance', 'passkey', 'signature'] as const;

// --- bus messages (billing.v1.*) ---
/** Records one usage ledger entry; `requestId` is unique, so a retried message is not charged twice. */
export const BillingRecordUsageMessageSchema = z.object({
  agentId: AgentIdSchema,
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
  requestId: z.string().min(1).max(128),
  idempotencyKey: z.string().optional(),
  paymentMethod: z.enum(PAYMENT_METHODS),
});
export type BillingRecordUsageMessage = z.infer<typeof BillingRecordUsageMessageSchema>;

export const LedgerEntrySchema = z.object({
  id: z.string(),
  agentId: AgentIdSchema,
  operation: PaidOperationSchema,
  recordId: RecordIdSchema,
  amountMicroUsd: z.number().int(),
  requestId: z.string(),
  idempotencyKey: z.string().nullable(),
  paymentMethod: z.string(),
  createdAt: TimestampSchema,
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

export const BillingUsageMessageSchema = z.object({ agentId: AgentIdSchema, limit: z.number().int().min(1).max(1000), offset: z.number().int().min(0) });
export const UsageSummarySchema = z.object({
  entries: z.array(LedgerEntrySchema),
  total: z.number().int(),
  totalMicroUsd: z.number().int(),
});
export type UsageSummary = z.infer<typeof UsageSummarySchema>;
