import { AgentMemory } from '@agent-memory/client';
import type { MemoryApi } from './memory-api';

/** Where the service is and which agent to act as. */
export interface ServiceAccess {
  /** The service's base URL, e.g. `http://127.0.0.1:8080` (the SDK adds `/api/v1`). */
  baseUrl: string;
  /** The agent key (`amk_live_…`, `amk_test_…`). */
  apiKey: string;
}

/**
 * Longest `Retry-After` a tool call waits out before answering RATE_LIMITED (the SDK's default is 60 s):
 * a model is better told at once to retry later than kept waiting a minute for its tool.
 */
export const MAX_WAIT_FOR_RATE_LIMIT_MS = 10_000;

/**
 * {@link MemoryApi} over the SDK `@agent-memory/client`: one SDK client per agent key, so every tool call
 * is an HTTP call of that agent (its retries of 429 and network errors, its idempotency keys for
 * remember and write_file, its typed errors). A tool's `idempotency_key` is passed to the SDK, which
 * otherwise makes one per call.
 */
export function sdkMemoryApi(access: ServiceAccess): MemoryApi {
  const client = new AgentMemory({ baseUrl: access.baseUrl, apiKey: access.apiKey, retries: { maxRetryAfterMs: MAX_WAIT_FOR_RATE_LIMIT_MS } });
  return {
    remember: ({ record_id, idempotency_key, ...input }, signal) => client.memories.remember(record_id, input, { idempotencyKey: idempotency_key, signal }),
    recall: ({ record_id, ...input }, signal) => client.memories.recall(record_id, input, { signal }),
    forget: (recordId, target, signal) => client.memories.forget(recordId, target, { signal }),
    context: ({ record_id, limit }, signal) => client.memories.context(record_id, { limit }, { signal }),
    readFile: ({ record_id, path }, signal) => client.files.read(record_id, path, { signal }),
    writeFile: ({ record_id, idempotency_key, ...input }, signal) => client.files.write(record_id, input, { idempotencyKey: idempotency_key, signal }),
    listRecords: (query, signal) => client.records.page(query, { signal }),
  };
}
