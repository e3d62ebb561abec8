import { offsetPages, type PageIterator } from '../pagination';
import { usdToMicro } from '../payments';
import type { Transport } from '../transport';
import type { BalanceInfo, CallOptions, LedgerEntry, ListOptions, Prices, TopUpResult, UsageFilter, UsagePage, UsdAmount } from '../types';

/** Prices, balances, the usage ledger and top-ups (docs/billing.md, "Endpoints"). */
export class BillingApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /billing/prices` (no auth): the price of each paid operation and the payment method (chain id, token, recipient). */
  prices(options?: CallOptions): Promise<Prices> {
    return this.transport.request({ method: 'GET', path: '/billing/prices', auth: 'none', idempotent: true }, options);
  }

  /** `GET /billing/balance`: the balance of the key's environment (`balanceMicroUsd`, `balanceUsd`). */
  balance(options?: CallOptions): Promise<BalanceInfo> {
    return this.transport.request({ method: 'GET', path: '/billing/balance', auth: 'agent', idempotent: true }, options);
  }

  /** `GET /billing/usage`: one ledger page (limit 1–100, default 20; newest first) with totals over the filter. */
  usagePage(query: UsageFilter & { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<UsagePage> {
    return this.transport.request({ method: 'GET', path: '/billing/usage', query, auth: 'agent', idempotent: true }, options);
  }

  /** Every ledger entry matching `filter` (`operation`, `from`, `to`), newest first, page by page. */
  usage(filter: UsageFilter & ListOptions = {}): PageIterator<LedgerEntry, UsagePage> {
    const { pageSize, signal, timeoutMs, ...query } = filter;
    return offsetPages((offset) => this.usagePage({ ...query, limit: pageSize, offset }, { signal, timeoutMs }), (page) => page.entries);
  }

  /**
   * `POST /billing/top-up` `{ amount }` (0.05–1,000 USD; live key): the server answers 402 with a
   * challenge for that amount, which the client pays with its wallet when `payments.enabled` is set
   * (only a challenge of exactly this amount; `maxPricePerCall` does not apply to top-ups). Without
   * payments enabled: PaymentRequiredError carrying the challenge. Not repeated after a lost answer.
   */
  topUp(amount: UsdAmount, options?: CallOptions): Promise<TopUpResult> {
    return this.transport.request({ method: 'POST', path: '/billing/top-up', body: { amount }, auth: 'agent', maxPriceMicroUsd: usdToMicro(amount) }, options);
  }

  /** `POST /billing/sandbox/top-up` `{ amount }` (test key): free sandbox credit. */
  sandboxTopUp(amount: UsdAmount, options?: CallOptions): Promise<TopUpResult> {
    return this.transport.request({ method: 'POST', path: '/billing/sandbox/top-up', body: { amount }, auth: 'agent' }, options);
  }
}
