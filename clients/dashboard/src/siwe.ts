import type { AgentMemory, SiweSession } from '@agent-memory/client';
import { errorMessage } from './api';

/**
 * Sign in with Ethereum (docs/authentication.md): the browser wallet (EIP-1193 `window.ethereum`) picks
 * an account (`eth_requestAccounts`), the API prepares the EIP-4361 message for it (`humans.siweNonce`),
 * the wallet signs it unchanged (`personal_sign`, EIP-191) and the API verifies it (`humans.siweVerify`),
 * answering a session like a passkey sign-in plus the wallet's agent, claimed.
 */

/** The part of an EIP-1193 provider used here. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** The page's injected wallet, if any (`window.ethereum`). */
export function ethereumProvider(): Eip1193Provider | undefined {
  const candidate = (window as unknown as { ethereum?: unknown }).ethereum;
  if (candidate && typeof (candidate as Eip1193Provider).request === 'function') return candidate as Eip1193Provider;
  return undefined;
}

/** Runs the whole flow; throws the wallet's error (EIP-1193 `code`) or the API's. */
export async function signInWithEthereum(client: AgentMemory, provider: Eip1193Provider): Promise<SiweSession> {
  const accounts = await provider.request({ method: 'eth_requestAccounts' });
  const address = Array.isArray(accounts) && typeof accounts[0] === 'string' ? accounts[0] : undefined;
  if (!address) throw new Error('The wallet shared no account.');
  const { message } = await client.humans.siweNonce(address);
  const signature = await provider.request({ method: 'personal_sign', params: [utf8Hex(message), address] });
  if (typeof signature !== 'string') throw new Error('The wallet answered no signature.');
  return client.humans.siweVerify(message, signature);
}

/** A message for a failed Sign in with Ethereum: the wallet's refusal (EIP-1193 code 4001) or the API's message. */
export function siweErrorMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 4001) return 'The wallet request was rejected. Try again and approve the signature.';
  if (code === -32002) return 'The wallet already has a request waiting: open it and answer it.';
  return errorMessage(error);
}

/** `text` as 0x-prefixed hex of its UTF-8 bytes, the form `personal_sign` expects. */
function utf8Hex(text: string): string {
  let hex = '0x';
  for (const byte of new TextEncoder().encode(text)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
