import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { generateNonce, SiweMessage } from 'siwe';
import { getAddress, verifyMessage } from 'viem';
import { type ClaimedAgent, ForbiddenError, newId, SIWE_DEFAULTS, type SiweNonceResponse, type SiweSessionResponse, UnauthorizedError } from '@agent-memory/shared';
import { CLOCK, type Clock, hasExpired, secondsAfter } from '../../clock';
import { AgentsRepository, type ClaimRecord } from '../../persistence/agents.repository';
import { WALLET_SIGNATURE_REALM, type WalletSignatureRealm } from '../../use-cases/wallet-proofs.use-cases';
import { PASSKEY_OPTIONS, type PasskeyOptions } from '../passkey.options';
import type { SiweNonceMessage, SiweVerifyMessage } from '../siwe.messages';
import { SIWE_NO_CLAIM } from './claims.use-cases';
import { PasskeysUseCases } from './passkeys.use-cases';
import { type SessionScope, SessionsUseCases } from './sessions.use-cases';

/** The one line every refused sign-in answers (the reason goes to the log only). */
const REFUSED = 'The Sign in with Ethereum message could not be verified';
/** The answer when the wallet's agent is owned by an account the wallet is not linked to. */
const ANOTHER_ACCOUNT = 'This agent belongs to another account; sign in with that account\'s passkey';

/**
 * Sign in with Ethereum for humans (EIP-4361; docs/authentication.md, "Sign in with Ethereum (humans)"):
 * the holder of an agent's wallet signs a message prepared here and is signed in with the same session
 * as a passkey sign-in ({@link SessionsUseCases}), with that agent claimed.
 *
 * {@link nonce} prepares the whole message (`siwe`'s `SiweMessage`): this deployment's `SIGNATURE_DOMAIN`
 * as `domain`, one of the `PASSKEY_ORIGINS` as `URI`, the payment chain id, a 96-bit alphanumeric nonce
 * (stored in the agents database for one wallet, single use, 5 minutes), `Issued At` and `Expiration
 * Time`; the nonce is bound to the signed-in human who asked for it, or to nobody. {@link verify} takes
 * the nonce of the `Nonce:` line out of the store first (a failed attempt uses it up too; a text without
 * a live nonce is refused before it is parsed), checks that the same human (or nobody) sends it, then
 * parses the text and checks the message and the wallet's EIP-191 signature, and finds the wallet's
 * agent (the `local` one first). Who is signed in: an unclaimed agent is claimed by the signed-in human,
 * or else by a new wallet-only account, and that account is linked to the wallet; a claimed agent signs in
 * its owner only when the owner is the signed-in human or, nobody signed in, the owner is linked to the
 * wallet; else FORBIDDEN and no session (holding an agent's wallet is not holding its owner's account).
 * The session it opens is a `siwe` session scoped to the signing wallet: it reaches only the agents with
 * that wallet ({@link SessionsUseCases}), since every agent holds its own wallet and one agent's must not
 * open the others. A signed-in Sign in with Ethereum session may not claim an unclaimed agent this way
 * either ({@link SIWE_NO_CLAIM}). Every failed check of the message is UNAUTHORIZED with one line.
 */
@Injectable()
export class SiweUseCases {
  private readonly logger = new Logger(SiweUseCases.name);

  constructor(
    private readonly agents: AgentsRepository,
    @Inject(WALLET_SIGNATURE_REALM) private readonly realm: WalletSignatureRealm,
    @Inject(PASSKEY_OPTIONS) private readonly options: PasskeyOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly sessions: SessionsUseCases,
    private readonly passkeys: PasskeysUseCases,
  ) {}

