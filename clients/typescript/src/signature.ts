/**
 * Wallet signatures of `local` agents (docs/authentication.md, "Wallet signatures (local mode)"):
 * `Authorization: Signature <timestamp>:<walletAddress>:<signature>`, an EIP-191 `personal_sign` of a
 * seven-line message binding the deployment (domain and chain id), method, path with query, timestamp
 * and the SHA-256 of the body bytes. Uses `globalThis.crypto` (Node 20+, browsers); viem is loaded
 * lazily when the wallet is given as a private key, and for the body hash where WebCrypto is absent.
 */

/** `0x`-prefixed hex. */
export type Hex = `0x${string}`;

/**
 * A wallet that can sign: a viem `LocalAccount` (from `privateKeyToAccount`, or any account with these
 * methods). `signTypedData` is needed only to pay 402 challenges (EIP-3009 authorizations).
 */
export interface WalletAccount {
  address: Hex;
  signMessage(args: { message: string }): Promise<Hex>;
  signTypedData?: (args: never) => Promise<Hex>;
  type?: string;
}

/** The client's wallet: a private key (`0x` + 64 hex digits) or an account. */
export type WalletOption = Hex | WalletAccount;

/** Turns a {@link WalletOption} into an account (imports viem/accounts for a private key). */
export async function resolveWallet(wallet: WalletOption): Promise<WalletAccount> {
  if (typeof wallet !== 'string') return wallet;
  if (!/^0x[0-9a-fA-F]{64}$/.test(wallet)) throw new TypeError('wallet: expected a private key (0x + 64 hex digits) or an account');
  const { privateKeyToAccount } = await import('viem/accounts');
  return privateKeyToAccount(wallet);
}

/**
 * Lower-case hex SHA-256 of `bytes`: WebCrypto's `crypto.subtle`, which browsers offer only in secure
 * contexts (HTTPS, localhost); without it (a page on plain http) viem's `sha256` (imported then).
 */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const subtle = globalThis.crypto?.subtle as typeof globalThis.crypto.subtle | undefined;
  if (!subtle) {
    const { sha256 } = await import('viem/utils');
    return sha256(bytes, 'hex').slice(2);
  }
  const digest = await subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Where a signature is valid: the deployment's `SIGNATURE_DOMAIN` and payment chain id. */
export interface SignatureRealm {
  domain: string;
  chainId: number;
}

/**
 * The exact message of docs/authentication.md, "The signed message" (the gateway's `signatureMessage`):
 * seven lines joined by `\n`, no trailing newline; `body` the exact bytes sent ('' when none).
 */
export async function signatureMessage(input: SignatureRealm & { method: string; pathWithQuery: string; timestamp: number; body: string }): Promise<string> {
  const bodyHash = await sha256Hex(new TextEncoder().encode(input.body));
  return [
    'agent-memory request signature v2',
    `domain: ${input.domain}`,
    `chain-id: ${input.chainId}`,
    `method: ${input.method.toUpperCase()}`,
    `path: ${input.pathWithQuery}`,
    `timestamp: ${input.timestamp}`,
    `body-sha256: ${bodyHash}`,
  ].join('\n');
}

/**
 * Signs requests for one wallet. Each signed message is accepted once by the server, and signatures
 * are deterministic, so two identical requests in the same second (a retry of a GET, say) would be
 * refused as a replay: the signer remembers the messages it signed recently and moves a repeat to the
 * next unused second (the server accepts ±300 s).
 */
export class RequestSigner {
  /** Messages signed, keyed by the message, for the seconds not yet past. */
  private readonly recent = new Map<string, number>();

  constructor(
    private readonly account: WalletAccount,
    private readonly realm: () => Promise<SignatureRealm>,
  ) {}

  get address(): Hex {
    return this.account.address;
  }

  /** The `Authorization` header value for one request (`body`: the exact body string sent, '' for none). */
  async authorization(request: { method: string; pathWithQuery: string; body: string }, nowMs = Date.now()): Promise<string> {
    const now = Math.floor(nowMs / 1000);
    for (const [key, ts] of this.recent) if (ts < now) this.recent.delete(key);
    const realm = await this.realm();
    let timestamp = now;
    let message = await signatureMessage({ ...realm, ...request, timestamp });
    while (this.recent.has(message)) {
      timestamp += 1;
      message = await signatureMessage({ ...realm, ...request, timestamp });
    }
    this.recent.set(message, timestamp);
    return `Signature ${timestamp}:${this.account.address}:${await this.account.signMessage({ message })}`;
  }
}
