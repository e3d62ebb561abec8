import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import {
  BillingBalanceMessageSchema,
  BillingClaimPaymentMessageSchema,
  BillingCommitMessageSchema,
  BillingCompletePaymentMessageSchema,
  BillingCreditMessageSchema,
  BillingRecordUsageMessageSchema,
  BillingReleaseMessageSchema,
  BillingReserveMessageSchema,
  BillingUsageMessageSchema,
  SUBJECTS,
} from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { BillingService } from './billing.service';

/** Bus edge of the billing service (`billing.v1.*`); every message is validated here, where it is consumed. */
@Controller()
@UseFilters(RpcDomainExceptionFilter)
export class BillingMessageHandler {
  constructor(private readonly billing: BillingService) {}

  @MessagePattern(SUBJECTS.billing.recordUsage)
  recordUsage(@Payload(new MessagePipe(BillingRecordUsageMessageSchema)) m: z.output<typeof BillingRecordUsageMessageSchema>) {
    return this.billing.recordUsage(m);
  }

  @MessagePattern(SUBJECTS.billing.usage)
  usage(@Payload(new MessagePipe(BillingUsageMessageSchema)) m: z.output<typeof BillingUsageMessageSchema>) {
    return this.billing.usage(m);
  }

  @MessagePattern(SUBJECTS.billing.balance)
  balance(@Payload(new MessagePipe(BillingBalanceMessageSchema)) m: z.output<typeof BillingBalanceMessageSchema>) {
    return this.billing.balance(m.agentId, m.environment);
  }

  @MessagePattern(SUBJECTS.billing.reserve)
  reserve(@Payload(new MessagePipe(BillingReserveMessageSchema)) m: z.output<typeof BillingReserveMessageSchema>) {
    return this.billing.reserve(m);
  }

  @MessagePattern(SUBJECTS.billing.commit)
  commit(@Payload(new MessagePipe(BillingCommitMessageSchema)) m: z.output<typeof BillingCommitMessageSchema>) {
    return this.billing.commit(m.chargeId, m.idempotencyKey, m.commitId);
  }

  @MessagePattern(SUBJECTS.billing.release)
  release(@Payload(new MessagePipe(BillingReleaseMessageSchema)) m: z.output<typeof BillingReleaseMessageSchema>) {
    return this.billing.release(m);
  }

  @MessagePattern(SUBJECTS.billing.claimPayment)
  claimPayment(@Payload(new MessagePipe(BillingClaimPaymentMessageSchema)) m: z.output<typeof BillingClaimPaymentMessageSchema>) {
    return this.billing.claimPayment(m);
  }

  @MessagePattern(SUBJECTS.billing.completePayment)
  completePayment(@Payload(new MessagePipe(BillingCompletePaymentMessageSchema)) m: z.output<typeof BillingCompletePaymentMessageSchema>) {
    return this.billing.completePayment(m.challengeId, m.outcome, m.reference);
  }

  @MessagePattern(SUBJECTS.billing.credit)
  credit(@Payload(new MessagePipe(BillingCreditMessageSchema)) m: z.output<typeof BillingCreditMessageSchema>) {
    return this.billing.credit(m);
  }
}
