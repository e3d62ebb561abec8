import { z } from 'zod';
import { DEFAULT_AGENT_CATEGORY, LIMITS } from '../limits';
import { AgentIdSchema, CategorySchema, plainText, RecordIdSchema, TagsSchema, TimestampSchema } from './common';

export const AGENT_MODES = ['cloud', 'local'] as const;
export const AgentModeSchema = z.enum(AGENT_MODES);
export type AgentMode = z.infer<typeof AgentModeSchema>;

/** Key environments of the agent key formats `<prefix>_live_<secret>` and `<prefix>_test_<secret>`. */
export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export const KeyEnvironmentSchema = z.enum(KEY_ENVIRONMENTS);
export type KeyEnvironment = z.infer<typeof KeyEnvironmentSchema>;

/** Length of the random part of an agent key or session credential: 43 base62 characters ≈ 256 bits. */
export const KEY_SECRET_LENGTH = 43;

/**
 * The agent key format `<prefix>_<environment>_<secret>` (docs/authentication.md, "Agent keys"): the
 * prefix (`amk` by default; an operator may set another of 2–16 lowercase letters and digits), the
 * environment `live` or `test`, the secret 43 base62 characters. Groups: 1 prefix, 2 environment, 3 secret.
 * Linear to match (no nested quantifiers).
 */
export const AGENT_KEY_FORMAT = new RegExp(`^([a-z][a-z0-9]{1,15})_(${KEY_ENVIRONMENTS.join('|')})_([0-9A-Za-z]{${KEY_SECRET_LENGTH}})$`);

export const WalletAddressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

/** A 65-byte EIP-191 signature: `0x` + 130 hex digits (`r || s || v`). */
export const WalletSignatureSchema = z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 0x-prefixed 65-byte hex signature');

/** Longest wallet challenge message (an EIP-4361 message of ~400 characters; docs/authentication.md). */
const MAX_WALLET_CHALLENGE_MESSAGE = 2048;

/**
 * Proof that the client holds `walletAddress`'s private key: the EIP-4361 (SIWE) message answered by
 * `POST /api/v1/agents/wallet-challenge`, unchanged, and the wallet's EIP-191 signature of it.
 */
export const WalletProofSchema = z.strictObject({
  message: z.string().min(1).max(MAX_WALLET_CHALLENGE_MESSAGE),
  signature: WalletSignatureSchema,
});
export type WalletProof = z.infer<typeof WalletProofSchema>;

/**
 * POST /api/v1/agents body. `walletAddress`, `walletProof` and `environment` are our additions
 * (docs/api.md). A client-supplied `walletAddress` is bound only with a `walletProof` of it
 * (docs/authentication.md, "Binding your own wallet"); without one the service generates a wallet.
 */
export const CreateAgentBodySchema = z
  .strictObject({
    name: plainText(LIMITS.agentName.min, LIMITS.agentName.max),
    mode: AgentModeSchema.default('cloud'),
    tags: TagsSchema.default([]),
    category: CategorySchema.default(DEFAULT_AGENT_CATEGORY),
    walletAddress: WalletAddressSchema.optional(),
    walletProof: WalletProofSchema.optional(),
    environment: KeyEnvironmentSchema.default('live'),
  })
  .superRefine((body, ctx) => {
    if (body.walletAddress !== undefined && body.walletProof === undefined) {
      ctx.addIssue({ code: 'custom', path: ['walletProof'], message: 'required with walletAddress: sign the message of POST /api/v1/agents/wallet-challenge with that wallet (docs/authentication.md)' });
    }
    if (body.walletProof !== undefined && body.walletAddress === undefined) {
      ctx.addIssue({ code: 'custom', path: ['walletAddress'], message: 'required with walletProof' });
    }
  });
export type CreateAgentBody = z.infer<typeof CreateAgentBodySchema>;

/** Create-agent response data: the key and (if generated) the wallet's private key are shown once. */
export const CreateAgentResponseSchema = z.object({
  agentId: AgentIdSchema,
  agentKey: z.string(),
  recordId: RecordIdSchema,
  walletAddress: WalletAddressSchema,
  walletPrivateKey: z.string().optional(),
  mode: AgentModeSchema,
});
export type CreateAgentResponse = z.infer<typeof CreateAgentResponseSchema>;

/** GET /api/v1/agents response data (docs/api.md, "Agents and keys"). */
export const AgentSchema = z.object({
  id: AgentIdSchema,
  name: z.string(),
  mode: AgentModeSchema,
  tags: z.array(z.string()),
  category: z.string(),
  walletAddress: WalletAddressSchema,
  recordId: RecordIdSchema,
  keyEnvironment: KeyEnvironmentSchema,
  createdAt: TimestampSchema,
});
export type Agent = z.infer<typeof AgentSchema>;

/** The authenticated caller, as the gateway passes it to the services. */
export const PrincipalSchema = z.object({
  agentId: AgentIdSchema,
  keyEnvironment: KeyEnvironmentSchema,
  mode: AgentModeSchema,
});
export type Principal = z.infer<typeof PrincipalSchema>;

/** POST /api/v1/agents/wallet-challenge body: the wallet to prove. */
export const WalletChallengeBodySchema = z.strictObject({ walletAddress: WalletAddressSchema });

/**
 * POST /api/v1/agents/wallet-challenge answer: the EIP-4361 message to sign (it names this deployment's
 * domain and chain id, the wallet, a single-use nonce and its expiry), its nonce and expiry.
 */
export const WalletChallengeResponseSchema = z.object({
  message: z.string(),
  nonce: z.string(),
  expiresAt: TimestampSchema,
});
export type WalletChallengeResponse = z.infer<typeof WalletChallengeResponseSchema>;

// --- bus messages (agents.v1.*) ---
export const AgentsCreateMessageSchema = z.object({ body: CreateAgentBodySchema });
export const AgentsWalletChallengeMessageSchema = WalletChallengeBodySchema;
export const AgentsGetMessageSchema = z.object({ agentId: AgentIdSchema });
export const AgentsAuthenticateKeyMessageSchema = z.object({ agentKey: z.string().min(1).max(512) });
/** The key's principal and when the key ends (null: no end), so the gateway never caches it longer. */
export const AgentsAuthenticateKeyReplySchema = PrincipalSchema.extend({ keyExpiresAt: z.iso.datetime().nullable().optional() });
export const AgentsGetWalletMessageSchema = z.object({ agentId: AgentIdSchema });
export const AgentsGetWalletReplySchema = z.object({ agentId: AgentIdSchema, mode: AgentModeSchema, walletAddress: WalletAddressSchema, keyEnvironment: KeyEnvironmentSchema });
