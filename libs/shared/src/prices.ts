import type { PaidOperation } from './schemas/billing';

/** One micro-USD is 10⁻⁶ USD; 0.05 USD = 50 000 micro-USD. */
export const MICRO_USD_PER_USD = 1_000_000;

/**
 * The price list (docs/billing.md, "Prices"), in micro-USD per call. Record management,
 * agent creation and raw blob access are free and have no entry. This is the one place prices live: the
 * billing service charges from it, the gateway states it in payment challenges and `GET /billing/prices`.
 */
export const PRICE_LIST_MICRO_USD: Readonly<Record<PaidOperation, number>> = {
  recall: 50_000,
  remember: 50_000,
  forget: 50_000,
  read_file: 50_000,
  write_file: 50_000,
  context: 50_000,
  /** A page of list memories: it answers memories with their content, as context does (docs/api.md, "Endpoints"). */
  list_memories: 50_000,
};

/** A paid route (docs/api.md, "Endpoints"): what it is called, where it lives, its price unit. */
export interface PaidRoute {
  operation: PaidOperation;
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  unit: string;
}

/** The paid routes and their price units (docs/billing.md, "Prices"), in the order of that table. */
export const PAID_ROUTES: readonly PaidRoute[] = [
  { operation: 'recall', method: 'POST', path: '/api/v1/records/{recordId}/recall', unit: 'query' },
  { operation: 'remember', method: 'POST', path: '/api/v1/records/{recordId}/remember', unit: 'write' },
  { operation: 'forget', method: 'DELETE', path: '/api/v1/records/{recordId}/remember', unit: 'write' },
  { operation: 'read_file', method: 'GET', path: '/api/v1/records/{recordId}/read', unit: 'file' },
  { operation: 'write_file', method: 'POST', path: '/api/v1/records/{recordId}/write', unit: 'file' },
  { operation: 'context', method: 'GET', path: '/api/v1/records/{recordId}/context', unit: 'request' },
  { operation: 'list_memories', method: 'GET', path: '/api/v1/records/{recordId}/memories', unit: 'page' },
];

/**
 * Sandbox credit of an agent's test environment (docs/billing.md, our decision): the first time a `_test_`
 * key's balance is read or drawn on, it starts at 100 USD. Sandbox money is never real.
 */
export const SANDBOX_INITIAL_CREDIT_MICRO_USD = 100 * MICRO_USD_PER_USD;

/** Bounds of one top-up, live (paid with a Payment credential) or sandbox (free), micro-USD (docs/billing.md). */
export const TOP_UP_LIMITS_MICRO_USD = { min: 50_000, max: 1_000 * MICRO_USD_PER_USD } as const;

/** `50000` → `"0.05"`, `1234567` → `"1.234567"`: a decimal USD string with 2 to 6 decimals. */
export function formatUsd(microUsd: number): string {
  const negative = microUsd < 0;
  const abs = Math.abs(Math.trunc(microUsd));
  const whole = Math.floor(abs / MICRO_USD_PER_USD);
  const fraction = String(abs % MICRO_USD_PER_USD).padStart(6, '0').replace(/0{1,4}$/, '');
  return `${negative ? '-' : ''}${whole}.${fraction.padEnd(2, '0')}`;
}

/** `"0.05"` → `50000`; a string that is not a non-negative decimal with at most 6 decimals → undefined. */
export function parseUsd(value: string): number | undefined {
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * MICRO_USD_PER_USD + Number((m[2] ?? '').padEnd(6, '0'));
}
