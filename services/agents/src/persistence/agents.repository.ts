import type { Agent, KeyEnvironment } from '@agent-memory/shared';

/** A new agent row; `keyEnvironment` is the environment of all its keys. */
export interface NewAgent {
  id: string;
  name: string;
  mode: Agent['mode'];
  tags: string[];
  category: string;
  walletAddress: string;
  recordId: string;
  keyEnvironment: KeyEnvironment;
}

/** A stored agent key: only the SHA-256 hex of the key (`keyHash`) and its first characters. */
export interface AgentKeyRecord {
  id: string;
  agentId: string;
  keyHash: string;
  environment: string;
  displayPrefix: string;
  createdAt: Date;
  /** Set only by a rotation: the end of the key's grace period. */
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A new key of an agent; `createdAt` defaults to the database's now. */
export type NewAgentKey = Pick<AgentKeyRecord, 'id' | 'agentId' | 'keyHash' | 'environment' | 'displayPrefix'> & { createdAt?: Date };

/** A human's claim on an agent (at most one per agent), with the agent. */
export interface ClaimRecord {
  humanId: string;
  createdAt: Date;
  agent: Agent;
}

/** A wallet challenge this service issued: the EIP-4361 message for one wallet, single use until `expiresAt`. */
export interface WalletChallengeRecord {
  nonce: string;
  walletAddress: string;
  message: string;
  expiresAt: Date;
}

/**
 * A Sign in with Ethereum nonce this service issued for one wallet (EIP-55), single use until `expiresAt`;
 * `humanId`: the signed-in human who asked for it, null when nobody was signed in.
 */
export interface SiweNonceRecord {
  nonce: string;
  walletAddress: string;
  humanId: string | null;
  expiresAt: Date;
}

/** A human account created together with its first claim (Sign in with Ethereum: a wallet-only account, no passkey yet). */
export interface NewHuman {
  id: string;
  name: string;
  /** The WebAuthn user handle (base64url) the account's passkeys will carry when it adds some. */
  webauthnUserId: string;
  createdAt: Date;
}

/**
 * Port of the agents store (the `agents` schema: agents, key hashes, claims, wallet challenges, sign-in
 * nonces). Agents
 * come back in their API form. Adapter: `prisma-agents.repository.ts`.
 *
 * Rotations, revocations and claims of one agent run in {@link transaction} behind {@link lockAgent}, so
 * they happen one after another (two concurrent rotations would otherwise both read the same valid keys
 * and both leave their new key without expiry).
 */
export abstract class AgentsRepository {
  /** Runs `work` in one database transaction, against a repository bound to it; commits when it resolves. */
  abstract transaction<T>(work: (tx: AgentsRepository) => Promise<T>): Promise<T>;
  /** Locks the agent's row until the transaction ends (only inside {@link transaction}); false when there is no such agent. */
  abstract lockAgent(agentId: string): Promise<boolean>;

  /** Creates the agent with its first key; `wallet-taken` when another `local` agent has its wallet (unique index). */
  abstract createAgent(agent: NewAgent, firstKey: NewAgentKey): Promise<'created' | 'wallet-taken'>;
  /** The agent in its API form; null when unknown. */
  abstract findAgent(agentId: string): Promise<Agent | null>;
  /** The `local` agent with this wallet (at most one), else the oldest agent with it; null when none. */
  abstract findAgentByWallet(walletAddress: string): Promise<Agent | null>;
  /** True when a `local` agent has this wallet (checksummed address). */
  abstract hasLocalAgentWithWallet(walletAddress: string): Promise<boolean>;

  /** The key with this hash and the mode of its agent; null when unknown. */
  abstract findKeyByHash(keyHash: string): Promise<{ key: AgentKeyRecord; agentMode: Agent['mode'] } | null>;
  /** The agent's key with this id; null when it is not the agent's. */
  abstract findKey(agentId: string, keyId: string): Promise<AgentKeyRecord | null>;
  /** Every key of the agent, newest first. */
  abstract listKeys(agentId: string): Promise<AgentKeyRecord[]>;
  /** The agent's keys that are not revoked and not expired at `now`. */
  abstract validKeys(agentId: string, now: Date): Promise<AgentKeyRecord[]>;
  /** Stores a new key of an agent (only its hash). */
  abstract createKey(key: NewAgentKey): Promise<AgentKeyRecord>;
  /** Sets a key's end of grace or its revocation time; returns the key as it is now. */
  abstract updateKey(keyId: string, change: { expiresAt: Date } | { revokedAt: Date }): Promise<AgentKeyRecord>;

  /** The claim on the agent; null when no human has claimed it. */
  abstract findClaim(agentId: string): Promise<ClaimRecord | null>;
  /**
   * Records `humanId` as the agent's owner (the caller holds the agent's lock and found no claim),
   * creating that human first when `newHuman` is given (its `id` is `humanId`).
   */
  abstract createClaim(agentId: string, humanId: string, createdAt: Date, newHuman?: NewHuman): Promise<ClaimRecord>;
  /** The claims of a human, most recent first. */
  abstract listClaims(humanId: string): Promise<ClaimRecord[]>;
  /**
   * Deletes the claim on the agent (only `humanId`'s when given) and, in the same statement, the link of
   * its human to the agent's wallet (docs/authentication.md, "Sign in with Ethereum (humans)"); returns how
   * many claims were deleted (0 or 1).
   */
  abstract deleteClaim(agentId: string, humanId?: string): Promise<number>;

  /** True when the human account is linked to this wallet (EIP-55): Sign in with Ethereum may sign it in. */
  abstract isWalletLinked(humanId: string, walletAddress: string): Promise<boolean>;
  /** Links the human account to the wallet (idempotent). */
  abstract linkWallet(humanId: string, walletAddress: string, createdAt: Date): Promise<void>;

  /** Stores a new wallet challenge, purging those expired before `now`. */
  abstract addWalletChallenge(challenge: WalletChallengeRecord, now: Date): Promise<void>;
  /** Takes the challenge of this nonce out of the store (single use); null when unknown or already used. */
  abstract takeWalletChallenge(nonce: string): Promise<WalletChallengeRecord | null>;

  /** Stores a new Sign in with Ethereum nonce, purging those expired before `now`. */
  abstract addSiweNonce(nonce: SiweNonceRecord, now: Date): Promise<void>;
  /** Takes the nonce out of the store (single use); null when unknown or already used. */
  abstract takeSiweNonce(nonce: string): Promise<SiweNonceRecord | null>;
}