  /**
   * The message for `address` (any case; the message names it EIP-55) to sign unchanged, its nonce and
   * expiry. The URI is `origin` when it is one of the `PASSKEY_ORIGINS` (the page that asks), else the
   * first of them. Expired nonces are purged.
   */
  async nonce({ address, origin, humanId }: SiweNonceMessage): Promise<SiweNonceResponse> {
    const walletAddress = getAddress(address);
    const now = this.clock();
    const expiresAt = secondsAfter(now, SIWE_DEFAULTS.nonceTtlSeconds);
    // siwe's generateNonce: 96 bits from the platform's CSPRNG, alphanumeric (EIP-4361's nonce grammar).
    const nonce = generateNonce();
    const message = new SiweMessage({
      domain: this.realm.domain,
      address: walletAddress,
      statement: SIWE_DEFAULTS.statement,
      uri: this.uriFor(origin),
      version: '1',
      chainId: this.realm.chainId,
      nonce,
      issuedAt: now.toISOString(),
      expirationTime: expiresAt.toISOString(),
    }).prepareMessage();
    await this.agents.addSiweNonce({ nonce, walletAddress, humanId: humanId ?? null, expiresAt }, now);
    return { message, nonce, expiresAt: expiresAt.toISOString() };
  }

  /**
   * Verifies a signed message and signs the wallet's human in (a session with method `siwe`, scoped to the
   * signing wallet's agents). `humanId` and `sessionId`: the signed-in human sending it and its session
   * (`Authorization: Passkey`); with a passkey session the human claims the agent when no one has and is
   * then linked to the wallet. UNAUTHORIZED when the message is not EIP-4361, names another domain, URI
   * origin or chain, its nonce is unknown, used, expired, another wallet's or asked for by another human
   * (or by nobody while a human sends it, or the reverse), it expired or is not yet valid, the signature is
   * not the wallet's, no agent has the wallet, or `sessionId` is not an open session of `humanId`.
   * FORBIDDEN, no session: the agent's owner is neither the signed-in human nor, nobody signed in, linked
   * to the wallet ("This agent belongs to another account…"); or the agent is unclaimed and the sending
   * session is a Sign in with Ethereum one ({@link SIWE_NO_CLAIM}).
   */
  async verify({ message, signature, humanId, sessionId }: SiweVerifyMessage): Promise<SiweSessionResponse> {
    const address = await this.verifiedAddress(message, signature, humanId ?? null);
    const sender: SessionScope | undefined = humanId ? await this.sessions.scopeOf(humanId, sessionId) : undefined;
    const agent = await this.agents.findAgentByWallet(address);
    if (!agent) {
      this.logger.warn({ address }, 'Sign in with Ethereum refused: no agent has this wallet');
      throw new UnauthorizedError('No agent has this wallet');
    }
    const claim = await this.agents.transaction(async (tx): Promise<ClaimRecord> => {
      // Under the agent's row lock, like key claims, so two first sign-ins cannot both claim it.
      if (!(await tx.lockAgent(agent.id))) throw new UnauthorizedError('No agent has this wallet');
      const existing = await tx.findClaim(agent.id);
      if (existing) {
        const mayEnter = humanId ? existing.humanId === humanId : await tx.isWalletLinked(existing.humanId, address);
        if (!mayEnter) {
          this.logger.warn({ address, agentId: agent.id, signedIn: humanId ?? null }, 'Sign in with Ethereum refused: the agent belongs to an account not linked to this wallet');
          throw new ForbiddenError(ANOTHER_ACCOUNT);
        }
        return existing;
      }
      if (sender?.method === 'siwe') {
        this.logger.warn({ address, agentId: agent.id, signedIn: humanId }, 'Sign in with Ethereum refused: a Sign in with Ethereum session may not claim an agent');
        throw new ForbiddenError(SIWE_NO_CLAIM);
      }
      const now = this.clock();
      const ownerId = humanId ?? newId('human');
      const created = humanId
        ? await tx.createClaim(agent.id, humanId, now)
        : await tx.createClaim(agent.id, ownerId, now, { id: ownerId, name: walletAccountName(address), webauthnUserId: randomBytes(32).toString('base64url'), createdAt: now });
      await tx.linkWallet(ownerId, address, now);
      return created;
    });
    const session = await this.sessions.issue(claim.humanId, 'siwe', address);
    return {
      token: session.token,
      expiresAt: session.expiresAt.toISOString(),
      human: await this.passkeys.getHuman({ humanId: claim.humanId }),
      agent: toClaimed(claim),
    };
  }

