import { z } from 'zod';
import { idPattern } from '../ids';
import { AgentIdSchema, plainText, TimestampSchema } from './common';
import { AgentSchema, KeyEnvironmentSchema, PrincipalSchema, WalletAddressSchema } from './agents';
import { AgentBalancesSchema } from './billing';

/**
 * Contracts of authentication beyond the four `Authorization` methods (keys are revocable and
 * rotatable; passkeys are WebAuthn): agent key management,
 * human accounts with passkeys (WebAuthn), sessions and claims of agents. Documented in
 * docs/authentication.md.
 */
export const AUTH_DEFAULTS = {
  /** How long the previous keys stay valid after a rotation, seconds (24 h; `AGENT_KEY_ROTATION_GRACE_SECONDS`). */
  keyRotationGraceSeconds: 24 * 60 * 60,
  /** Longest grace a rotation may ask for, seconds (7 days). */
  maxKeyRotationGraceSeconds: 7 * 24 * 60 * 60,
  /** Lifetime of a human session credential, seconds (12 h, absolute; `PASSKEY_SESSION_TTL_SECONDS`). */
  passkeySessionTtlSeconds: 12 * 60 * 60,
  /** Lifetime of a WebAuthn challenge, seconds (5 min; the `timeout` sent to the browser is the same). */
  webauthnChallengeTtlSeconds: 5 * 60,
  /** Lifetime of a wallet challenge (proof of wallet possession on create agent), seconds (5 min). */
  walletChallengeTtlSeconds: 5 * 60,
} as const;

export const AgentKeyIdSchema = z.string().regex(idPattern('agentKey'), 'must be a key id (key_...)');
export const HumanIdSchema = z.string().regex(idPattern('human'), 'must be a human id (hum_...)');

// --- agent keys ---

/**
 * Status of an agent key: `active` (no end), `expiring` (rotated away, valid until `expiresAt`),
 * `expired`, `revoked`.
 */
export const AgentKeyStatusSchema = z.enum(['active', 'expiring', 'expired', 'revoked']);

/** An agent key as listed: never the secret, only its first characters (`amk_live_Ab12`). */
export const AgentKeyInfoSchema = z.object({
  id: AgentKeyIdSchema,
  displayPrefix: z.string(),
  environment: KeyEnvironmentSchema,
  status: AgentKeyStatusSchema,
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema.nullable(),
  revokedAt: TimestampSchema.nullable(),
});
export type AgentKeyInfo = z.infer<typeof AgentKeyInfoSchema>;
export const AgentKeyListSchema = z.object({ keys: z.array(AgentKeyInfoSchema) });
export type AgentKeyList = z.infer<typeof AgentKeyListSchema>;

/** POST .../keys/rotate body (optional): `graceSeconds` 0 to 7 days; default AUTH_DEFAULTS.keyRotationGraceSeconds or the configured one. */
export const RotateKeyBodySchema = z.strictObject({
  graceSeconds: z.number().int().min(0).max(AUTH_DEFAULTS.maxKeyRotationGraceSeconds).optional(),
});
export type RotateKeyBody = z.infer<typeof RotateKeyBodySchema>;

/** Rotation result: the new key (shown once) and the previous keys with their new expiry. */
export const RotateKeyResponseSchema = z.object({
  agentKey: z.string(),
  key: AgentKeyInfoSchema,
  previousKeys: z.array(AgentKeyInfoSchema),
});
export type RotateKeyResponse = z.infer<typeof RotateKeyResponseSchema>;

export const RevokeKeyResponseSchema = z.object({ revoked: z.literal(true), key: AgentKeyInfoSchema });
export type RevokeKeyResponse = z.infer<typeof RevokeKeyResponseSchema>;

// --- humans, passkeys, sessions, claims ---

export const HumanNameSchema = plainText(1, 64).trim();

/**
 * A registered passkey of a human (no key material). `deviceType`: WebAuthn's `singleDevice` (bound to one
 * authenticator) or `multiDevice` (synced); `transports`: how the browser reached the authenticator when
 * it was registered (`internal`, `usb`, `nfc`, `ble`, `hybrid`, …; may be empty).
 */
export const PasskeyInfoSchema = z.object({
  id: z.string(),
  deviceType: z.string(),
  backedUp: z.boolean(),
  transports: z.array(z.string()),
  createdAt: TimestampSchema,
  lastUsedAt: TimestampSchema.nullable(),
});

/** A human account: signs in with passkeys, owns the agents it claimed. */
export const HumanSchema = z.object({
  id: HumanIdSchema,
  name: z.string(),
  createdAt: TimestampSchema,
  passkeys: z.array(PasskeyInfoSchema),
});
export type Human = z.infer<typeof HumanSchema>;

/** How a human session was opened (docs/authentication.md): a passkey ceremony or Sign in with Ethereum. */
export const SessionMethodSchema = z.enum(['passkey', 'siwe']);
export type SessionMethod = z.infer<typeof SessionMethodSchema>;

