import type { BillingClaimPaymentMessage, BillingCreditMessage, BillingEnvironment, BillingRecordUsageBatchMessage, BillingRecordUsageMessage, BillingReleaseMessage, BillingReserveMessage, BillingSettlePaidCallMessage, BillingUsageMessage } from '@agent-memory/shared';
import type { BillingRepository } from './persistence/billing.repository';
import { ClaimPaymentUseCase } from './use-cases/claim-payment.use-case';
import { CommitReservationUseCase } from './use-cases/commit-reservation.use-case';
import { CompletePaymentUseCase } from './use-cases/complete-payment.use-case';
import { CreditUseCase } from './use-cases/credit.use-case';
import { GetBalanceUseCase } from './use-cases/get-balance.use-case';
import { GetPaymentUseCase } from './use-cases/get-payment.use-case';
import { GetUsageUseCase } from './use-cases/get-usage.use-case';
import { RecordUsageBatchUseCase } from './use-cases/record-usage-batch.use-case';
import { RecordUsageUseCase } from './use-cases/record-usage.use-case';
import { ReleaseReservationUseCase } from './use-cases/release-reservation.use-case';
import { ReserveUseCase } from './use-cases/reserve.use-case';
import { SettlePaidCallUseCase } from './use-cases/settle-paid-call.use-case';
import { SweepReservationsUseCase } from './use-cases/sweep-reservations.use-case';

/**
 * For tests: the billing use cases around one repository, each called the way the bus handler calls it
 * (`execute(message)`), under short names. Not part of the service (the module wires the use cases).
 */
export function billingUseCases(repository: BillingRepository) {
  const sweep = new SweepReservationsUseCase(repository);
  return {
    sweep,
    balance: (agentId: string, environment: BillingEnvironment) => new GetBalanceUseCase(repository).execute({ agentId, environment }),
    reserve: (m: BillingReserveMessage) => new ReserveUseCase(repository).execute(m),
    commit: (chargeId: string, idempotencyKey: string | undefined, commitId?: string) => new CommitReservationUseCase(repository).execute({ chargeId, idempotencyKey, commitId }),
    release: (m: BillingReleaseMessage) => new ReleaseReservationUseCase(repository).execute(m),
    sweepReservations: (olderThanMs: number) => sweep.execute({ olderThanMs }),
    recordUsage: (m: BillingRecordUsageMessage) => new RecordUsageUseCase(repository).execute(m),
    recordUsageBatch: (m: BillingRecordUsageBatchMessage) => new RecordUsageBatchUseCase(repository).execute(m),
    usage: (m: BillingUsageMessage) => new GetUsageUseCase(repository).execute(m),
    claimPayment: (m: BillingClaimPaymentMessage) => new ClaimPaymentUseCase(repository).execute(m),
    completePayment: (challengeId: string, outcome: 'settled' | 'failed' | 'submitted', reference: string | undefined) => new CompletePaymentUseCase(repository).execute({ challengeId, outcome, reference }),
    payment: (challengeId: string) => new GetPaymentUseCase(repository).execute({ challengeId }),
    settlePaidCall: (m: BillingSettlePaidCallMessage) => new SettlePaidCallUseCase(repository).execute(m),
    credit: (m: BillingCreditMessage) => new CreditUseCase(repository).execute(m),
  };
}
