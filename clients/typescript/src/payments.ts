/**
 * Paying `402 Payment Required` answers with the agent's wallet (docs/billing.md, "The `Payment`
 * scheme"): the `WWW-Authenticate: Payment` challenge (method `evm`, intent `charge`) is turned into an
 * `Authorization: Payment <credential>` (a signed EIP-3009 transfer authorization) by mppx's client, which
 * is imported only when a first challenge is paid.
 *
 * Nothing the server states is trusted for the price: the client pays only with the token it was
 * configured with (`payments.chainId`, `currency`, `decimals`; default Base Sepolia USDC, the service's
 * default, docs/billing.md "Configuration"), refuses a challenge naming another chain, token or
 * decimals, computes the price with its own decimals, and hands mppx the same allowlist and cap
 * (`networks`, `currencies`, `decimals`, `maxAmount`) so that mppx refuses to sign anything else too.
 */
import { PaymentRefusedError, type AgentMemoryError } from './errors';
import type { Hex, WalletAccount } from './signature';

/** EIP-3009 USDC deployments the client knows (the service's defaults, docs/billing.md "Configuration"). */
const KNOWN_USDC: Record<number, { address: Hex; name: string; version: string }> = {
  84532: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' }, // Base Sepolia
  8453: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2' }, // Base
};

/** The chain paid on when `payments.chainId` is not given: Base Sepolia, the service's `PAYMENT_CHAIN_ID` default. */
export const DEFAULT_PAYMENT_CHAIN_ID = 84532;

/**
 * `payments` option of the client. Paying is off unless `enabled` is true. The token paid with is pinned
 * here, never taken from the server: `chainId` (default 84532, Base Sepolia; 8453 = Base), `currency`
 * (default: USDC of that chain; required on other chains) and `decimals` (default 6, USDC's).
 */
export interface PaymentOptions {
  /** Pay 402 challenges with the client's wallet. */
  enabled: boolean;
  /** Highest price the client pays for one call, in USD (`"0.05"`); a dearer challenge is refused with {@link PaymentRefusedError}. */
  maxPricePerCall: string;
  /** EVM chain id the client pays on (the server's PAYMENT_CHAIN_ID); default 84532 (Base Sepolia). */
  chainId?: number;
  /** Token contract the client pays with (the server's PAYMENT_CURRENCY); default USDC of `chainId` (84532, 8453). */
  currency?: Hex;
  /** Decimals of `currency` (the server's PAYMENT_CURRENCY_DECIMALS); default 6. */
  decimals?: number;
  /** EIP-712 domain of the token (the server's PAYMENT_CURRENCY_NAME/VERSION); default that of the chain's USDC, else USDC version 2. */
  token?: { name: string; version: string };
}

/** The token the client pays with, resolved from {@link PaymentOptions}. */
export interface PinnedCurrency {
  chainId: number;
  address: Hex;
  decimals: number;
  token: { name: string; version: string };
}

/** Resolves the pinned token of `options`; TypeError when `currency` is missing on a chain without known USDC, or a value is malformed. */
export function pinnedCurrency(options: PaymentOptions): PinnedCurrency {
  const chainId = options.chainId ?? DEFAULT_PAYMENT_CHAIN_ID;
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new TypeError(`payments.chainId: expected a positive integer, got ${chainId}`);
  const known = KNOWN_USDC[chainId];
  const address = options.currency ?? known?.address;
  if (!address) throw new TypeError(`payments.currency: required on chain ${chainId} (the client knows USDC on ${Object.keys(KNOWN_USDC).join(' and ')} only)`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`payments.currency: expected a 0x-prefixed 20-byte address, got ${address}`);
  const decimals = options.decimals ?? 6;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) throw new TypeError(`payments.decimals: expected an integer 0-36, got ${decimals}`);
  const token = options.token ?? (known && address.toLowerCase() === known.address.toLowerCase() ? { name: known.name, version: known.version } : { name: 'USDC', version: '2' });
  return { chainId, address, decimals, token };
}

/** Micro-USD of a USD decimal string or number (at most 6 decimals); throws TypeError otherwise. */
export function usdToMicro(usd: string | number): bigint {
  const text = typeof usd === 'number' ? String(usd) : usd.trim();
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new TypeError(`not a USD amount with at most 6 decimals: ${text}`);
  return BigInt(m[1]) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/** What a `WWW-Authenticate: Payment` challenge asks (from its base64url JSON `request`); undefined when unreadable. */
export interface ChallengeTerms {
  /** Base units of the token. */
  amount: bigint;
  currency?: string;
  chainId?: number;
  decimals?: number;
}

/** Reads the terms of a challenge: `amount`, `currency`, and `chainId`/`decimals` from `methodDetails` (or the top level). */
export function challengeTerms(wwwAuthenticate: string): ChallengeTerms | undefined {
  const encoded = /\brequest="([^"]*)"/.exec(wwwAuthenticate)?.[1];
  if (!encoded) return undefined;
  try {
    type Details = { chainId?: unknown; decimals?: unknown };
    const json = JSON.parse(decodeBase64Url(encoded)) as { amount?: unknown; currency?: unknown; methodDetails?: Details } & Details;
    if (typeof json.amount !== 'string' || !/^\d+$/.test(json.amount)) return undefined;
    const chainId = json.methodDetails?.chainId ?? json.chainId;
    const decimals = json.methodDetails?.decimals ?? json.decimals;
    return {
      amount: BigInt(json.amount),
      currency: typeof json.currency === 'string' ? json.currency : undefined,
      chainId: typeof chainId === 'number' ? chainId : undefined,
      decimals: typeof decimals === 'number' ? decimals : undefined,
    };
  } catch {
    return undefined;
  }
}

