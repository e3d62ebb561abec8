import type { Transport } from '../transport';
import type { Agent, AgentKeyList, CallOptions, RevokedKey, RotatedKey, RotateKeyInput, WalletChallenge } from '../types';

/** The calling agent (docs/api.md, "Agents and keys"). Creating one: {@link AgentMemory.createAgent}. */
export class AgentsApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /agents`: the calling agent `{ id, name, mode, tags, category, walletAddress, recordId, keyEnvironment, createdAt }`. */
  get(options?: CallOptions): Promise<Agent> {
    return this.transport.request({ method: 'GET', path: '/agents', auth: 'agent', idempotent: true }, options);
  }

  /**
   * `POST /agents/wallet-challenge` (no auth): the EIP-4361 message a wallet signs to be bound to a new
   * agent (docs/authentication.md, "Binding your own wallet"); valid 5 minutes, single use.
   */
  walletChallenge(walletAddress: string, options?: CallOptions): Promise<WalletChallenge> {
    return this.transport.request({ method: 'POST', path: '/agents/wallet-challenge', body: { walletAddress }, auth: 'none' }, options);
  }

  /** `DELETE /agents/claim`: drops a human's claim on this agent; `released` is false when no one had claimed it. */
  releaseClaim(options?: CallOptions): Promise<{ released: boolean }> {
    return this.transport.request({ method: 'DELETE', path: '/agents/claim', auth: 'agent' }, options);
  }
}

/** The agent's keys (docs/authentication.md, "Listing, rotating and revoking"). */
export class KeysApi {
  constructor(private readonly transport: Transport) {}

  /** `GET /agents/keys`: every key with its status, never the secret. */
  list(options?: CallOptions): Promise<AgentKeyList> {
    return this.transport.request({ method: 'GET', path: '/agents/keys', auth: 'agent', idempotent: true }, options);
  }

  /**
   * `POST /agents/keys/rotate` `{ graceSeconds? }` (0–604,800): a new key, shown once in `agentKey`; the
   * previous keys work until the grace ends. Not retried after it may have reached the server.
   */
  rotate(input: RotateKeyInput = {}, options?: CallOptions): Promise<RotatedKey> {
    return this.transport.request({ method: 'POST', path: '/agents/keys/rotate', body: input, auth: 'agent' }, options);
  }

  /** `POST /agents/keys/{keyId}/revoke`: the key stops working at once. Not repeated after a lost answer (the key sending it may be the revoked one). */
  revoke(keyId: string, options?: CallOptions): Promise<RevokedKey> {
    return this.transport.request({ method: 'POST', path: `/agents/keys/${encodeURIComponent(keyId)}/revoke`, body: {}, auth: 'agent' }, options);
  }
}
