import { formatUsd, parseUsd, PAID_ROUTES, PRICE_LIST_MICRO_USD } from './prices';
import { PAID_OPERATIONS, UsdAmountSchema } from './schemas/billing';

describe('price list (docs/billing.md "Prices")', () => {
  it('charges 0.05 USD for each of the six paid operations, listed once each', () => {
    expect(Object.keys(PRICE_LIST_MICRO_USD).sort()).toEqual([...PAID_OPERATIONS].sort());
    expect(Object.values(PRICE_LIST_MICRO_USD).every((p) => p === 50_000)).toBe(true);
    expect(PAID_ROUTES.map((r) => r.operation).sort()).toEqual([...PAID_OPERATIONS].sort());
  });
});

describe('USD amounts', () => {
  it('formats micro-USD with 2 to 6 decimals and parses them back', () => {
    expect([0, 50_000, 1_500_000, 100_000_000, 1_234_567, 1_234_500].map(formatUsd)).toEqual(['0.00', '0.05', '1.50', '100.00', '1.234567', '1.2345']);
    for (const micro of [0, 1, 50_000, 1_500_000, 999_999_999]) expect(parseUsd(formatUsd(micro))).toBe(micro);
    expect(parseUsd('10')).toBe(10_000_000);
    for (const bad of ['', '-1', '1.1234567', '1e3', '0x10', '1,5', ' 1']) expect(parseUsd(bad)).toBeUndefined();
  });

  it('accepts top-up amounts from 0.05 to 1000 USD as strings or numbers', () => {
    expect(UsdAmountSchema.parse('1.50')).toBe(1_500_000);
    expect(UsdAmountSchema.parse(2)).toBe(2_000_000);
    expect(UsdAmountSchema.parse('0.05')).toBe(50_000);
    expect(UsdAmountSchema.safeParse('0.01').success).toBe(false);
    expect(UsdAmountSchema.safeParse('1000.01').success).toBe(false);
    expect(UsdAmountSchema.safeParse('ten').success).toBe(false);
  });
});
