/** A stored passkey (WebAuthn credential) of a human: its public key and signature counter, no secret. */
export interface PasskeyRecord {
  id: string;
  humanId: string;
  publicKey: Uint8Array;
  counter: bigint;
  transports: string[];
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** A human account with its passkeys (oldest first); `webauthnUserId` is the WebAuthn user handle (base64url). */
export interface HumanRecord {
  id: string;
  name: string;
  webauthnUserId: string;
  createdAt: Date;
  passkeys: PasskeyRecord[];
}

/** Which ceremony a WebAuthn challenge was issued for. */
export type CeremonyPurpose = 'registration' | 'authentication';

/**
 * A WebAuthn challenge this service issued, single use until `expiresAt`. A registration's names the account
 * it adds a passkey to (`humanId`) or the name and user handle of the account it creates.
 */
export interface WebauthnChallengeRecord {
  challenge: string;
  purpose: string;
  humanId: string | null;
  humanName: string | null;
  webauthnUserId: string | null;
  expiresAt: Date;
}

/** How a session was opened (docs/authentication.md). */
export type SessionMethod = 'passkey' | 'siwe';

/**
 * A human session: only the SHA-256 hex of its token is stored; `method` says how it was opened, and
 * `walletAddress` (EIP-55) the wallet a `siwe` session signed in with: it reaches only that wallet's
 * agents (null for a `passkey` session; docs/authentication.md, "Sign in with Ethereum (humans)").
 */
export interface SessionRecord {
  id: string;
  humanId: string;
  tokenHash: string;
  method: SessionMethod;
  walletAddress: string | null;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

/**
 * Port of the human accounts store (in the `agents` schema: humans, passkeys, WebAuthn challenges,
 * sessions). Adapter: `prisma-humans.repository.ts`.
 */
export abstract class HumansRepository {
  /** The account with its passkeys; null when unknown. */
  abstract findHuman(humanId: string): Promise<HumanRecord | null>;
  /**
   * Stores a verified passkey, creating its account first when `newHuman` is given (one transaction);
   * `already-registered` when a passkey with this id exists. With `onlyFirst`, under the human's row lock,
   * `not-first` (nothing stored) when the account already has a passkey (a SIWE session adds only the first).
   * With `onlyWallet` (EIP-55), under the same lock, `other-wallets` (nothing stored) when the account owns
   * an agent whose wallet is another (a SIWE session adds the first passkey only while every agent of the
   * account has its wallet).
   */
  abstract addPasskey(
    passkey: Omit<PasskeyRecord, 'lastUsedAt'>,
    newHuman?: Omit<HumanRecord, 'passkeys'>,
    opts?: { onlyFirst?: boolean; onlyWallet?: string },
  ): Promise<'added' | 'already-registered' | 'not-first' | 'other-wallets'>;
  /** The wallets (EIP-55, distinct, sorted) of the agents the human claimed; empty when none. */
  abstract claimedWallets(humanId: string): Promise<string[]>;
  /** The passkey with this credential id and its human's user handle; null when unknown. */
  abstract findPasskey(credentialId: string): Promise<(PasskeyRecord & { webauthnUserId: string }) | null>;
  /**
   * Deletes the human's passkey `credentialId` unless it is the human's last one, in one transaction
   * under the human's row lock (two concurrent deletions of the last two passkeys: one of them is `last`).
   * `not-found` when the human has no passkey with this id (unknown, or another human's). When deleted,
   * every other open session of the human (all but `keepSessionId`) ends at `now`, in the same transaction.
   */
  abstract deletePasskey(humanId: string, credentialId: string, keepSessionId: string, now: Date): Promise<'deleted' | 'not-found' | 'last'>;
  /** Stores the signature counter of a sign-in and when it happened. */
  abstract recordPasskeyUse(credentialId: string, counter: bigint, usedAt: Date): Promise<void>;

  /** Stores a new challenge, purging those expired before `now`. */
  abstract addChallenge(challenge: WebauthnChallengeRecord, now: Date): Promise<void>;
  /** Takes the challenge out of the store (single use); null when unknown or already used. */
  abstract takeChallenge(challenge: string): Promise<WebauthnChallengeRecord | null>;

  /** Stores a new session, purging the human's sessions that expired before `now`. */
  abstract addSession(session: Omit<SessionRecord, 'endedAt'>, now: Date): Promise<void>;
  /** The session with this id; null when unknown. */
  abstract findSession(sessionId: string): Promise<SessionRecord | null>;
  /** The session whose token has this SHA-256 hex; null when unknown. */
  abstract findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | null>;
  /** Marks the session signed out at `endedAt`. */
  abstract endSession(sessionId: string, endedAt: Date): Promise<void>;
}
