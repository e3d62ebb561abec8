import { Inject, Injectable } from '@nestjs/common';
import { newId, UnauthorizedError } from '@agent-memory/shared';
import { AGENT_KEY_PREFIX, constantTimeEqualHex, issueSessionToken, parseSessionToken } from '../../agent-key';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../../clock';
import { HumansRepository, type SessionMethod } from '../../persistence/humans.repository';
import type { AuthenticateSessionMessage, EndSessionMessage } from '../humans.messages';
import { PASSKEY_OPTIONS, type PasskeyOptions } from '../passkey.options';

/**
 * Human session credentials (`Authorization: Passkey <token>`, docs/authentication.md): a random
 * 256-bit token issued after a verified passkey ceremony, stored only as its SHA-256, valid for
 * `sessionTtlSeconds` from issue (absolute, not sliding) until it expires or the human signs out. Each
 * session records how it was opened (`passkey` or `siwe`): a SIWE session of an account that has passkeys
 * may not manage them ({@link PasskeysUseCases}).
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
   * the token is returned once. The human's expired sessions are swept.
   */
  async issue(humanId: string, method: SessionMethod): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock();
    const { token, hash } = issueSessionToken(this.prefix);
    const expiresAt = secondsAfter(now, this.options.sessionTtlSeconds);
    await this.humans.addSession({ id: newId('humanSession'), humanId, tokenHash: hash, method, createdAt: now, expiresAt }, now);
    return { token, expiresAt };
  }

  /** The human of a presented token and how its session was opened; UNAUTHORIZED when malformed, unknown, expired or signed out. */
  async authenticate({ token }: AuthenticateSessionMessage): Promise<{ humanId: string; sessionId: string; method: SessionMethod; expiresAt: string }> {
    const parsed = parseSessionToken(token);
    if (!parsed) throw new UnauthorizedError('Invalid passkey session credential');
    const row = await this.humans.findSessionByTokenHash(parsed.hash);
    if (!row || !constantTimeEqualHex(row.tokenHash, parsed.hash)) throw new UnauthorizedError('Invalid passkey session credential');
    if (row.endedAt) throw new UnauthorizedError('This session was signed out');
    if (hasExpired(row.expiresAt, this.clock())) throw new UnauthorizedError('This session expired: sign in again');
    return { humanId: row.humanId, sessionId: row.id, method: row.method, expiresAt: row.expiresAt.toISOString() };
  }

  /**
   * How `humanId`'s open session `sessionId` was opened (the gateway authenticated it just before);
   * UNAUTHORIZED when it is not an open session of that human.
   */
  async methodOf(humanId: string, sessionId: string | undefined): Promise<SessionMethod> {
    const row = sessionId === undefined ? null : await this.humans.findSession(sessionId);
    if (!row || row.humanId !== humanId || row.endedAt || hasExpired(row.expiresAt, this.clock())) throw new UnauthorizedError('Invalid passkey session credential');
    return row.method;
  }

  /** Signs out: the token stops working at once. UNAUTHORIZED if it is not a valid session. */
  async end(m: EndSessionMessage): Promise<{ loggedOut: true }> {
    const session = await this.authenticate(m);
    await this.humans.endSession(session.sessionId, this.clock());
    return { loggedOut: true };
  }
}
