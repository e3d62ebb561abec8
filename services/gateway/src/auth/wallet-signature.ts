import { createHash } from 'node:crypto';
import { getAddress, isAddress, verifyMessage } from 'viem';

/**
 * The message a wallet signs to authenticate one request (`Authorization: Signature
 * <timestamp>:<walletAddress>:<signature>`, DESIGN.md §4; documented in docs/authentication.md). It
 * binds method, path with query, timestamp (Unix seconds) and the SHA-256 of the raw body, so a
 * signature cannot be moved to another request. Signed with EIP-191 `personal_sign`.
 */
export function signatureMessage(input: { method: string; pathWithQuery: string; timestamp: number; body: Buffer | string }): string {
  const bodyHash = createHash('sha256').update(input.body).digest('hex');
  return [
    'agent-memory request signature v1',
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
  if (!m || !isAddress(m[2] as string)) return null;
  return { timestamp: Number(m[1]), walletAddress: getAddress(m[2] as string), signature: m[3] as `0x${string}` };
}

/** True when `signature` is `walletAddress`'s EIP-191 signature of `message`. */
export async function verifyWalletSignature(walletAddress: `0x${string}`, message: string, signature: `0x${string}`): Promise<boolean> {
  try {
    return await verifyMessage({ address: walletAddress, message, signature });
  } catch {
    return false;
  }
}
