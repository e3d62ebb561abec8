import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { env } from '@agent-memory/platform';

const Hex20 = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

/**
 * Options of the gateway's HTTP `Payment` authentication scheme (Machine Payments Protocol, `evm/charge` with
 * EIP-3009 transfer authorizations; docs/billing.md "Configuration").
 */
export interface PaymentOptions {
  /** HMAC key that binds a challenge to its parameters (stateless challenges, docs/billing.md), ≥ 32 bytes. Same on every gateway replica. */
  secretKey: string;
  /**
   * Realm of the challenges (bound into the HMAC): the host name clients reach the API at, without port, as
   * MPP clients expect (`mppx validate` warns when it is not the server's host name or a parent domain of it).
   */
  realm: string;
  /** EVM chain id of payments (84532 = Base Sepolia, 8453 = Base). */
  chainId: number;
  /** Token contract (an EIP-3009 USD stablecoin such as USDC). */
  currency: `0x${string}`;
  /** Token decimals: 6 for USDC, so one micro-USD is one base unit. */
  decimals: number;
  /** EIP-712 domain of the token's `transferWithAuthorization`. */
  tokenName: string;
  tokenVersion: string;
  /** Who receives payments. The zero address means "not configured": challenges are issued, settlement refuses. */
  recipient: `0x${string}`;
  /** How long a challenge can be paid, seconds (the credential's `validBefore`). */
  challengeTtlSeconds: number;
  /** JSON-RPC endpoint of the chain; with `settlerPrivateKey`, the default settlement submits authorizations there. */
  rpcUrl?: string;
  /** Key of the account that submits `transferWithAuthorization` and pays its gas. */
  settlerPrivateKey?: `0x${string}`;
}

/** The recipient when `PAYMENT_RECIPIENT` is unset: payments cannot settle. */
export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000' as const;

/** Known EIP-3009 USDC deployments (from mppx's asset list), used when PAYMENT_CURRENCY is not set. */
const KNOWN_USDC: Record<number, { address: `0x${string}`; name: string; version: string; decimals: number }> = {
  84532: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6 },
  8453: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
};

/**
 * Payment variables of the gateway (docs/billing.md). Defaults work offline: Base Sepolia test USDC, a
 * generated secret, no recipient (challenges are stated, payments cannot settle until one is set).
 */
export const PaymentEnvSchema = z.object({
  // Secrets are checked in paymentOptionsFromEnv, whose messages never echo the value.
  PAYMENT_SECRET_KEY: z.string().optional(),
  PAYMENT_REALM: z.string().min(1).max(128).optional(),
  PAYMENT_CHAIN_ID: env.int(84532, 1),
  PAYMENT_CURRENCY: Hex20.optional(),
  PAYMENT_CURRENCY_DECIMALS: z.coerce.number().int().min(0).max(36).optional(),
  PAYMENT_CURRENCY_NAME: z.string().min(1).optional(),
  PAYMENT_CURRENCY_VERSION: z.string().min(1).optional(),
  PAYMENT_RECIPIENT: Hex20.optional(),
  PAYMENT_CHALLENGE_TTL_SECONDS: env.int(300, 10),
  PAYMENT_RPC_URL: z.url().optional(),
  PAYMENT_SETTLER_PRIVATE_KEY: z.string().optional(),
});
/** The parsed `PAYMENT_*` variables. */
export type PaymentEnv = z.output<typeof PaymentEnvSchema>;

/** The realm when neither `PAYMENT_REALM` nor a deployment domain is given: the default `SIGNATURE_DOMAIN`'s host. */
export const DEFAULT_PAYMENT_REALM = 'localhost';

/**
 * The default realm of a deployment whose domain is `signatureDomain` (`SIGNATURE_DOMAIN`, an RFC 3986
 * authority such as `memory.example.com` or `localhost:8080`): its host name without the port, since an MPP
 * client compares the realm with the host name of the URL it calls (docs/billing.md, "The realm").
 */
export function paymentRealmOf(signatureDomain: string): string {
  return signatureDomain.replace(/:\d+$/, '');
}

