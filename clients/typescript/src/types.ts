/**
 * Request and answer types of the HTTP interface, taken from the zod schemas of libs/shared (the source of
 * docs/api.md): `z.input` for what the client sends (defaults optional), `z.infer` for what the server
 * answers. Type-only imports: nothing of libs/shared or zod is loaded at run time, and the published
 * declaration files carry these types inlined.
 */
import type { z } from 'zod';
import type {
  AgentSchema,
  BalanceResponseSchema,
  ClaimedAgentOverviewListSchema,
  ClaimedAgentOverviewSchema,
  ClaimedAgentSchema,
  ClaimsDeleteReplySchema,
  ContextResponseSchema,
  CreateAgentBodySchema,
  CreateAgentResponseSchema,
  CreateRecordBodySchema,
  DeleteRecordResponseSchema,
  ForgetResponseSchema,
  HumanSchema,
  HumanSessionResponseSchema,
  HumanWithSessionSchema,
  LedgerEntrySchema,
  ListFilesQuerySchema,
  ListFilesResponseSchema,
  ListMemoriesQuerySchema,
  ListMemoriesResponseSchema,
  FileInfoSchema,
  ContextItemSchema,
  PasskeyOptionsResponseSchema,
  SiweNonceResponseSchema,
  SiweSessionResponseSchema,
  PasskeysDeleteReplySchema,
  PricesResponseSchema,
  RawGetResponseSchema,
  RawPutResponseSchema,
  ReadFileResponseSchema,
  RecallBodySchema,
  RecallResponseSchema,
  RecordListSchema,
  RecordSchema,
  RememberBodySchema,
  RememberResponseSchema,
  RevokeKeyResponseSchema,
  RotateKeyBodySchema,
  RotateKeyResponseSchema,
  AgentKeyListSchema,
  AgentKeyInfoSchema,
  TopUpResponseSchema,
  UpdateRecordBodySchema,
  UsageQuerySchema,
  UsageResponseSchema,
  WalletChallengeResponseSchema,
  WebAuthnCredentialJsonSchema,
  WriteFileBodySchema,
  WriteFileResponseSchema,
} from '@agent-memory/shared';

export type { ErrorCode, MemoryType, AgentMode, KeyEnvironment, PaidOperation, BillingMode } from '@agent-memory/shared';

// --- agents and keys (docs/api.md, "Agents and keys") ---
/** `POST /agents` body: `name` required; `mode`, `tags`, `category`, `environment` have defaults. */
export type CreateAgentInput = z.input<typeof CreateAgentBodySchema>;
/** `POST /agents` answer: `agentKey` and (for a generated wallet) `walletPrivateKey` are shown once. */
export type CreatedAgent = z.infer<typeof CreateAgentResponseSchema>;
export type Agent = z.infer<typeof AgentSchema>;
export type WalletChallenge = z.infer<typeof WalletChallengeResponseSchema>;
export type AgentKeyInfo = z.infer<typeof AgentKeyInfoSchema>;
export type AgentKeyList = z.infer<typeof AgentKeyListSchema>;
export type RotateKeyInput = z.input<typeof RotateKeyBodySchema>;
export type RotatedKey = z.infer<typeof RotateKeyResponseSchema>;
export type RevokedKey = z.infer<typeof RevokeKeyResponseSchema>;

// --- records ---
export type CreateRecordInput = z.input<typeof CreateRecordBodySchema>;
export type UpdateRecordInput = z.input<typeof UpdateRecordBodySchema>;
/** A record `{ id, name, tags, category, parentRecordId, createdAt, updatedAt }`. */
export type MemoryRecord = z.infer<typeof RecordSchema>;
export type RecordPage = z.infer<typeof RecordListSchema>;
export type DeletedRecord = z.infer<typeof DeleteRecordResponseSchema>;

// --- memories ---
/** Remember body without `idempotency_key`: the client sets that itself (see {@link CallOptions.idempotencyKey}). */
export type RememberInput = Omit<z.input<typeof RememberBodySchema>, 'idempotency_key'>;
export type RememberedMemory = z.infer<typeof RememberResponseSchema>;
export type RecallInput = z.input<typeof RecallBodySchema>;
export type RecallResult = z.infer<typeof RecallResponseSchema>;
/** Forget target: exactly one of `path` or `id`. */
export type ForgetInput = { path: string; id?: never } | { id: string; path?: never };
export type ForgetResult = z.infer<typeof ForgetResponseSchema>;
export type MemoryContext = z.infer<typeof ContextResponseSchema>;
/** A memory with its content, as context and the memory listing answer it. */
export type MemoryItem = z.infer<typeof ContextItemSchema>;
/** `GET /records/{id}/memories` filters: `type` keeps one memory type. */
export type ListMemoriesFilter = Pick<z.input<typeof ListMemoriesQuerySchema>, 'type'>;
export type MemoryPage = z.infer<typeof ListMemoriesResponseSchema>;

