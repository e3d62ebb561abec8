import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { ForbiddenError, type Human, type HumanSessionResponse, newId, NotFoundError, UnauthorizedError, ValidationError, type WebAuthnCredentialJson } from '@agent-memory/shared';
import { AGENTS_PRISMA } from '../agent-keys.service';
import { CLOCK, type Clock } from '../clock';
import type { AgentsPrismaClient } from '../persistence/prisma';
import { Prisma, type Human as HumanRow, type PasskeyCredential as PasskeyRow, type WebauthnChallenge as ChallengeRow } from '../persistence/generated/client';
import { PASSKEY_OPTIONS, type PasskeyOptions } from './passkey.options';
import { SessionsService } from './sessions.service';

type Purpose = 'registration' | 'authentication';

/**
 * Passkeys for humans (docs/authentication.md, "Passkeys (humans)") with
 * `@simplewebauthn/server`: registration (a new account, or another passkey for the signed-in one) and
 * sign-in with a discoverable credential. Challenges are kept in the database, single use, for
 * `challengeTtlSeconds`, so any replica can finish a ceremony another one began. A verified ceremony
 * issues a session ({@link SessionsService}). User verification is required. Failures are UNAUTHORIZED
 * without detail beyond one line (the details go to the log).
 */
@Injectable()
export class PasskeysService {
  private readonly logger = new Logger(PasskeysService.name);

  constructor(
    @Inject(AGENTS_PRISMA) private readonly prisma: AgentsPrismaClient,
    @Inject(PASSKEY_OPTIONS) private readonly options: PasskeyOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly sessions: SessionsService,
  ) {}

