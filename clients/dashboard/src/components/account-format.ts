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

/** A passkey's WebAuthn device type in words: `singleDevice` "this device only", `multiDevice` "synced (multi-device)", else as given. */
export function passkeyDevice(deviceType: string): string {
  if (deviceType === 'singleDevice') return 'this device only';
  if (deviceType === 'multiDevice') return 'synced (multi-device)';
  return deviceType;
}

/** WebAuthn transports in words. */
const TRANSPORTS: Record<string, string> = {
  internal: 'built-in',
  usb: 'USB',
  nfc: 'NFC',
  ble: 'Bluetooth',
  hybrid: 'phone or tablet (hybrid)',
  'smart-card': 'smart card',
  cable: 'cable',
};

/** How the browser reached a passkey's authenticator, in words ("built-in", "USB, NFC"); "not reported" when the list is empty. */
export function passkeyTransports(transports: readonly string[]): string {
  return transports.length === 0 ? 'not reported' : transports.map((t) => TRANSPORTS[t] ?? t).join(', ');
}

/**
 * A passkey told apart from the account's others, for screen readers: its creation time to the second and
 * its device type and transports, e.g. "the passkey created 3 May 2026, 10:04:12 (this device only, built-in)".
 * Two passkeys can share all of that (added within one second from like devices); use `passkeyNames` for a list.
 */
export function passkeyName(passkey: { createdAt: string; deviceType: string; transports: readonly string[] }): string {
  return `the passkey created ${formatDateTime(passkey.createdAt, true)} (${passkeyDevice(passkey.deviceType)}, ${passkeyTransports(passkey.transports)})`;
}

/**
 * `passkeyName` of each passkey of a list, in the list's order, every one distinct: passkeys whose names
 * coincide get their place among those, e.g. "the passkey created 3 May 2026, 10:04:12 (this device only,
 * built-in), 2 of 2 alike". A name without a twin has no suffix, so it does not change as others come and go.
 */
export function passkeyNames(passkeys: readonly { createdAt: string; deviceType: string; transports: readonly string[] }[]): string[] {
  const names = passkeys.map(passkeyName);
  const alike = new Map<string, number>();
  for (const name of names) alike.set(name, (alike.get(name) ?? 0) + 1);
  const seen = new Map<string, number>();
  return names.map((name) => {
    const total = alike.get(name)!;
    if (total === 1) return name;
    const place = (seen.get(name) ?? 0) + 1;
    seen.set(name, place);
    return `${name}, ${place} of ${total} alike`;
  });
}
