import { createHash } from 'node:crypto';
import { getAddress, isAddress, verifyMessage } from 'viem';

/**
 * The deployment a wallet signature is valid on (docs/authentication.md, "The signed message"): the
 * configured `SIGNATURE_DOMAIN` (an RFC 3986 authority such as `memory.example.com`, as EIP-4361's
 * `domain`; never the request's `Host` header, which the sender chooses) and the EIP-155 chain id of
 * the deployment's payments (`PAYMENT_CHAIN_ID`). Both are in every signed message, so a signature
 * captured on one deployment is refused by any other.
 */
export interface SignatureRealm {
  domain: string;
  chainId: number;
}

/**
 * The message a wallet signs to authenticate one request (`Authorization: Signature
 * <timestamp>:<walletAddress>:<signature>`; documented byte for byte in docs/authentication.md). It
 * binds the deployment (domain and chain id), method, path with query, timestamp (Unix seconds) and the
 * SHA-256 of the raw body, so a signature cannot be moved to another request or another deployment.
 * Signed with EIP-191 `personal_sign`.
 */
export function signatureMessage(input: SignatureRealm & { method: string; pathWithQuery: string; timestamp: number; body: Buffer | string }): string {
  const bodyHash = createHash('sha256').update(input.body).digest('hex');
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

/** A parsed `Signature` authorization header. */
export interface SignatureHeader {
  timestamp: number;
  walletAddress: `0x${string}`;
  signature: `0x${string}`;
}

/** Parses `Signature <timestamp>:<walletAddress>:<signature>`; null when malformed. */
export function parseSignatureHeader(header: string | undefined): SignatureHeader | null {
  const m = /^Signature\s+(\d{1,12}):(0x[0-9a-fA-F]{40}):(0x[0-9a-fA-F]{130})$/.exec((header ?? '').trim());
  if (!m || !isAddress(m[2])) return null;
  return { timestamp: Number(m[1]), walletAddress: getAddress(m[2]), signature: m[3] as `0x${string}` };
}

/** Order of the secp256k1 group (SEC 2, §2.4.1); a canonical `s` is at most half of it (EIP-2). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const SECP256K1_HALF_N = SECP256K1_N / 2n;

/**
 * True when a 65-byte `r || s || v` signature (`0x` + 130 hex digits) is in its one canonical encoding:
 * `v` is `1b` or `1c` (27/28, what `personal_sign` and viem's `signMessage` produce) and `s <= n/2`
 * (EIP-2's low-s rule). viem's `verifyMessage` also accepts `v` as `00`/`01` and the high-s twin
 * `(r, n - s)`, so without this check one signature has four accepted spellings (docs/authentication.md,
 * "Wallet signatures": non-canonical encodings are refused).
 */
export function isCanonicalSignature(signature: string): boolean {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return false;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = signature.slice(130, 132).toLowerCase();
  return (v === '1b' || v === '1c') && s > 0n && s <= SECP256K1_HALF_N;
}

/**
 * True when `signature` is `walletAddress`'s EIP-191 signature of `message`, in its canonical encoding
 * ({@link isCanonicalSignature}); false for anything else (never throws).
 */
export async function verifyWalletSignature(walletAddress: `0x${string}`, message: string, signature: `0x${string}`): Promise<boolean> {
  if (!isCanonicalSignature(signature)) return false;
  try {
    return await verifyMessage({ address: walletAddress, message, signature });
  } catch {
    return false;
  }
}