/**
 * Builds {@link PaymentOptions} from parsed variables. `PAYMENT_REALM` defaults to `opts.defaultRealm`
 * (the launchers pass {@link paymentRealmOf} the deployment's `SIGNATURE_DOMAIN`), else {@link DEFAULT_PAYMENT_REALM}.
 * Without PAYMENT_SECRET_KEY the secret is read from
 * (or generated into) `secretFile` when given (standalone: `<DATA_DIR>/payment-secret`, so challenges
 * survive a restart), else generated for this process only (one gateway replica).
 * @throws Error naming the variable when a secret is malformed or a non-default chain lacks its token metadata.
 */
export function paymentOptionsFromEnv(e: PaymentEnv, opts: { secretFile?: string; defaultRealm?: string } = {}): PaymentOptions {
  if (e.PAYMENT_SECRET_KEY !== undefined && Buffer.byteLength(e.PAYMENT_SECRET_KEY) < 32) {
    throw new Error('Invalid configuration: PAYMENT_SECRET_KEY must be at least 32 bytes (e.g. openssl rand -base64 32)');
  }
  if (e.PAYMENT_SETTLER_PRIVATE_KEY !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(e.PAYMENT_SETTLER_PRIVATE_KEY)) {
    throw new Error('Invalid configuration: PAYMENT_SETTLER_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key');
  }
  const known = KNOWN_USDC[e.PAYMENT_CHAIN_ID];
  const currency = (e.PAYMENT_CURRENCY ?? known?.address) as `0x${string}` | undefined;
  const decimals = e.PAYMENT_CURRENCY_DECIMALS ?? (e.PAYMENT_CURRENCY ? undefined : known?.decimals);
  const tokenName = e.PAYMENT_CURRENCY_NAME ?? (e.PAYMENT_CURRENCY ? undefined : known?.name);
  const tokenVersion = e.PAYMENT_CURRENCY_VERSION ?? (e.PAYMENT_CURRENCY ? undefined : known?.version);
  const missing = [
    ['PAYMENT_CURRENCY', currency],
    ['PAYMENT_CURRENCY_DECIMALS', decimals],
    ['PAYMENT_CURRENCY_NAME', tokenName],
    ['PAYMENT_CURRENCY_VERSION', tokenVersion],
  ].filter(([, v]) => v === undefined);
  if (missing.length > 0) throw new Error(`Invalid configuration: PAYMENT_CHAIN_ID=${e.PAYMENT_CHAIN_ID} needs ${missing.map(([k]) => k).join(', ')}`);
  const settlerKey = e.PAYMENT_SETTLER_PRIVATE_KEY as `0x${string}` | undefined;
  const recipient = (e.PAYMENT_RECIPIENT as `0x${string}` | undefined) ?? ZERO_ADDRESS;
  return {
    secretKey: e.PAYMENT_SECRET_KEY ?? loadOrCreateSecret(opts.secretFile),
    realm: e.PAYMENT_REALM ?? opts.defaultRealm ?? DEFAULT_PAYMENT_REALM,
    chainId: e.PAYMENT_CHAIN_ID,
    currency: currency!,
    decimals: decimals!,
    tokenName: tokenName!,
    tokenVersion: tokenVersion!,
    recipient,
    challengeTtlSeconds: e.PAYMENT_CHALLENGE_TTL_SECONDS,
    rpcUrl: e.PAYMENT_RPC_URL,
    settlerPrivateKey: settlerKey,
  };
}

/**
 * Reads a payment challenge secret (base64, at least 32 bytes) from `file`, or writes a new random one
 * there (mode 0600) when the file is missing or too short; without a file, a random one for this process.
 */
export function loadOrCreateSecret(file: string | undefined): string {
  if (!file) return randomBytes(32).toString('base64');
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    if (Buffer.byteLength(secret) >= 32) return secret;
  }
  const secret = randomBytes(32).toString('base64');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Options with every default, for composition roots that do not parse payment variables (one process, no settlement). */
export function defaultPaymentOptions(): PaymentOptions {
  return paymentOptionsFromEnv(PaymentEnvSchema.parse({}));
}