  /**
   * The wallet (EIP-55) that signed `message` after all of {@link verify}'s checks of the message; the
   * nonce is used up. `humanId`: who sends it (null: nobody signed in), who must be who asked for the nonce.
   */
  private async verifiedAddress(text: string, signature: string, humanId: string | null): Promise<`0x${string}`> {
    const refuse = (reason: string, details: Record<string, unknown> = {}): never => {
      this.logger.warn({ ...details, reason }, 'Sign in with Ethereum refused');
      throw new UnauthorizedError(REFUSED);
    };
    // The nonce first, found by a line scan (linear, cheap), and taken out of the store, so that any
    // failed attempt below uses it up, and only a text carrying a live nonce reaches the EIP-4361 parser
    // (an ABNF parser: ~10 ms for a 4 KB text, not to be spent on every anonymous request).
    const nonce = nonceLineOf(text);
    const stored = nonce === undefined ? null : await this.agents.takeSiweNonce(nonce);
    const now = this.clock();
    if (!stored || hasExpired(stored.expiresAt, now)) return refuse('no, unknown, used or expired nonce', { nonce });
    // A message signed for one human's nonce (or for nobody's) cannot be relayed with another's session.
    if (stored.humanId !== humanId) refuse('nonce asked for by another human, or by nobody', { nonce, askedBy: stored.humanId, sentBy: humanId });
    let siwe: SiweMessage;
    let address: `0x${string}`;
    try {
      siwe = new SiweMessage(text);
      address = getAddress(siwe.address);
    } catch (err) {
      return refuse('not an EIP-4361 message', { err: err instanceof Error ? err.message : String(err) });
    }
    if (siwe.nonce !== nonce) refuse('the parsed nonce is not the one taken', { nonce, parsed: siwe.nonce });
    if (stored.walletAddress !== address) refuse('nonce issued for another wallet', { address, issuedFor: stored.walletAddress });
    if (siwe.domain !== this.realm.domain) refuse('another domain', { domain: siwe.domain });
    if (!this.isOurOrigin(siwe.uri)) refuse('another URI origin', { uri: siwe.uri });
    if (siwe.version !== '1') refuse('another version', { version: siwe.version });
    if (siwe.chainId !== this.realm.chainId) refuse('another chain', { chainId: siwe.chainId });
    if (siwe.expirationTime !== undefined && !(Date.parse(siwe.expirationTime) > now.getTime())) refuse('expired message', { expirationTime: siwe.expirationTime });
    if (siwe.notBefore !== undefined && !(Date.parse(siwe.notBefore) <= now.getTime())) refuse('message not yet valid', { notBefore: siwe.notBefore });
    let valid = false;
    try {
      valid = await verifyMessage({ address, message: text, signature: signature as `0x${string}` });
    } catch {
      valid = false;
    }
    if (!valid) refuse('not the wallet’s signature', { address });
    return address;
  }

  /** `origin` when it is one of the `PASSKEY_ORIGINS`, else the first of them. */
  private uriFor(origin: string | undefined): string {
    const origins = this.options.origins.map(originOf);
    const asked = origin === undefined ? undefined : originOf(origin);
    return asked !== undefined && origins.includes(asked) ? asked : (origins[0] as string);
  }

  private isOurOrigin(uri: string): boolean {
    const origin = originOf(uri);
    return origin !== undefined && this.options.origins.some((o) => originOf(o) === origin);
  }
}

/**
 * The value of the `Nonce: ` line of an EIP-4361 text, by splitting lines (linear in the text, at most
 * 1,024 characters by schema); undefined when there is none or it is not alphanumeric (EIP-4361's nonce).
 */
function nonceLineOf(text: string): string | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('Nonce: ')) {
      const nonce = line.slice('Nonce: '.length);
      return /^[A-Za-z0-9]{8,128}$/.test(nonce) ? nonce : undefined;
    }
  }
  return undefined;
}

/** The origin (`scheme://host[:port]`) of a URL, normalised; undefined when it is not a URL with one. */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The name of an account a wallet sign-in creates: `Wallet 0xAbCd…1234`. */
export function walletAccountName(address: string): string {
  return `Wallet ${address.slice(0, 6)}…${address.slice(-4)}`;
}

function toClaimed(claim: ClaimRecord): ClaimedAgent {
  return { ...claim.agent, claimedAt: claim.createdAt.toISOString() };
}
