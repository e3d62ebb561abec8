import { z } from 'zod';
import { DEFAULT_AGENT_CATEGORY, LIMITS } from '../limits';
import { AgentIdSchema, CategorySchema, plainText, RecordIdSchema, TagsSchema, TimestampSchema } from './common';

export const AGENT_MODES = ['cloud', 'local'] as const;
export const AgentModeSchema = z.enum(AGENT_MODES);
export type AgentMode = z.infer<typeof AgentModeSchema>;

/** Key environments of the spec's key formats `<prefix>_live_<secret>` and `<prefix>_test_<secret>`. */
export const KEY_ENVIRONMENTS = ['live', 'test'] as const;
export const KeyEnvironmentSchema = z.enum(KEY_ENVIRONMENTS);
export type KeyEnvironment = z.infer<typeof KeyEnvironmentSchema>;

export const WalletAddressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

/** POST /api/v1/agents body. `walletAddress` and `environment` are our additions (docs/api.md). */
export const CreateAgentBodySchema = z.strictObject({
  name: plainText(LIMITS.agentName.min, LIMITS.agentName.max),
  mode: AgentModeSchema.default('cloud'),
  tags: TagsSchema.default([]),
  category: CategorySchema.default(DEFAULT_AGENT_CATEGORY),
  walletAddress: WalletAddressSchema.optional(),
  environment: KeyEnvironmentSchema.default('live'),
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

/** GET /api/v1/agents response data (the spec leaves the shape open). */
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

// --- bus messages (agents.v1.*) ---
export const AgentsCreateMessageSchema = z.object({ body: CreateAgentBodySchema });
export const AgentsGetMessageSchema = z.object({ agentId: AgentIdSchema });
export const AgentsAuthenticateKeyMessageSchema = z.object({ agentKey: z.string().min(1).max(512) });
export const AgentsAuthenticateKeyReplySchema = PrincipalSchema;
export const AgentsGetWalletMessageSchema = z.object({ agentId: AgentIdSchema });
export const AgentsGetWalletReplySchema = z.object({ agentId: AgentIdSchema, mode: AgentModeSchema, walletAddress: WalletAddressSchema, keyEnvironment: KeyEnvironmentSchema });