/**
 * The session a call was made with (docs/authentication.md): `method` `passkey` reaches the whole account;
 * `siwe` only the agents whose wallet is `walletAddress` (the wallet that signed it in; null for `passkey`).
 */
export const HumanSessionInfoSchema = z.object({ method: SessionMethodSchema, walletAddress: WalletAddressSchema.nullable(), expiresAt: TimestampSchema });
export type HumanSessionInfo = z.infer<typeof HumanSessionInfoSchema>;

/** `GET /api/v1/humans/me`: the account, and the session the call was made with. */
export const HumanWithSessionSchema = HumanSchema.extend({ session: HumanSessionInfoSchema });
export type HumanWithSession = z.infer<typeof HumanWithSessionSchema>;

/**
 * POST /api/v1/auth/passkey/register/options body. `name` is required for a new account; with a valid
 * `Authorization: Passkey` the passkey is added to the signed-in account and `name` is ignored.
 */
export const PasskeyRegisterOptionsBodySchema = z.strictObject({ name: HumanNameSchema.optional() });
/** A body that must be empty (`{}`) when given: login options, key revocation, sign-out. */
export const EmptyBodySchema = z.strictObject({});
export const PasskeyLoginOptionsBodySchema = EmptyBodySchema;

const Base64UrlSchema = z.string().max(16_384).regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/**
 * A WebAuthn credential in its W3C JSON form (RegistrationResponseJSON / AuthenticationResponseJSON).
 * Its inner objects are open (browsers add fields over time); every part that matters is verified
 * cryptographically by the agents service.
 */
export const WebAuthnCredentialJsonSchema = z.looseObject({
  id: Base64UrlSchema.min(1),
  rawId: Base64UrlSchema.min(1),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: Base64UrlSchema.min(1) }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});
export type WebAuthnCredentialJson = z.infer<typeof WebAuthnCredentialJsonSchema>;

/** POST .../register/verify and .../login/verify body: the browser's credential. */
export const PasskeyVerifyBodySchema = z.strictObject({ response: WebAuthnCredentialJsonSchema });

/** Options for `navigator.credentials.create/get` (PublicKeyCredentialCreation/RequestOptionsJSON) and their expiry. */
export const PasskeyOptionsResponseSchema = z.object({
  options: z.looseObject({ challenge: z.string() }),
  expiresAt: TimestampSchema,
});

/** A signed-in human: `token` is the `Authorization: Passkey <token>` credential, shown once. */
export const HumanSessionResponseSchema = z.object({
  token: z.string(),
  expiresAt: TimestampSchema,
  human: HumanSchema,
});
export type HumanSessionResponse = z.infer<typeof HumanSessionResponseSchema>;

/** POST /api/v1/humans/me/agents body: claim an agent by presenting its key once. */
export const ClaimAgentBodySchema = z.strictObject({ agentKey: z.string().min(1).max(512) });

export const ClaimedAgentSchema = AgentSchema.extend({ claimedAt: TimestampSchema });
export type ClaimedAgent = z.infer<typeof ClaimedAgentSchema>;
export const ClaimedAgentListSchema = z.object({ agents: z.array(ClaimedAgentSchema) });
/**
 * A claimed agent as `GET /api/v1/humans/me/agents` (and `.../agents/{agentId}`) answer it: the claim plus
 * the agent's balances (live and test, micro-USD) and `lastActivityAt`, the time of its most recent ledger
 * entry (a charged call) or null (docs/authentication.md, "Claiming and managing an agent").
 */
export const ClaimedAgentOverviewSchema = ClaimedAgentSchema.extend({ balance: AgentBalancesSchema, lastActivityAt: TimestampSchema.nullable() });
export type ClaimedAgentOverview = z.infer<typeof ClaimedAgentOverviewSchema>;
export const ClaimedAgentOverviewListSchema = z.object({ agents: z.array(ClaimedAgentOverviewSchema) });

// --- bus messages (agents.v1.keys.*, agents.v1.passkeys.*, agents.v1.sessions.*, agents.v1.claims.*) ---
export const AgentsKeysListMessageSchema = z.object({ agentId: AgentIdSchema });
/**
 * Who asks for a rotation or revocation: the agent itself (Bearer key or wallet signature) or the human
 * who claimed it (passkey session). An agent's own revocation, or rotation with grace 0, also drops a
 * human's claim (docs/authentication.md). Absent (an older gateway): `agent`, the side that drops claims.
 */
export const KeyChangeRequesterSchema = z.enum(['agent', 'human']);
export type KeyChangeRequester = z.infer<typeof KeyChangeRequesterSchema>;
export const AgentsKeysRotateMessageSchema = z.object({
  agentId: AgentIdSchema,
  graceSeconds: z.number().int().min(0).max(AUTH_DEFAULTS.maxKeyRotationGraceSeconds).optional(),
  requestedBy: KeyChangeRequesterSchema.default('agent'),
});
export const AgentsKeysRevokeMessageSchema = z.object({ agentId: AgentIdSchema, keyId: z.string().min(1).max(128), requestedBy: KeyChangeRequesterSchema.default('agent') });
/** Finds the agent a wallet signature speaks for: the `local` agent with that wallet, else any agent with it; NOT_FOUND if none. */
export const AgentsFindByWalletMessageSchema = z.object({ walletAddress: WalletAddressSchema });

