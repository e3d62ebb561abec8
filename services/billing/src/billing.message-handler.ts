import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { z } from 'zod';
import { BillingRecordUsageMessageSchema, BillingUsageMessageSchema, SUBJECTS } from '@agent-memory/shared';
import { MessagePipe, RpcDomainExceptionFilter } from '@agent-memory/platform';
import { BillingService } from './billing.service';

/** Bus edge of the billing service. */
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
    return this.billing.usage(m.agentId, m.limit, m.offset);
  }
}
