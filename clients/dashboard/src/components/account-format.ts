/**
 * Formatting for the account, agents, keys and usage views. Amounts are integer micro-USD
 * (docs/billing.md: 1 USD = 1,000,000 micro-USD); times are the API's ISO 8601 timestamps.
 */

/** `amountMicroUsd` as dollars, e.g. 250000 → "$0.25", 1234 → "$0.001234" (never rounded to zero). */
export function formatUsd(amountMicroUsd: number): string {
  const sign = amountMicroUsd < 0 ? '-' : '';
  const abs = Math.abs(amountMicroUsd);
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000).padStart(6, '0').replace(/0+$/, '');
  return `${sign}$${whole.toLocaleString('en-US')}.${fraction.length < 2 ? fraction.padEnd(2, '0') : fraction}`;
}

/** A timestamp as the reader's local date and time, to the minute or (`seconds`) the second (empty input: "never"). */
export function formatDateTime(timestamp: string | null | undefined, seconds = false): string {
  if (!timestamp) return 'never';
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' });
}

/** A timestamp as the reader's local date only. */
export function formatDate(timestamp: string | null | undefined): string {
  if (!timestamp) return 'never';
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? timestamp : date.toLocaleDateString(undefined, { dateStyle: 'medium' });
}
