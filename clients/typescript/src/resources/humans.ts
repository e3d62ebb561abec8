import { offsetPages, type PageIterator } from '../pagination';
import type { Transport } from '../transport';
import type {
  AgentKeyList,
  CallOptions,
  ClaimedAgent,
  ClaimedAgentList,
  ClaimedAgentOverview,
  DeletedPasskey,
  HumanSession,
  HumanWithSession,
  LedgerEntry,
  ListOptions,
  MemoryRecord,
  PasskeyOptions,
  SiweNonce,
  SiweSession,
  RecordPage,
  ReleasedClaim,
  RevokedKey,
  RotatedKey,
  RotateKeyInput,
  UsageFilter,
  UsagePage,
  WebAuthnCredentialJson,
} from '../types';

const agentPath = (agentId: string, tail = '') => `/humans/me/agents/${encodeURIComponent(agentId)}${tail}`;

/**
 * Humans: passkey sign-in and the agents a human claimed (docs/api.md, "Humans and passkeys";
 * docs/authentication.md, "Passkeys (humans)"). The WebAuthn ceremony itself runs in the browser
 * (`navigator.credentials.create/get` with the options answered here). A successful `*Verify` stores the
 * session token in the client, which then sends `Authorization: Passkey <token>` on the human routes.
 */
export class HumansApi {
  constructor(
    private readonly transport: Transport,
    private readonly setSession: (token: string | undefined) => void,
  ) {}

  /**
   * `POST /auth/passkey/register/options` `{ name }`: a new account; when the client holds a session, a
   * passkey added to that account (the session is sent, `name` ignored).
   */
  registerOptions(input: { name?: string } = {}, options?: CallOptions): Promise<PasskeyOptions> {
    return this.transport.request({ method: 'POST', path: '/auth/passkey/register/options', body: input, auth: 'session-if-any' }, options);
  }

  /** `POST /auth/passkey/register/verify` `{ response }` → session (stored in the client); with a session, in that account. */
  async registerVerify(response: WebAuthnCredentialJson, options?: CallOptions): Promise<HumanSession> {
    return this.session(await this.transport.request<HumanSession>({ method: 'POST', path: '/auth/passkey/register/verify', body: { response }, auth: 'session-if-any' }, options));
  }

  /** `POST /auth/passkey/login/options` → WebAuthn request options. */
  loginOptions(options?: CallOptions): Promise<PasskeyOptions> {
    return this.transport.request({ method: 'POST', path: '/auth/passkey/login/options', body: {}, auth: 'none' }, options);
  }

  /** `POST /auth/passkey/login/verify` `{ response }` → session (stored in the client). */
  async loginVerify(response: WebAuthnCredentialJson, options?: CallOptions): Promise<HumanSession> {
    return this.session(await this.transport.request<HumanSession>({ method: 'POST', path: '/auth/passkey/login/verify', body: { response }, auth: 'none' }, options));
  }

  /**
   * `POST /auth/siwe/nonce` `{ address }`: the EIP-4361 (Sign in with Ethereum) message for the wallet to sign
   * unchanged, its nonce and expiry (docs/authentication.md, "Sign in with Ethereum (humans)"). Before signing,
   * check that its first line names the host you meant to reach and its second line your wallet. When the
   * client holds a session it is sent, and the nonce is bound to that account: {@link siweVerify} must then
   * be sent with the same session (a nonce asked for without one is verified without one).
   */
  siweNonce(address: string, options?: CallOptions): Promise<SiweNonce> {
    return this.transport.request({ method: 'POST', path: '/auth/siwe/nonce', body: { address }, auth: 'session-if-any' }, options);
  }

  /**
   * `POST /auth/siwe/verify` `{ message, signature }` (the wallet's EIP-191 `personal_sign` of `message`) →
   * session (stored in the client) of the human who owns the wallet's agent, and that agent. When the client
   * holds a passkey session, an unclaimed agent is claimed by that account (and the account is linked to the
   * wallet); with none, by a new wallet-only account; with a Sign in with Ethereum session: FORBIDDEN. An
   * agent owned by an account not linked to the wallet (or, with a session, by another account) is FORBIDDEN,
   * and no session is opened. The session answered reaches only the agents of this wallet.
   */
  async siweVerify(message: string, signature: string, options?: CallOptions): Promise<SiweSession> {
    return this.session(await this.transport.request<SiweSession>({ method: 'POST', path: '/auth/siwe/verify', body: { message, signature }, auth: 'session-if-any' }, options));
  }

  /** `POST /auth/logout`: ends the session (and forgets it in the client). */
  async logout(options?: CallOptions): Promise<{ loggedOut: true }> {
    const result = await this.transport.request<{ loggedOut: true }>({ method: 'POST', path: '/auth/logout', body: {}, auth: 'human' }, options);
    this.setSession(undefined);
    return result;
  }

