import type { PaidOperation } from './schemas/billing';

/** One micro-USD is 10⁻⁶ USD; 0.05 USD = 50 000 micro-USD. */
export const MICRO_USD_PER_USD = 1_000_000;

/**
 * The price list of the spec (interface-spec.md, "Prices"), in micro-USD per call. Record management,
 * agent creation and raw blob access are free and have no entry.
 */
export const PRICE_LIST_MICRO_USD: Readonly<Record<PaidOperation, number>> = {
  recall: 50_000,
  remember: 50_000,
  forget: 50_000,
  read_file: 50_000,
  write_file: 50_000,
  context: 50_000,
};
