import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AgentsAuthenticateKeyReplySchema,
  AgentsGetWalletReplySchema,
  ClaimsResolveReplySchema,
  DomainError,
  ForbiddenError,
  NotFoundError,
  type Principal,
  RecordIdSchema,
  RecordsResolveOwnerReplySchema,
  SessionsAuthenticateReplySchema,
  SUBJECTS,
  UnauthorizedError,
} from '@agent-memory/shared';
import { BusClient } from '@agent-memory/platform';
import { GATEWAY_OPTIONS, type GatewayOptions, signatureRealmOf } from '../gateway.options';
import { REPLAY_CACHE, type ReplayCache } from './replay-cache';
import { ResolutionCache } from './resolution-cache';
import type { GatewayRequest, HumanOnRequest } from './request-context';
import { parseSignatureHeader, signatureMessage, type SignatureRealm, verifyWalletSignature } from './wallet-signature';

/**
 * The replay-cache key of a signed request: `sig:<wallet, lower case>:<hex SHA-256 of the signed
 * message>`. The message binds deployment, method, path, timestamp and body, so the same request
 * signed by the same wallet is single-use whatever bytes its signature has (docs/authentication.md,
 * "Wallet signatures").
 */
export function replayKeyOf(walletAddress: string, message: string): string {
  return `sig:${walletAddress.toLowerCase()}:${createHash('sha256').update(message, 'utf8').digest('hex')}`;
}

/**
 * Checks each `Authorization` method (docs/authentication.md) and says whom a
 * request acts for. Guards decide which methods a route accepts; this class holds the rules:
 *
 * - agent key: the agents service compares the key's SHA-256 (malformed, unknown, revoked, expired: 401);
 * - wallet signature: the timestamp within ±window, the EIP-191 signature of this exact request on
 *   this deployment ({@link signatureMessage}: configured domain and chain id) by the wallet in the header, the wallet is a `local`-mode agent's (a
 *   `cloud` agent's wallet: 403), the signature in its canonical encoding, and the signed message not
 *   seen before ({@link replayKeyOf}; replay cache, shared by replicas);
 * - passkey session: the agents service compares the token's SHA-256 (unknown, expired, signed out: 401);
 *   on record routes the record must belong to an agent the human claimed (else 404), and a Sign in with
 *   Ethereum session reaches only the agents of its wallet (else 403).
 */
@Injectable()
export class AgentAuthenticator {
  constructor(
    private readonly bus: BusClient,
    @Inject(REPLAY_CACHE) private readonly replays: ReplayCache,
    @Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions,
    private readonly resolutions: ResolutionCache,
  ) {
    this.realm = signatureRealmOf(options);
  }

  /** The deployment every accepted signature must name (domain and chain id). */
  private readonly realm: SignatureRealm;

  /** `Bearer <agent key>` → the key's agent (asked of the agents service, or cached: {@link ResolutionCache}). */
  async byAgentKey(agentKey: string): Promise<Principal> {
    return this.resolutions.principal(agentKey, () => this.bus.request(SUBJECTS.agents.authenticateKey, { agentKey }, AgentsAuthenticateKeyReplySchema));
  }

  /** `Signature <timestamp>:<walletAddress>:<signature>` → the `local` agent of that wallet. */
  async bySignature(req: GatewayRequest & { rawBody?: Buffer }, credential: string): Promise<Principal> {
    const header = parseSignatureHeader(`Signature ${credential}`);
    if (!header) throw new UnauthorizedError('Invalid Authorization header: expected "Signature <timestamp>:<walletAddress>:<signature>"');
    const window = this.options.signatureWindowSeconds;
    if (Math.abs(Date.now() / 1000 - header.timestamp) > window) throw new UnauthorizedError(`Signature timestamp is outside the ±${window} s window`);
    const message = signatureMessage({ ...this.realm, method: req.method, pathWithQuery: req.url, timestamp: header.timestamp, body: req.rawBody ?? '' });
    if (!(await verifyWalletSignature(header.walletAddress, message, header.signature))) throw new UnauthorizedError('Invalid signature');
    let agent;
    try {
      agent = await this.bus.request(SUBJECTS.agents.findByWallet, { walletAddress: header.walletAddress }, AgentsGetWalletReplySchema);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') throw new UnauthorizedError('No agent has this wallet');
      throw err;
    }
    if (agent.mode !== 'local') throw new ForbiddenError('Wallet signatures are for agents in local mode; use the agent key');
    // Claimed last, so that a refused request does not burn a signature the client may correct and resend.
    // Keyed on the signed content, not the signature bytes: one message is accepted once however its
    // signature is spelled (a signature's other encodings are refused by verifyWalletSignature as well).
    if (!(await this.replays.claim(replayKeyOf(header.walletAddress, message), window * 2))) throw new UnauthorizedError('This signature was already used');
    return { agentId: agent.agentId, keyEnvironment: agent.keyEnvironment, mode: agent.mode };
  }

  /** `Passkey <session>` → the signed-in human and its session (how it was opened, its wallet, its expiry). */
  async bySession(token: string): Promise<HumanOnRequest> {
    const session = await this.bus.request(SUBJECTS.humans.authenticateSession, { token }, SessionsAuthenticateReplySchema);
    return { humanId: session.humanId, sessionId: session.sessionId, method: session.method, walletAddress: session.walletAddress, expiresAt: session.expiresAt };
  }

  /**
   * The principal of an agent the human claimed, for a call of its session: NOT_FOUND when not claimed by
   * the human; FORBIDDEN when the session is a Sign in with Ethereum one of another wallet than the agent's.
   */
  async claimedAgent(human: Pick<HumanOnRequest, 'humanId' | 'sessionId'>, agentId: string): Promise<Principal> {
    return this.bus.request(SUBJECTS.humans.resolveClaim, { humanId: human.humanId, sessionId: human.sessionId, agentId }, ClaimsResolveReplySchema);
  }

  /**
   * The principal for a human's call on a record: the record's agent, if the human claimed it (else
   * NOT_FOUND) and the session reaches it (a Sign in with Ethereum session of another wallet: FORBIDDEN).
   */
  async claimedRecordOwner(human: Pick<HumanOnRequest, 'humanId' | 'sessionId'>, rawRecordId: unknown): Promise<Principal> {
    const recordId = RecordIdSchema.safeParse(rawRecordId);
    if (!recordId.success) throw new NotFoundError('Record not found');
    const owner = await this.bus.request(SUBJECTS.records.resolveOwner, { recordId: recordId.data }, RecordsResolveOwnerReplySchema);
    try {
      return await this.claimedAgent(human, owner.agentId);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NOT_FOUND') throw new NotFoundError('Record not found');
      throw err;
    }
  }
}
