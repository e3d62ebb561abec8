import { MessagePattern, Payload } from '@nestjs/microservices';
import { SUBJECTS } from '@agent-memory/shared';
import { BusEdge } from '@agent-memory/platform';
import {
  BillingAgentsActivityMessage,
  BillingBalanceMessage,
  BillingClaimPaymentMessage,
  BillingCommitMessage,
  BillingCompletePaymentMessage,
  BillingCreditMessage,
  BillingRecordUsageBatchMessage,
  BillingRecordUsageMessage,
  BillingReleaseMessage,
  BillingReserveMessage,
  BillingSettlePaidCallMessage,
  BillingUsageMessage,
} from './billing.messages';
import { ClaimPaymentUseCase } from './use-cases/claim-payment.use-case';
import { CommitReservationUseCase } from './use-cases/commit-reservation.use-case';
import { CompletePaymentUseCase } from './use-cases/complete-payment.use-case';
import { CreditUseCase } from './use-cases/credit.use-case';
import { GetAgentsActivityUseCase } from './use-cases/get-agents-activity.use-case';
import { GetBalanceUseCase } from './use-cases/get-balance.use-case';
import { GetUsageUseCase } from './use-cases/get-usage.use-case';
import { RecordUsageBatchUseCase } from './use-cases/record-usage-batch.use-case';
import { RecordUsageUseCase } from './use-cases/record-usage.use-case';
import { ReleaseReservationUseCase } from './use-cases/release-reservation.use-case';
import { ReserveUseCase } from './use-cases/reserve.use-case';
import { SettlePaidCallUseCase } from './use-cases/settle-paid-call.use-case';

/** Bus edge of the billing service (`billing.v1.*`): each message, validated by its class, goes to one use case. */
@BusEdge()
export class BillingMessageHandler {
  constructor(
    private readonly recordUsageUseCase: RecordUsageUseCase,
    private readonly getUsage: GetUsageUseCase,
    private readonly getBalance: GetBalanceUseCase,
    private readonly reserveUseCase: ReserveUseCase,
    private readonly commitReservation: CommitReservationUseCase,
    private readonly releaseReservation: ReleaseReservationUseCase,
    private readonly claimPaymentUseCase: ClaimPaymentUseCase,
    private readonly completePaymentUseCase: CompletePaymentUseCase,
    private readonly settlePaidCallUseCase: SettlePaidCallUseCase,
    private readonly creditUseCase: CreditUseCase,
    private readonly getAgentsActivity: GetAgentsActivityUseCase,
    private readonly recordUsageBatchUseCase: RecordUsageBatchUseCase,
  ) {}

  @MessagePattern(SUBJECTS.billing.recordUsage)
  recordUsage(@Payload() m: BillingRecordUsageMessage) {
    return this.recordUsageUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.recordUsageBatch)
  recordUsageBatch(@Payload() m: BillingRecordUsageBatchMessage) {
    return this.recordUsageBatchUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.usage)
  usage(@Payload() m: BillingUsageMessage) {
    return this.getUsage.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.agentsActivity)
  agentsActivity(@Payload() m: BillingAgentsActivityMessage) {
    return this.getAgentsActivity.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.balance)
  balance(@Payload() m: BillingBalanceMessage) {
    return this.getBalance.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.reserve)
  reserve(@Payload() m: BillingReserveMessage) {
    return this.reserveUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.commit)
  commit(@Payload() m: BillingCommitMessage) {
    return this.commitReservation.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.release)
  release(@Payload() m: BillingReleaseMessage) {
    return this.releaseReservation.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.claimPayment)
  claimPayment(@Payload() m: BillingClaimPaymentMessage) {
    return this.claimPaymentUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.completePayment)
  completePayment(@Payload() m: BillingCompletePaymentMessage) {
    return this.completePaymentUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.settlePaidCall)
  settlePaidCall(@Payload() m: BillingSettlePaidCallMessage) {
    return this.settlePaidCallUseCase.execute(m);
  }

  @MessagePattern(SUBJECTS.billing.credit)
  credit(@Payload() m: BillingCreditMessage) {
    return this.creditUseCase.execute(m);
  }
}
