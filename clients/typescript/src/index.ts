/**
 * `@agent-memory/client`: the TypeScript client of the agent-memory HTTP API (docs/api.md). Runs on
 * Node 20+ and in browsers (`fetch` and WebCrypto only); viem and mppx are loaded only when a wallet
 * signs or pays.
 */
export { AgentMemory, type AgentMemoryOptions, type CreateAgentOptions } from './client';
export {
  AgentMemoryError,
  AgentMemoryNetworkError,
  ForbiddenError,
  InternalError,
  NotFoundError,
  PaymentRefusedError,
  PaymentRequiredError,
  RateLimitedError,
  UnauthorizedError,
  ValidationError,
} from './errors';
export type { PageIterator } from './pagination';
export type { PaymentOptions } from './payments';
export type { RetryOptions } from './retry';
export { signatureMessage, type Hex, type SignatureRealm, type WalletAccount, type WalletOption } from './signature';
export type { AgentsApi, KeysApi } from './resources/agents';
export type { BillingApi } from './resources/billing';
export type { FilesApi } from './resources/files';
export type { HumansApi } from './resources/humans';
export type { MemoriesApi } from './resources/memories';
export type { RecordsApi } from './resources/records';
export type * from './types';