/** A human session's id (`ses_…`), as `agents.v1.sessions.authenticate` answers it. */
export const HumanSessionIdSchema = z.string().min(1).max(64);
/**
 * Registration options. `humanId` and `sessionId`: the signed-in human adding a passkey and the session
 * it uses (a SIWE session of an account that has passkeys may not add one: FORBIDDEN; docs/authentication.md).
 */
export const PasskeysRegisterOptionsMessageSchema = z.object({ humanId: HumanIdSchema.optional(), sessionId: HumanSessionIdSchema.optional(), name: HumanNameSchema.optional() });
export const PasskeysLoginOptionsMessageSchema = z.object({});
/**
 * A ceremony's verify step. `humanId`: the signed-in human finishing it (from `Authorization: Passkey`);
 * a registration that adds a passkey to an account must carry that account's (docs/authentication.md).
 */
export const PasskeysVerifyMessageSchema = z.object({ response: WebAuthnCredentialJsonSchema, humanId: HumanIdSchema.optional(), sessionId: HumanSessionIdSchema.optional() });
export const SessionsAuthenticateMessageSchema = z.object({ token: z.string().min(1).max(512) });
/** A valid session: its human, id, how it was opened, the wallet of a `siwe` session (else null) and expiry. */
export const SessionsAuthenticateReplySchema = z.object({
  humanId: HumanIdSchema,
  sessionId: z.string(),
  method: SessionMethodSchema,
  walletAddress: WalletAddressSchema.nullable(),
  expiresAt: TimestampSchema,
});
export const SessionsEndMessageSchema = z.object({ token: z.string().min(1).max(512) });
export const SessionsEndReplySchema = z.object({ loggedOut: z.literal(true) });
export const HumansGetMessageSchema = z.object({ humanId: HumanIdSchema });
/** A passkey's credential id as it appears in a path: base64url, 1-1366 characters (1024 bytes, the WebAuthn maximum). */
export const PasskeyIdSchema = z.string().min(1).max(1366).regex(/^[A-Za-z0-9_-]+$/, 'must be a passkey id (base64url)');
/**
 * Deletes one passkey of the human (`DELETE /api/v1/humans/me/passkeys/{passkeyId}`): never the last one
 * (FORBIDDEN); another human's or an unknown id: NOT_FOUND (docs/authentication.md, "Passkeys (humans)").
 * `sessionId`: the session asking; it stays open, every other session of the human ends.
 */
export const PasskeysDeleteMessageSchema = z.object({ humanId: HumanIdSchema, sessionId: HumanSessionIdSchema, passkeyId: PasskeyIdSchema });
/** Answer of a passkey deletion: the passkeys the account keeps (oldest first). */
export const PasskeysDeleteReplySchema = z.object({ deleted: z.literal(true), passkeys: z.array(PasskeyInfoSchema) });
export type PasskeysDeleteReply = z.infer<typeof PasskeysDeleteReplySchema>;
/** Claims the agent of `agentKey` for the human, with its session `sessionId` (a Sign in with Ethereum session: FORBIDDEN). */
export const ClaimsCreateMessageSchema = z.object({ humanId: HumanIdSchema, sessionId: HumanSessionIdSchema, agentKey: z.string().min(1).max(512) });
/**
 * The human's claims; with `sessionId`, only the agents that session reaches (a Sign in with Ethereum
 * session: its wallet's; docs/authentication.md). The gateway always sends the calling session.
 */
export const ClaimsListMessageSchema = z.object({ humanId: HumanIdSchema, sessionId: HumanSessionIdSchema.optional() });
export const ClaimsDeleteMessageSchema = z.object({ humanId: HumanIdSchema, agentId: AgentIdSchema });
export const ClaimsDeleteReplySchema = z.object({ released: z.literal(true), agentId: AgentIdSchema });
/** The agent drops whatever claim a human holds on it (`DELETE /api/v1/agents/claim`, agent key or wallet signature). */
export const ClaimsReleaseByAgentMessageSchema = z.object({ agentId: AgentIdSchema });
/** `released`: false when no human had claimed the agent. Also the HTTP answer of `DELETE /api/v1/agents/claim`. */
export const ClaimsReleaseByAgentReplySchema = z.object({ released: z.boolean() });
/**
 * The principal of a claimed agent, for a call of the human's session `sessionId` on its data; NOT_FOUND
 * when the human has not claimed it, FORBIDDEN when the session is a Sign in with Ethereum one of another
 * wallet than the agent's (docs/authentication.md).
 */
export const ClaimsResolveMessageSchema = z.object({ humanId: HumanIdSchema, sessionId: HumanSessionIdSchema, agentId: AgentIdSchema });
export const ClaimsResolveReplySchema = PrincipalSchema;
