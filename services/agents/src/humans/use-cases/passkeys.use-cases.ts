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
import { ForbiddenError, type Human, type HumanSessionResponse, newId, type PasskeysDeleteReply, NotFoundError, UnauthorizedError, ValidationError, type WebAuthnCredentialJson } from '@agent-memory/shared';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../../clock';
import { type CeremonyPurpose, type HumanRecord, HumansRepository, type WebauthnChallengeRecord } from '../../persistence/humans.repository';
import type { AuthenticationOptionsMessage, DeletePasskeyMessage, GetHumanMessage, PasskeyVerifyMessage, RegistrationOptionsMessage } from '../humans.messages';
import { PASSKEY_OPTIONS, type PasskeyOptions } from '../passkey.options';
import { SessionsUseCases } from './sessions.use-cases';

/** The one line a SIWE session of an account with passkeys gets when it tries to manage them. */
const NEEDS_PASSKEY_SESSION = 'Sign in with a passkey to manage passkeys: a Sign in with Ethereum session may only add an account\'s first passkey';
/** The one line a SIWE session gets for the first passkey of an account that owns agents of other wallets. */
const OTHER_WALLETS =
  'This account owns agents of other wallets: a Sign in with Ethereum session may add the account\'s first passkey only while every agent of the account has the wallet that signed it in (release the others first, each signed in with its own wallet)';

/**
 * Passkeys for humans (docs/authentication.md, "Passkeys (humans)") with `@simplewebauthn/server`:
 * registration (a new account, or another passkey for the signed-in one) and sign-in with a discoverable
 * credential. Challenges are kept in the database, single use, for `challengeTtlSeconds`, so any replica
 * can finish a ceremony another one began. A verified ceremony issues a session ({@link SessionsUseCases}).
 * User verification is required. Failures are UNAUTHORIZED without detail beyond one line (the details
 * go to the log).
 */
@Injectable()
export class PasskeysUseCases {
  private readonly logger = new Logger(PasskeysUseCases.name);

  constructor(
    private readonly humans: HumansRepository,
    @Inject(PASSKEY_OPTIONS) private readonly options: PasskeyOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly sessions: SessionsUseCases,
  ) {}