// --- files ---
export type WriteFileInput = Omit<z.input<typeof WriteFileBodySchema>, 'idempotency_key'>;
export type WrittenFile = z.infer<typeof WriteFileResponseSchema>;
export type FileContent = z.infer<typeof ReadFileResponseSchema>;
/** A file's metadata `{ path, size, contentHash, createdAt, updatedAt }`. */
export type FileInfo = z.infer<typeof FileInfoSchema>;
/** `GET /records/{id}/files` filters: `prefix` keeps the paths that start with it. */
export type ListFilesFilter = Pick<z.input<typeof ListFilesQuerySchema>, 'prefix'>;
export type FilePage = z.infer<typeof ListFilesResponseSchema>;
/** Raw blob upload: `content` as bytes (encoded to base64 by the client) or already base64. */
export interface RawPutInput {
  path: string;
  content: Uint8Array | { base64: string };
  contentType?: string;
}
export type RawPutResult = z.infer<typeof RawPutResponseSchema>;
/** Raw blob as the server answers it (`content` base64) plus `bytes`, the decoded content. */
export type RawBlob = z.infer<typeof RawGetResponseSchema> & { bytes: Uint8Array };

// --- billing (docs/billing.md) ---
export type Prices = z.infer<typeof PricesResponseSchema>;
export type BalanceInfo = z.infer<typeof BalanceResponseSchema>;
export type TopUpResult = z.infer<typeof TopUpResponseSchema>;
/** `GET /billing/usage` filters (without `limit`/`offset`, which the iterator drives). */
export type UsageFilter = Omit<z.input<typeof UsageQuerySchema>, 'limit' | 'offset'>;
export type UsagePage = z.infer<typeof UsageResponseSchema>;
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;
/** A USD amount: a decimal string (`"10.00"`) or a number, 0.05 to 1,000, at most 6 decimals. */
export type UsdAmount = string | number;

// --- humans and passkeys ---
export type Human = z.infer<typeof HumanSchema>;
/**
 * `GET /humans/me`: the account and the session of the call, `session: { method, walletAddress, expiresAt }`
 * (`method` `siwe`: a Sign in with Ethereum session, which reaches only the agents of `walletAddress`).
 */
export type HumanWithSession = z.infer<typeof HumanWithSessionSchema>;
export type HumanSession = z.infer<typeof HumanSessionResponseSchema>;
export type PasskeyOptions = z.infer<typeof PasskeyOptionsResponseSchema>;
/** `POST /auth/siwe/nonce`: the EIP-4361 message to sign unchanged, its nonce and expiry. */
export type SiweNonce = z.infer<typeof SiweNonceResponseSchema>;
/** `POST /auth/siwe/verify`: a session as a passkey sign-in answers it, and the wallet's agent (claimed). */
export type SiweSession = z.infer<typeof SiweSessionResponseSchema>;
/** Answer of `DELETE /humans/me/passkeys/{passkeyId}`: the passkeys the account keeps. */
export type DeletedPasskey = z.infer<typeof PasskeysDeleteReplySchema>;
export type WebAuthnCredentialJson = z.input<typeof WebAuthnCredentialJsonSchema>;
/** The answer of a claim (`POST /humans/me/agents`): the agent and `claimedAt`. */
export type ClaimedAgent = z.infer<typeof ClaimedAgentSchema>;
/**
 * A claimed agent as listed (`GET /humans/me/agents`, `GET /humans/me/agents/{agentId}`): the claim plus
 * `balance` (`{ live, test }`, each `{ agentId, environment, balanceMicroUsd }`) and `lastActivityAt` (the
 * time of its most recent ledger entry, or null).
 */
export type ClaimedAgentOverview = z.infer<typeof ClaimedAgentOverviewSchema>;
/** `GET /humans/me/agents`: `{ agents: ClaimedAgentOverview[] }`. */
export type ClaimedAgentList = z.infer<typeof ClaimedAgentOverviewListSchema>;
export type ReleasedClaim = z.infer<typeof ClaimsDeleteReplySchema>;

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (no retry after an abort). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
  /**
   * remember and files.write only: the `idempotency_key` (1–255 characters) sent on every attempt. Default:
   * one `crypto.randomUUID()` per call, so retries of one call never write or charge twice
   * (docs/api.md, "Idempotency keys").
   */
  idempotencyKey?: string;
}

/** Options of a listing: page size (1–100) and where to start. */
export interface ListOptions extends Omit<CallOptions, 'idempotencyKey'> {
  /** Items per request, 1–100 (default 20 on the server). */
  pageSize?: number;
}
