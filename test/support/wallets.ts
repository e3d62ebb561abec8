import type { LocalAccount } from 'viem/accounts';
import { signatureMessage, type SignatureRealm } from '@agent-memory/gateway';
import type { ApiClient } from '@agent-memory/testing';

/** `SIGNATURE_DOMAIN` of the test cluster unless a suite sets its own (docs/authentication.md). */
export const TEST_SIGNATURE_DOMAIN = 'memory.test';

/** A `walletAddress` with its `walletProof`, to spread into a create-agent body. */
export interface WalletBinding {
  walletAddress: string;
  walletProof: { message: string; signature: string };
}

/**
 * Proves `account`'s wallet for a create-agent call (docs/authentication.md, "Binding your own
 * wallet"): asks the server for a challenge, checks, as EIP-4361 tells a signer to, that it names the
 * expected domain (when `realm` is given) and this wallet, and signs it.
 */
export async function walletProof(api: ApiClient, account: LocalAccount, realm?: SignatureRealm): Promise<WalletBinding> {
  const { message } = (await api.request<{ message: string }>('POST', '/api/v1/agents/wallet-challenge', { body: { walletAddress: account.address } })).data;
  const [first, address] = message.split('\n');
  if (realm && first !== `${realm.domain} wants you to sign in with your Ethereum account:`) throw new Error(`wallet challenge for another domain: ${first}`);
  if (address !== account.address) throw new Error(`wallet challenge for another wallet: ${address}`);
  return { walletAddress: account.address, walletProof: { message, signature: await account.signMessage({ message }) } };
}

/** Creates an agent with `account`'s wallet, proven ({@link walletProof}); `body` as for `POST /api/v1/agents`. */
export async function createAgentWithWallet(api: ApiClient, account: LocalAccount, body: Record<string, unknown>): Promise<{ agentId: string; agentKey: string; recordId: string; walletAddress: string }> {
  return api.createAgent({ ...body, ...(await walletProof(api, account)) });
}

/**
 * `Authorization: Signature <timestamp>:<walletAddress>:<signature>` for one request on the deployment
 * `realm` (docs/authentication.md, "The signed message"). `body`: the exact bytes sent ('' for none).
 */
export async function signatureAuthorization(
  account: LocalAccount,
  realm: SignatureRealm,
  request: { method: string; pathWithQuery: string; timestamp: number; body?: string | Buffer },
): Promise<string> {
  const message = signatureMessage({ ...realm, method: request.method, pathWithQuery: request.pathWithQuery, timestamp: request.timestamp, body: request.body ?? '' });
  return `Signature ${request.timestamp}:${account.address}:${await account.signMessage({ message })}`;
}