  /**
   * Options for `navigator.credentials.create()`. With `humanId` and `sessionId` (signed in) the passkey
   * is added to that account; otherwise `name` is required and the account is created when the passkey is
   * verified. FORBIDDEN when the session is a Sign in with Ethereum one and the account has a passkey, or
   * owns an agent whose wallet is not the session's.
   */
  async registrationOptions(m: RegistrationOptionsMessage) {
    let human: HumanRecord | null = null;
    if (m.humanId) {
      const scope = await this.sessions.scopeOf(m.humanId, m.sessionId);
      human = await this.humans.findHuman(m.humanId);
      if (!human) throw new UnauthorizedError('Invalid passkey session credential');
      if (scope.method === 'siwe') await this.checkFirstPasskeyBySiwe(human, scope.walletAddress);
    }
    const name = human ? human.name : m.name;
    if (!name) throw new ValidationError('name: required to create an account (or sign in first to add a passkey to yours)');
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
   * `humanId` is the signed-in human finishing the ceremony (`Authorization: Passkey`, resolved by the
   * gateway). A ceremony that adds a passkey to an account is bound to that account: it finishes only in
   * one of its sessions (none: UNAUTHORIZED; another human's: FORBIDDEN), so that holding the challenge
   * alone cannot add an attacker's authenticator (docs/authentication.md, "Passkeys"). A Sign in with
   * Ethereum session adds only the account's first passkey, and only while every agent of the account has
   * the session's wallet (FORBIDDEN otherwise, checked again under the account's row lock as the passkey
   * is stored). The challenge is consumed either way. A new account's ceremony needs no session.
   */
  async registrationVerify({ response, humanId: sessionHumanId, sessionId }: PasskeyVerifyMessage): Promise<HumanSessionResponse> {
    const challenge = await this.consumeChallenge(response, 'registration');
    let bySiwe: { onlyFirst: true; onlyWallet: string } | undefined;
    if (challenge.humanId !== null) {
      if (!sessionHumanId) throw new UnauthorizedError('Adding a passkey to an account needs that account’s session: send the Authorization: Passkey header that started the ceremony');
      if (sessionHumanId !== challenge.humanId) throw new ForbiddenError('This passkey ceremony was started by another account');
      const scope = await this.sessions.scopeOf(sessionHumanId, sessionId);
      if (scope.method === 'siwe') {
        const human = await this.humans.findHuman(sessionHumanId);
        if (!human) throw new UnauthorizedError('Invalid passkey session credential');
        await this.checkFirstPasskeyBySiwe(human, scope.walletAddress);
        // A session that recorded no wallet matches no agent's: '' is no wallet address.
        bySiwe = { onlyFirst: true, onlyWallet: scope.walletAddress ?? '' };
      }
    }
    const { registrationInfo: info } = await this.verified('registration', () =>
      verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.options.origins,
        expectedRPID: this.options.rpId,
        requireUserVerification: true,
      }),
    );
    const now = this.clock();
    const humanId = challenge.humanId ?? newId('human');
    const newHuman = challenge.humanId ? undefined : { id: humanId, name: challenge.humanName ?? 'human', webauthnUserId: challenge.webauthnUserId as string, createdAt: now };
    const passkey = {
      id: info.credential.id,
      humanId,
      publicKey: info.credential.publicKey,
      counter: BigInt(info.credential.counter),
      transports: info.credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: now,
    };
    const added = await this.humans.addPasskey(passkey, newHuman, bySiwe ?? {});
    if (added === 'already-registered') throw new ValidationError('response: this passkey is already registered');
    if (added === 'not-first') throw new ForbiddenError(NEEDS_PASSKEY_SESSION);
    if (added === 'other-wallets') throw new ForbiddenError(OTHER_WALLETS);
    return this.signIn(humanId);
  }

  /** Options for `navigator.credentials.get()`: any discoverable passkey of this relying party. */
  async authenticationOptions(_m: AuthenticationOptionsMessage = {}) {
    const options = await generateAuthenticationOptions({
      rpID: this.options.rpId,
      userVerification: 'required',
      timeout: this.options.challengeTtlSeconds * 1000,
    });
    const expiresAt = await this.storeChallenge(options.challenge, 'authentication', { humanId: null, humanName: null, webauthnUserId: null });
    return { options, expiresAt: expiresAt.toISOString() };
  }

  /** Verifies a sign-in assertion (signature, counter, user handle) and issues a session. */
  async authenticationVerify({ response }: PasskeyVerifyMessage): Promise<HumanSessionResponse> {
    const challenge = await this.consumeChallenge(response, 'authentication');
    const passkey = await this.humans.findPasskey(response.id);
    if (!passkey) throw new UnauthorizedError('Unknown passkey');
    const userHandle = (response.response as { userHandle?: unknown }).userHandle;
    if (typeof userHandle === 'string' && userHandle !== passkey.webauthnUserId) throw new UnauthorizedError('Unknown passkey');
    const { authenticationInfo } = await this.verified('sign-in', () =>
      verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: this.options.origins,
        expectedRPID: this.options.rpId,
        credential: { id: passkey.id, publicKey: new Uint8Array(passkey.publicKey), counter: Number(passkey.counter), transports: passkey.transports },
        requireUserVerification: true,
      }),
    );
    await this.humans.recordPasskeyUse(passkey.id, BigInt(authenticationInfo.newCounter), this.clock());
    return this.signIn(passkey.humanId);
  }

  /** A human with its passkeys (no key material); NOT_FOUND if unknown. */
  async getHuman({ humanId }: GetHumanMessage): Promise<Human> {
    const row = await this.humans.findHuman(humanId);
    if (!row) throw new NotFoundError('Account not found');
    return {
      id: row.id,
      name: row.name,
      createdAt: row.createdAt.toISOString(),
      passkeys: row.passkeys.map((p) => ({
        id: p.id,
        deviceType: p.deviceType,
        backedUp: p.backedUp,
        transports: p.transports,
        createdAt: p.createdAt.toISOString(),
        lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
      })),
    };
  }

  /**
   * Deletes one of the human's passkeys (docs/authentication.md, "Passkeys (humans)") and answers the
   * passkeys the account keeps. Never the last one: FORBIDDEN, nothing changes (the account could not sign
   * in again). Another human's or an unknown id: NOT_FOUND. A Sign in with Ethereum session (`sessionId`)
   * of an account that has passkeys: FORBIDDEN. Atomic under the human's row lock, so two concurrent
   * deletions of the last two passkeys leave one. A deletion ends every other session of the human (the
   * passkey may have been lost or stolen); the calling session stays open.
   */
  async deletePasskey({ humanId, sessionId, passkeyId }: DeletePasskeyMessage): Promise<PasskeysDeleteReply> {
    if ((await this.sessions.scopeOf(humanId, sessionId)).method === 'siwe' && ((await this.humans.findHuman(humanId))?.passkeys.length ?? 0) > 0) throw new ForbiddenError(NEEDS_PASSKEY_SESSION);
    const outcome = await this.humans.deletePasskey(humanId, passkeyId, sessionId, this.clock());
    if (outcome === 'not-found') throw new NotFoundError('Passkey not found');
    if (outcome === 'last') throw new ForbiddenError('This is the account\'s last passkey: add another passkey before deleting this one, or the account could not sign in again');
    return { deleted: true, passkeys: (await this.getHuman({ humanId })).passkeys };
  }

  /**
   * A Sign in with Ethereum session of wallet `walletAddress` may add `human`'s first passkey only while
   * the account has none (else FORBIDDEN, {@link NEEDS_PASSKEY_SESSION}) and every agent it owns has that
   * wallet (else FORBIDDEN, {@link OTHER_WALLETS}): a passkey reaches the whole account, and the wallet
   * of one agent must not open the others (docs/authentication.md, "Sign in with Ethereum (humans)").
   */
  private async checkFirstPasskeyBySiwe(human: HumanRecord, walletAddress: string | null): Promise<void> {
    if (human.passkeys.length > 0) throw new ForbiddenError(NEEDS_PASSKEY_SESSION);
    if ((await this.humans.claimedWallets(human.id)).some((w) => w !== walletAddress)) throw new ForbiddenError(OTHER_WALLETS);
  }

  private async signIn(humanId: string): Promise<HumanSessionResponse> {
    const session = await this.sessions.issue(humanId, 'passkey');
    return { token: session.token, expiresAt: session.expiresAt.toISOString(), human: await this.getHuman({ humanId }) };
  }

  /**
   * Runs a ceremony's verification; UNAUTHORIZED ("The passkey <ceremony> could not be verified") when it
   * throws or does not verify. The library's reason goes to the log only.
   */
  private async verified<T extends { verified: boolean }>(ceremony: 'registration' | 'sign-in', verify: () => Promise<T>): Promise<T extends { verified: false } ? never : T> {
    const refused = () => new UnauthorizedError(`The passkey ${ceremony} could not be verified`);
    const result = await verify().catch((err: unknown) => {
      this.logger.warn({ err: (err as Error).message }, `Passkey ${ceremony} refused`);
      throw refused();
    });
    if (!result.verified) throw refused();
    return result as T extends { verified: false } ? never : T;
  }

  private async storeChallenge(challenge: string, purpose: CeremonyPurpose, data: Pick<WebauthnChallengeRecord, 'humanId' | 'humanName' | 'webauthnUserId'>): Promise<Date> {
    const now = this.clock();
    const expiresAt = secondsAfter(now, this.options.challengeTtlSeconds);
    await this.humans.addChallenge({ challenge, purpose, ...data, expiresAt }, now);
    return expiresAt;
  }

  /**
   * Takes the challenge named in the credential's clientDataJSON out of the store (single use, even when
   * the ceremony then fails). UNAUTHORIZED if it is unknown, of the other ceremony, or expired.
   */
  private async consumeChallenge(response: WebAuthnCredentialJson, purpose: CeremonyPurpose): Promise<WebauthnChallengeRecord> {
    let challenge: unknown;
    try {
      challenge = (JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
    } catch {
      challenge = undefined;
    }
    if (typeof challenge !== 'string' || !/^[A-Za-z0-9_-]{16,512}$/.test(challenge)) throw new UnauthorizedError('Unknown or expired passkey challenge');
    const row = await this.humans.takeChallenge(challenge);
    if (!row || row.purpose !== purpose || hasExpired(row.expiresAt, this.clock())) throw new UnauthorizedError('Unknown or expired passkey challenge');
    return row;
  }
}
