import { Inject, Injectable } from '@nestjs/common';
import { newId, UnauthorizedError } from '@agent-memory/shared';
import { AGENT_KEY_PREFIX, constantTimeEqualHex, issueSessionToken, parseSessionToken } from '../../agent-key';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../../clock';
import { HumansRepository, type SessionMethod } from '../../persistence/humans.repository';
import type { AuthenticateSessionMessage, EndSessionMessage } from '../humans.messages';
import { PASSKEY_OPTIONS, type PasskeyOptions } from '../passkey.options';

/**
 * How far a session reaches (docs/authentication.md, "Sign in with Ethereum (humans)"): a `passkey`
 * session the whole account; a `siwe` session only the agents whose wallet is `walletAddress` (EIP-55),
 * the wallet that signed it in (null: a session that recorded none reaches no agent).
 */
export type SessionScope = { method: 'passkey'; walletAddress: null } | { method: 'siwe'; walletAddress: string | null };

/** The one line a SIWE session gets on an agent of the account whose wallet is not the session's. */
export const SIWE_OTHER_AGENT = 'This session signed in with another agent\'s wallet; sign in with a passkey to manage this agent';

/**
 * Human session credentials (`Authorization: Passkey <token>`, docs/authentication.md): a random
 * 256-bit token issued after a verified passkey ceremony, stored only as its SHA-256, valid for
 * `sessionTtlSeconds` from issue (absolute, not sliding) until it expires or the human signs out. Each
 * session records how it was opened (`passkey` or `siwe`) and, for `siwe`, the wallet that signed it in
 * ({@link SessionScope}): a SIWE session reaches only that wallet's agents ({@link ClaimsUseCases}) and
 * may not manage the passkeys of an account that has some ({@link PasskeysUseCases}).
 */
@Injectable()
export class SessionsUseCases {
  constructor(
    private readonly humans: HumansRepository,
    @Inject(AGENT_KEY_PREFIX) private readonly prefix: string,
    @Inject(PASSKEY_OPTIONS) private readonly options: PasskeyOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Issues a session for `humanId` after a verified passkey ceremony or Sign in with Ethereum (`method`);
   * `walletAddress` (EIP-55): the wallet a `siwe` session signed in with (ignored for `passkey`). The
   * token is returned once. The human's expired sessions are swept.
   */
  async issue(humanId: string, method: SessionMethod, walletAddress?: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock();
    const { token, hash } = issueSessionToken(this.prefix);
    const expiresAt = secondsAfter(now, this.options.sessionTtlSeconds);
    const wallet = method === 'siwe' ? (walletAddress ?? null) : null;
    await this.humans.addSession({ id: newId('humanSession'), humanId, tokenHash: hash, method, walletAddress: wallet, createdAt: now, expiresAt }, now);
    return { token, expiresAt };
  }

  /**
   * The human of a presented token, how its session was opened, its wallet (`siwe`; else null) and expiry;
   * UNAUTHORIZED when malformed, unknown, expired or signed out.
   */
  async authenticate({ token }: AuthenticateSessionMessage): Promise<{ humanId: string; sessionId: string; method: SessionMethod; walletAddress: string | null; expiresAt: string }> {
    const parsed = parseSessionToken(token);
    if (!parsed) throw new UnauthorizedError('Invalid passkey session credential');
    const row = await this.humans.findSessionByTokenHash(parsed.hash);
    if (!row || !constantTimeEqualHex(row.tokenHash, parsed.hash)) throw new UnauthorizedError('Invalid passkey session credential');
    if (row.endedAt) throw new UnauthorizedError('This session was signed out');
    if (hasExpired(row.expiresAt, this.clock())) throw new UnauthorizedError('This session expired: sign in again');
    return { humanId: row.humanId, sessionId: row.id, method: row.method, walletAddress: row.method === 'siwe' ? row.walletAddress : null, expiresAt: row.expiresAt.toISOString() };
  }

  /**
   * How far `humanId`'s open session `sessionId` reaches ({@link SessionScope}; the gateway authenticated
   * it just before); UNAUTHORIZED when it is not an open session of that human.
   */
  async scopeOf(humanId: string, sessionId: string | undefined): Promise<SessionScope> {
    const row = sessionId === undefined ? null : await this.humans.findSession(sessionId);
    if (!row || row.humanId !== humanId || row.endedAt || hasExpired(row.expiresAt, this.clock())) throw new UnauthorizedError('Invalid passkey session credential');
    return row.method === 'siwe' ? { method: 'siwe', walletAddress: row.walletAddress } : { method: 'passkey', walletAddress: null };
  }

  /** Signs out: the token stops working at once. UNAUTHORIZED if it is not a valid session. */
  async end(m: EndSessionMessage): Promise<{ loggedOut: true }> {
    const session = await this.authenticate(m);
    await this.humans.endSession(session.sessionId, this.clock());
    return { loggedOut: true };
  }
}

/** True when a session of `scope` may reach an agent with `walletAddress` (a passkey session: any). */
export function scopeReaches(scope: SessionScope, walletAddress: string): boolean {
  return scope.method === 'passkey' || (scope.walletAddress !== null && scope.walletAddress === walletAddress);
}