/**
 * Micro-USD of `amount` base units of a token with `decimals` decimals (a USD stablecoin), rounded up so
 * that a fraction never passes under a maximum.
 */
export function baseUnitsToMicroUsd(amount: bigint, decimals: number): bigint {
  const scale = 10n ** BigInt(Math.abs(decimals - 6));
  return decimals >= 6 ? (amount + scale - 1n) / scale : amount * scale;
}

/**
 * Why the challenge is not payable with `pinned`: it names another chain, token or decimals (or omits
 * them); undefined when it names exactly the pinned token.
 */
export function mismatchOf(terms: ChallengeTerms, pinned: PinnedCurrency): string | undefined {
  if (terms.chainId !== pinned.chainId) return `chain ${terms.chainId ?? '(none)'} instead of ${pinned.chainId}`;
  if (terms.currency?.toLowerCase() !== pinned.address.toLowerCase()) return `token ${terms.currency ?? '(none)'} instead of ${pinned.address}`;
  if (terms.decimals !== undefined && terms.decimals !== pinned.decimals) return `${terms.decimals} decimals instead of ${pinned.decimals}`;
  return undefined;
}

function decodeBase64Url(value: string): string {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

type CredentialClient = { createCredential(response: Response): Promise<string> };

/** Pays challenges with one wallet in the pinned token; mppx is imported on the first payment. */
export class Payer {
  /** The mppx client capped at {@link maxPriceMicroUsd} (other caps, a top-up's, get a client of their own). */
  private client?: Promise<CredentialClient>;
  readonly maxPriceMicroUsd: bigint;
  readonly currency: PinnedCurrency;

  /** Throws TypeError for a malformed `maxPricePerCall` or pinned token (see {@link pinnedCurrency}). */
  constructor(
    private readonly account: () => Promise<WalletAccount>,
    options: PaymentOptions,
  ) {
    this.maxPriceMicroUsd = usdToMicro(options.maxPricePerCall);
    this.currency = pinnedCurrency(options);
  }

  /**
   * The `Authorization` value paying the challenge of `refused` (a 402 {@link AgentMemoryError} carrying
   * `wwwAuthenticate`). `maxMicroUsd` overrides the maximum (a top-up pays exactly its amount).
   * Throws {@link PaymentRefusedError}, before anything is signed, when the challenge is unreadable, names
   * another chain, token or decimals than the pinned ones, or is priced above the maximum.
   */
  async credentialFor(refused: AgentMemoryError, maxMicroUsd = this.maxPriceMicroUsd): Promise<string> {
    const challenge = refused.details?.['wwwAuthenticate'] as string;
    const terms = challengeTerms(challenge);
    const mismatch = terms && mismatchOf(terms, this.currency);
    const price = terms && !mismatch ? baseUnitsToMicroUsd(terms.amount, this.currency.decimals) : undefined;
    if (price === undefined || price > maxMicroUsd) {
      const why = !terms ? 'the challenge is unreadable' : mismatch ? `the challenge asks for ${mismatch}` : `the challenge asks ${formatMicro(price!)} USD, the maximum is ${formatMicro(maxMicroUsd)} USD`;
      throw new PaymentRefusedError({
        code: 'PAYMENT_REQUIRED',
        status: 402,
        message: `Payment refused by the client: ${why} (${refused.message})`,
        requestId: refused.requestId,
        details: { ...refused.details, priceMicroUsd: price, maxPriceMicroUsd: maxMicroUsd, ...(mismatch ? { mismatch } : {}) },
      });
    }
    const client = await (maxMicroUsd === this.maxPriceMicroUsd ? (this.client ??= this.load(maxMicroUsd)) : this.load(maxMicroUsd));
    return client.createCredential(new Response(null, { status: 402, headers: { 'WWW-Authenticate': challenge } }));
  }

  /** mppx's client with the pinned chain and token and the cap: mppx refuses (throws) any other challenge too. */
  private async load(maxMicroUsd: bigint): Promise<CredentialClient> {
    const [{ Mppx }, { charge }, account] = await Promise.all([import('mppx/client'), import('mppx/evm/client'), this.account()]);
    const { chainId, address, decimals, token } = this.currency;
    // WalletAccount is the part of viem's Account that we use; mppx's own types want the whole Account. The
    // repository's tsconfig sees mppx through ./mppx.d.ts (account: unknown), the dashboard's through mppx's types.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    const method = charge({ account: account as NonNullable<Parameters<typeof charge>[0]>['account'], authorization: token, networks: [chainId], currencies: [address], decimals, maxAmount: formatMicro(maxMicroUsd) });
    return Mppx.create({ methods: [method], polyfill: false });
  }
}

/** `50000n` → `"0.05"`. */
export function formatMicro(micro: bigint): string {
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction.length < 2 ? `${whole}.${fraction.padEnd(2, '0')}` : `${whole}.${fraction}`;
}
