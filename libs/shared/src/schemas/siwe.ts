import { z } from 'zod';
import { TimestampSchema } from './common';
import { WalletAddressSchema, WalletSignatureSchema } from './agents';
import { ClaimedAgentSchema, HumanIdSchema, HumanSessionIdSchema, HumanSessionResponseSchema } from './auth';

/**
 * Contracts of Sign in with Ethereum for humans (EIP-4361; docs/authentication.md, "Sign in with Ethereum
 * (humans)"): the holder of an agent's wallet signs a message this deployment prepared and gets the same
 * session as a passkey sign-in, with that agent claimed.
 */
export const SIWE_DEFAULTS = {
  /** Lifetime of a sign-in nonce and of its message's `Expiration Time`, seconds (5 min). */
  nonceTtlSeconds: 5 * 60,
  /** The message's statement: what the wallet agrees to by signing it. */
  statement: 'Sign in to the agent-memory dashboard',
} as const;

/** Longest sign-in message accepted, characters (the prepared one is ~450; docs/authentication.md). */
export const MAX_SIWE_MESSAGE = 1024;

/** POST /api/v1/auth/siwe/nonce body: the wallet that will sign (checksummed or lower case). */
export const SiweNonceBodySchema = z.strictObject({ address: WalletAddressSchema });

/** POST /api/v1/auth/siwe/nonce answer: the complete EIP-4361 message to sign unchanged, its nonce and expiry. */
export const SiweNonceResponseSchema = z.object({
  message: z.string(),
  nonce: z.string(),
  expiresAt: TimestampSchema,
});
export type SiweNonceResponse = z.infer<typeof SiweNonceResponseSchema>;

/** POST /api/v1/auth/siwe/verify body: the signed message and the wallet's EIP-191 (`personal_sign`) signature of it. */
export const SiweVerifyBodySchema = z.strictObject({
  message: z.string().min(1).max(MAX_SIWE_MESSAGE),
  signature: WalletSignatureSchema,
});

/** POST /api/v1/auth/siwe/verify answer: a passkey-style session and the agent of the wallet, claimed by the signed-in human. */
export const SiweSessionResponseSchema = HumanSessionResponseSchema.extend({ agent: ClaimedAgentSchema });
export type SiweSessionResponse = z.infer<typeof SiweSessionResponseSchema>;

// --- bus messages (agents.v1.siwe.*) ---
/**
 * Prepares a sign-in message; `origin` is the request's `Origin` header, used as the URI when it is one of
 * `PASSKEY_ORIGINS`; `humanId` the signed-in human asking (optional `Authorization: Passkey`), whom the
 * nonce is bound to: verify must come from the same human, or from nobody when nobody asked.
 */
export const SiweNonceMessageSchema = z.object({ address: WalletAddressSchema, origin: z.string().max(512).optional(), humanId: HumanIdSchema.optional() });
/**
 * Verifies a signed sign-in message; `humanId` and `sessionId` are the signed-in human and its session
 * (optional `Authorization: Passkey`): a passkey session then claims an unclaimed agent and links the
 * wallet; a Sign in with Ethereum session may not claim one (docs/authentication.md).
 */
export const SiweVerifyMessageSchema = z.object({
  message: z.string().min(1).max(MAX_SIWE_MESSAGE),
  signature: WalletSignatureSchema,
  humanId: HumanIdSchema.optional(),
  sessionId: HumanSessionIdSchema.optional(),
});
