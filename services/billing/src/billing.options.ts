/** Options of the billing service (docs/billing.md). */
export interface BillingOptions {
  /** Opening credit of a test (sandbox) balance, micro-USD; default `SANDBOX_INITIAL_CREDIT_MICRO_USD` of @agent-memory/shared (100 USD). */
  sandboxCreditMicroUsd?: number;
  /** How often the reservation sweeper runs, ms; default {@link DEFAULT_RESERVATION_SWEEP_INTERVAL_MS} (60 s); 0 turns it off. */
  reservationSweepIntervalMs?: number;
  /**
   * Age after which a reservation still `reserved` is voided and refunded by the sweeper, ms; default
   * {@link DEFAULT_RESERVATION_MAX_AGE_MS} (10 minutes). Must stay well above the longest paid call (the bus
   * request timeout is at most 30 s), or a call still running could lose its charge.
   */
  reservationMaxAgeMs?: number;
}
export const BILLING_OPTIONS = Symbol('BillingOptions');

/** Default period of the reservation sweeper: 60 s. */
export const DEFAULT_RESERVATION_SWEEP_INTERVAL_MS = 60_000;
/** Default age of a reservation the sweeper voids: 10 minutes (a call's bus timeout is at most 30 s). */
export const DEFAULT_RESERVATION_MAX_AGE_MS = 10 * 60_000;
