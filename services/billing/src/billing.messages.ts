import {
  BillingAgentsActivityMessageSchema,
  BillingBalanceMessageSchema,
  BillingClaimPaymentMessageSchema,
  BillingCommitMessageSchema,
  BillingCompletePaymentMessageSchema,
  BillingCreditMessageSchema,
  BillingRecordUsageBatchMessageSchema,
  BillingRecordUsageMessageSchema,
  BillingReleaseMessageSchema,
  BillingReserveMessageSchema,
  BillingSettlePaidCallMessageSchema,
  BillingUsageMessageSchema,
} from '@agent-memory/shared';
import { messageClass } from '@agent-memory/platform';

/** `billing.v1.record-usage`: `{ chargeId, requestId, agentId, environment, operation, recordId, idempotencyKey?, commitId?, paymentMethod }`. */
export class BillingRecordUsageMessage extends messageClass(BillingRecordUsageMessageSchema) {}
/** `billing.v1.record-usage-batch`: `{ entries }`, 1 to 100 entries of `billing.v1.record-usage`, of any agents. */
export class BillingRecordUsageBatchMessage extends messageClass(BillingRecordUsageBatchMessageSchema) {}
/** `billing.v1.usage`: `{ agentId, environment?, limit, offset, operation?, from?, to? }`. */
export class BillingUsageMessage extends messageClass(BillingUsageMessageSchema) {}
/** `billing.v1.agents-activity`: `{ agentIds }` (at most 500). */
export class BillingAgentsActivityMessage extends messageClass(BillingAgentsActivityMessageSchema) {}
/** `billing.v1.balance`: `{ agentId, environment }`. */
export class BillingBalanceMessage extends messageClass(BillingBalanceMessageSchema) {}
/** `billing.v1.reserve`: `{ chargeId, requestId, agentId, environment, operation, recordId }`. */
export class BillingReserveMessage extends messageClass(BillingReserveMessageSchema) {}
/** `billing.v1.commit`: `{ chargeId, idempotencyKey?, commitId? }`. */
export class BillingCommitMessage extends messageClass(BillingCommitMessageSchema) {}
/** `billing.v1.release`: `{ chargeId, requestId?, agentId?, environment?, operation?, recordId? }`. */
export class BillingReleaseMessage extends messageClass(BillingReleaseMessageSchema) {}
/** `billing.v1.claim-payment`: `{ challengeId, purpose, agentId, operation?, recordId?, amountMicroUsd, payer, requestId }`. */
export class BillingClaimPaymentMessage extends messageClass(BillingClaimPaymentMessageSchema) {}
/** `billing.v1.complete-payment`: `{ challengeId, outcome: settled | failed | submitted, reference? }`. */
export class BillingCompletePaymentMessage extends messageClass(BillingCompletePaymentMessageSchema) {}
/** `billing.v1.credit`: `{ creditId, agentId, environment, amountMicroUsd, reason: refund | sandbox_top_up, reference? }`. */
export class BillingCreditMessage extends messageClass(BillingCreditMessageSchema) {}
/** `billing.v1.settle-paid-call`: `{ challengeId, reference, chargeId, requestId, agentId, environment, operation, recordId, idempotencyKey?, replayed, commitId?, recordUsage }`. */
export class BillingSettlePaidCallMessage extends messageClass(BillingSettlePaidCallMessageSchema) {}
