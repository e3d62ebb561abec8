/**
 * Paying `402 Payment Required` answers with the agent's wallet (docs/billing.md, "The `Payment`
 * scheme"): the `WWW-Authenticate: Payment` challenge (method `evm`, intent `charge`) is turned into an
 * `Authorization: Payment <credential>` (a signed EIP-3009 transfer authorization) by mppx's client, which
 * is imported only when a first challenge is paid. The client refuses, before anything is signed, a
 * challenge whose price is above the configured maximum.
 */
import { PaymentRefusedError, type AgentMemoryError } from './errors';
import type { WalletAccount } from './signature';

/** `payments` option of the client. Paying is off unless `enabled` is true. */
export interface PaymentOptions {
  /** Pay 402 challenges with the client's wallet. */
  enabled: boolean;
  /** Highest price the client pays for one call, in USD (`"0.05"`); a dearer challenge is refused with {@link PaymentRefusedError}. */
  maxPricePerCall: string;
  /** EIP-712 domain of the payment token (the server's PAYMENT_CURRENCY_NAME/VERSION); default USDC version 2. */
  token?: { name: string; version: string };
}

/** Micro-USD of a USD decimal string or number (at most 6 decimals); throws TypeError otherwise. */
export function usdToMicro(usd: string | number): bigint {
  const text = typeof usd === 'number' ? String(usd) : usd.trim();
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new TypeError(`not a USD amount with at most 6 decimals: ${text}`);
  return BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** The price of a `WWW-Authenticate: Payment` challenge in micro-USD (from its base64url JSON `request`). */
export function challengePriceMicroUsd(wwwAuthenticate: string): bigint | undefined {
  const encoded = /\brequest="([^"]*)"/.exec(wwwAuthenticate)?.[1];
  if (!encoded) return undefined;
  try {
    const json = JSON.parse(decodeBase64Url(encoded)) as { amount?: unknown; decimals?: unknown; methodDetails?: { decimals?: unknown } };
    const decimals = Number(json.methodDetails?.decimals ?? json.decimals ?? 6);
    if (typeof json.amount !== 'string' || !/^\d+$/.test(json.amount) || !Number.isInteger(decimals) || decimals < 0 || decimals > 36) return undefined;
    const amount = BigInt(json.amount);
    // micro-USD = amount / 10^decimals * 10^6, rounded up so that a fraction never passes under the maximum
    const scale = 10n ** BigInt(Math.abs(decimals - 6));
    return decimals >= 6 ? (amount + scale - 1n) / scale : amount * scale;
  } catch {
    return undefined;
  }
}

function decodeBase64Url(value: string): string {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

/** Pays challenges with one wallet; mppx is imported on the first payment. */
export class Payer {
  private client?: Promise<{ createCredential(response: Response): Promise<string> }>;
  readonly maxPriceMicroUsd: bigint;

  constructor(
    private readonly account: () => Promise<WalletAccount>,
    private readonly options: PaymentOptions,
  ) {
    this.maxPriceMicroUsd = usdToMicro(options.maxPricePerCall);
  }

  /**
   * The `Authorization` value paying the challenge of `refused` (a 402 {@link AgentMemoryError} carrying
   * `wwwAuthenticate`). `maxMicroUsd` overrides the maximum (a top-up pays exactly its amount).
   * Throws {@link PaymentRefusedError} when the price is unreadable or above the maximum.
   */
  async credentialFor(refused: AgentMemoryError, maxMicroUsd = this.maxPriceMicroUsd): Promise<string> {
    const challenge = refused.details?.['wwwAuthenticate'] as string;
    const price = challengePriceMicroUsd(challenge);
    if (price === undefined || price > maxMicroUsd) {
      const shown = price === undefined ? 'an unreadable price' : `${formatMicro(price)} USD`;
      throw new PaymentRefusedError({
        code: 'PAYMENT_REQUIRED',
        status: 402,
        message: `Payment refused by the client: the challenge asks ${shown}, the maximum is ${formatMicro(maxMicroUsd)} USD (${refused.message})`,
        requestId: refused.requestId,
        details: { ...refused.details, priceMicroUsd: price, maxPriceMicroUsd: maxMicroUsd },
      });
    }
    const client = await (this.client ??= this.load());
    return client.createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': challenge } }));
  }

  private async load(): Promise<{ createCredential(response: Response): Promise<string> }> {
    const [{ Mppx }, { charge }, account] = await Promise.all([import('mppx/client'), import('mppx/evm/client'), this.account()]);
    const token = this.options.token ?? { name: 'USDC', version: '2' };
    return Mppx.create({ methods: [charge({ account, authorization: token })], polyfill: false });
  }
}

/** `50000n` → `"0.05"`. */
export function formatMicro(micro: bigint): string {
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction.length < 2 ? `${whole}.${fraction.padEnd(2, '0')}` : `${whole}.${fraction}`;
}