  /**
   * `GET /humans/me`: the account `{ id, name, createdAt, passkeys }` and `session`, the session of the call:
   * `{ method, walletAddress, expiresAt }` (a `siwe` session reaches only the agents of its `walletAddress`).
   */
  me(options?: CallOptions): Promise<HumanWithSession> {
    return this.transport.request({ method: 'GET', path: '/humans/me', auth: 'human', idempotent: true }, options);
  }

  /**
   * `DELETE /humans/me/passkeys/{passkeyId}`: deletes one of the account's passkeys and answers those it
   * keeps. The last one cannot be deleted (403); another account's or an unknown id: 404. Sessions stay valid.
   */
  deletePasskey(passkeyId: string, options?: CallOptions): Promise<DeletedPasskey> {
    return this.transport.request({ method: 'DELETE', path: `/humans/me/passkeys/${encodeURIComponent(passkeyId)}`, auth: 'human' }, options);
  }

  /**
   * `GET /humans/me/agents`: the claimed agents, each with its balances (live, test) and `lastActivityAt`. A
   * Sign in with Ethereum session lists only the agents of its wallet (its other agents are FORBIDDEN to it).
   */
  agents(options?: CallOptions): Promise<ClaimedAgentList> {
    return this.transport.request({ method: 'GET', path: '/humans/me/agents', auth: 'human', idempotent: true }, options);
  }

  /** `POST /humans/me/agents` `{ agentKey }` → 201 the claimed agent. With a Sign in with Ethereum session: FORBIDDEN (claim with a passkey session). */
  claim(agentKey: string, options?: CallOptions): Promise<ClaimedAgent> {
    return this.transport.request({ method: 'POST', path: '/humans/me/agents', body: { agentKey }, auth: 'human' }, options);
  }

  /** `GET /humans/me/agents/{agentId}`: one claimed agent as in {@link agents}. */
  agent(agentId: string, options?: CallOptions): Promise<ClaimedAgentOverview> {
    return this.transport.request({ method: 'GET', path: agentPath(agentId), auth: 'human', idempotent: true }, options);
  }

  /** `DELETE /humans/me/agents/{agentId}`: releases the claim. */
  release(agentId: string, options?: CallOptions): Promise<ReleasedClaim> {
    return this.transport.request({ method: 'DELETE', path: agentPath(agentId), auth: 'human' }, options);
  }

  /** `GET /humans/me/agents/{agentId}/records`: one page, as {@link RecordsApi.page}. */
  recordsPage(agentId: string, query: { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<RecordPage> {
    return this.transport.request({ method: 'GET', path: agentPath(agentId, '/records'), query, auth: 'human', idempotent: true }, options);
  }

  /** Every record of a claimed agent, newest first. */
  records(agentId: string, options: ListOptions = {}): PageIterator<MemoryRecord, RecordPage> {
    const { pageSize, ...call } = options;
    return offsetPages((offset) => this.recordsPage(agentId, { limit: pageSize, offset }, call), (page) => page.records);
  }

  /** `GET /humans/me/agents/{agentId}/usage`: one ledger page, as {@link BillingApi.usagePage}. */
  usagePage(agentId: string, query: UsageFilter & { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<UsagePage> {
    return this.transport.request({ method: 'GET', path: agentPath(agentId, '/usage'), query, auth: 'human', idempotent: true }, options);
  }

  /** Every ledger entry of a claimed agent matching `filter`, newest first. */
  usage(agentId: string, filter: UsageFilter & ListOptions = {}): PageIterator<LedgerEntry, UsagePage> {
    const { pageSize, signal, timeoutMs, ...query } = filter;
    return offsetPages((offset) => this.usagePage(agentId, { ...query, limit: pageSize, offset }, { signal, timeoutMs }), (page) => page.entries);
  }

  /** `GET /humans/me/agents/{agentId}/keys`. */
  keys(agentId: string, options?: CallOptions): Promise<AgentKeyList> {
    return this.transport.request({ method: 'GET', path: agentPath(agentId, '/keys'), auth: 'human', idempotent: true }, options);
  }

  /** `POST /humans/me/agents/{agentId}/keys/rotate` `{ graceSeconds? }`: a new key for the agent, shown once. */
  rotateKey(agentId: string, input: RotateKeyInput = {}, options?: CallOptions): Promise<RotatedKey> {
    return this.transport.request({ method: 'POST', path: agentPath(agentId, '/keys/rotate'), body: input, auth: 'human' }, options);
  }

  /** `POST /humans/me/agents/{agentId}/keys/{keyId}/revoke`. */
  revokeKey(agentId: string, keyId: string, options?: CallOptions): Promise<RevokedKey> {
    return this.transport.request({ method: 'POST', path: agentPath(agentId, `/keys/${encodeURIComponent(keyId)}/revoke`), body: {}, auth: 'human' }, options);
  }

  private session<T extends HumanSession>(session: T): T {
    this.setSession(session.token);
    return session;
  }
}
