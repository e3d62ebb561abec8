import { Inject, Injectable } from '@nestjs/common';
import { newId, UnauthorizedError } from '@agent-memory/shared';
import { constantTimeEqualHex, issueSessionToken, parseSessionToken } from '../agent-key';
import { AGENT_KEY_PREFIX, AGENTS_PRISMA } from '../agent-keys.service';
import { CLOCK, type Clock } from '../clock';
import type { AgentsPrismaClient } from '../persistence/prisma';
import { PASSKEY_OPTIONS, type PasskeyOptions } from './passkey.options';

/**
 * Human session credentials (`Authorization: Passkey <token>`, docs/authentication.md): a random
 * 256-bit token issued after a verified passkey ceremony, stored only as its SHA-256, valid for
 * `sessionTtlSeconds` from issue (absolute, not sliding) until it expires or the human signs out.
 */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(AGENT_KEY_PREFIX) private readonly prefix: string,
    @Inject(PASSKEY_OPTIONS) private readonly options: PasskeyOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Issues a session for `humanId`; the token is returned once. Sessions that ended long ago are swept. */
  async issue(humanId: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock();
    const { token, hash } = issueSessionToken(this.prefix);
    const expiresAt = new Date(now.getTime() + this.options.sessionTtlSeconds * 1000);
    await this.prisma.humanSession.deleteMany({ where: { humanId, expiresAt: { lt: now } } });
    await this.prisma.humanSession.create({ data: { id: newId('humanSession'), humanId, tokenHash: hash, createdAt: now, expiresAt } });
    return { token, expiresAt };
  }

  /** The human of a presented token; UNAUTHORIZED when malformed, unknown, expired or signed out. */
  async authenticate(token: string): Promise<{ humanId: string; sessionId: string; expiresAt: string }> {
    const parsed = parseSessionToken(token);
    if (!parsed) throw new UnauthorizedError('Invalid passkey session credential');
    const row = await this.prisma.humanSession.findUnique({ where: { tokenHash: parsed.hash } });
    if (!row || !constantTimeEqualHex(row.tokenHash, parsed.hash)) throw new UnauthorizedError('Invalid passkey session credential');
    if (row.endedAt) throw new UnauthorizedError('This session was signed out');
    if (row.expiresAt.getTime() <= this.clock().getTime()) throw new UnauthorizedError('This session expired: sign in again');
    return { humanId: row.humanId, sessionId: row.id, expiresAt: row.expiresAt.toISOString() };
  }

  /** Signs out: the token stops working at once. UNAUTHORIZED if it is not a valid session. */
  async end(token: string): Promise<{ loggedOut: true }> {
    const session = await this.authenticate(token);
    await this.prisma.humanSession.update({ where: { id: session.sessionId }, data: { endedAt: this.clock() } });
    return { loggedOut: true };
  }
}