  /**
   * Options for `navigator.credentials.create()`. With `humanId` (signed in) the passkey is added to
   * that account; otherwise `name` is required and the account is created when the passkey is verified.
   */
  async registrationOptions(input: { humanId?: string; name?: string }) {
    let human: (HumanRow & { passkeys: PasskeyRow[] }) | null = null;
    if (input.humanId) {
      human = await this.prisma.human.findUnique({ where: { id: input.humanId }, include: { passkeys: true } });
      if (!human) throw new UnauthorizedError('Invalid passkey session credential');
    } else if (!input.name) {
      throw new ValidationError('name: required to create an account (or sign in first to add a passkey to yours)');
    }
    const name = human?.name ?? (input.name as string);
    const webauthnUserId = human?.webauthnUserId ?? randomBytes(32).toString('base64url');
    const options = await generateRegistrationOptions({
      rpName: this.options.rpName,
      rpID: this.options.rpId,
      userName: name,
      userDisplayName: name,
      userID: Buffer.from(webauthnUserId, 'base64url'),
      attestationType: 'none',
      timeout: this.options.challengeTtlSeconds * 1000,
      excludeCredentials: (human?.passkeys ?? []).map((p) => ({ id: p.id, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    const expiresAt = await this.storeChallenge(options.challenge, 'registration', { humanId: human?.id ?? null, humanName: human ? null : name, webauthnUserId });
    return { options, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Verifies a registration, stores the passkey (creating the account if new) and signs the human in.
   * `session` is the signed-in human finishing the ceremony (`Authorization: Passkey`, resolved by the
   * gateway). A ceremony that adds a passkey to an account is bound to that account: it finishes only in
   * one of its sessions (none: UNAUTHORIZED; another human's: FORBIDDEN), so that holding the challenge
   * alone cannot add an attacker's authenticator (docs/authentication.md, "Passkeys"). The challenge is
   * consumed either way. A new account's ceremony needs no session.
   */
  async registrationVerify(response: WebAuthnCredentialJson, session?: { humanId: string }): Promise<HumanSessionResponse> {
    const challenge = await this.consumeChallenge(response, 'registration');
    if (challenge.humanId !== null) {
      if (!session) throw new UnauthorizedError('Adding a passkey to an account needs that account’s session: send the Authorization: Passkey header that started the ceremony');
      if (session.humanId !== challenge.humanId) throw new ForbiddenError('This passkey ceremony was started by another account');
    }
    let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verification = await verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.options.origins,
        expectedRPID: this.options.rpId,
        requireUserVerification: true,
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Passkey registration refused');
      throw new UnauthorizedError('The passkey registration could not be verified');
    }
    if (!verification.verified) throw new UnauthorizedError('The passkey registration could not be verified');
    const info = verification.registrationInfo;
    const humanId = await this.prisma
      .$transaction(async (tx) => {
        let id = challenge.humanId;
        if (!id) {
          id = newId('human');
          await tx.human.create({ data: { id, name: challenge.humanName ?? 'human', webauthnUserId: challenge.webauthnUserId as string, createdAt: this.clock() } });
        }
        await tx.passkeyCredential.create({
          data: {
            id: info.credential.id,
            humanId: id,
            publicKey: info.credential.publicKey,
            counter: BigInt(info.credential.counter),
            transports: info.credential.transports ?? [],
            deviceType: info.credentialDeviceType,
            backedUp: info.credentialBackedUp,
            createdAt: this.clock(),
          },
        });
        return id;
      })
      .catch((err: unknown) => {
        if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002') throw new ValidationError('response: this passkey is already registered');
        throw err;
      });
    return this.signIn(humanId);
  }

  /** Options for `navigator.credentials.get()`: any discoverable passkey of this relying party. */
  async authenticationOptions() {
    const options = await generateAuthenticationOptions({
      rpID: this.options.rpId,
      userVerification: 'required',
      timeout: this.options.challengeTtlSeconds * 1000,
    });
    const expiresAt = await this.storeChallenge(options.challenge, 'authentication', { humanId: null, humanName: null, webauthnUserId: null });
    return { options, expiresAt: expiresAt.toISOString() };
  }

  /** Verifies a sign-in assertion (signature, counter, user handle) and issues a session. */
  async authenticationVerify(response: WebAuthnCredentialJson): Promise<HumanSessionResponse> {
    const challenge = await this.consumeChallenge(response, 'authentication');
    const passkey = await this.prisma.passkeyCredential.findUnique({ where: { id: response.id }, include: { human: true } });
    if (!passkey) throw new UnauthorizedError('Unknown passkey');
    const userHandle = (response.response as { userHandle?: unknown }).userHandle;
    if (typeof userHandle === 'string' && userHandle !== passkey.human.webauthnUserId) throw new UnauthorizedError('Unknown passkey');
    let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verification = await verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.options.origins,
        expectedRPID: this.options.rpId,
        credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: Number(passkey.counter), transports: passkey.transports as never },
        requireUserVerification: true,
      });
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Passkey sign-in refused');
      throw new UnauthorizedError('The passkey sign-in could not be verified');
    }
    if (!verification.verified) throw new UnauthorizedError('The passkey sign-in could not be verified');
    await this.prisma.passkeyCredential.update({
      where: { id: passkey.id },
      data: { counter: BigInt(verification.authenticationInfo.newCounter), lastUsedAt: this.clock() },
    });
    return this.signIn(passkey.humanId);
  }

  /** A human with its passkeys (no key material); NOT_FOUND if unknown. */
  async getHuman(humanId: string): Promise<Human> {
    const row = await this.prisma.human.findUnique({ where: { id: humanId }, include: { passkeys: { orderBy: { createdAt: 'asc' } } } });
    if (!row) throw new NotFoundError('Account not found');
    return {
      id: row.id,
      name: row.name,
      createdAt: row.createdAt.toISOString(),
      passkeys: row.passkeys.map((p) => ({
        id: p.id,
        deviceType: p.deviceType,
        backedUp: p.backedUp,
        createdAt: p.createdAt.toISOString(),
        lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
      })),
    };
  }

  private async signIn(humanId: string): Promise<HumanSessionResponse> {
    const session = await this.sessions.issue(humanId);
    return { token: session.token, expiresAt: session.expiresAt.toISOString(), human: await this.getHuman(humanId) };
  }

  private async storeChallenge(challenge: string, purpose: Purpose, data: Pick<ChallengeRow, 'humanId' | 'humanName' | 'webauthnUserId'>): Promise<Date> {
    const now = this.clock();
    const expiresAt = new Date(now.getTime() + this.options.challengeTtlSeconds * 1000);
    await this.prisma.webauthnChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.prisma.webauthnChallenge.create({ data: { challenge, purpose, ...data, expiresAt } });
    return expiresAt;
  }

  /**
   * Takes the challenge named in the credential's clientDataJSON out of the store (single use, even when
   * the ceremony then fails). UNAUTHORIZED if it is unknown, of the other ceremony, or expired.
   */
  private async consumeChallenge(response: WebAuthnCredentialJson, purpose: Purpose): Promise<ChallengeRow> {
    let challenge: unknown;
    try {
      challenge = (JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    } catch {
      challenge = undefined;
    }
    if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,512}$/.test(challenge)) throw new UnauthorizedError('Unknown or expired passkey challenge');
    const row = await this.prisma.webauthnChallenge.delete({ where: { challenge } }).catch(() => null);
    if (!row || row.purpose !== purpose || row.expiresAt.getTime() <= this.clock().getTime()) throw new UnauthorizedError('Unknown or expired passkey challenge');
    return row;
  }
}
