import { Injectable } from '@nestjs/common';
import { type BillingReserveMessage, PaymentRequiredError, PRICE_LIST_MICRO_USD, type Reservation, usdLabel } from '@agent-memory/shared';
import { BillingRepository } from '../persistence/billing.repository';

/**
 * `billing.v1.reserve`: holds the operation's price (price list, docs/billing.md "Prices") from the
 * balance by an atomic conditional debit while the call runs (enforce mode). A repeated charge id returns
 * the first reservation and debits nothing more.
 * @throws PaymentRequiredError when the balance is below the price (nothing is debited).
 */
@Injectable()
export class ReserveUseCase {
  constructor(private readonly repository: BillingRepository) {}

  async execute(m: BillingReserveMessage): Promise<Reservation> {
    const price = PRICE_LIST_MICRO_USD[m.operation];
    const r = await this.repository.reserve(m, price);
    if ('insufficient' in r) {
      const where = m.environment === 'test' ? 'sandbox balance' : 'balance';
      throw new PaymentRequiredError(`Insufficient ${where}: ${usdLabel(r.balanceMicroUsd)} available, ${usdLabel(price)} needed for ${m.operation}`);
    }
    return { ...r.reservation, balanceMicroUsd: r.balanceMicroUsd };
  }
}
