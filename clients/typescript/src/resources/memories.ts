import { cursorPages, type PageIterator } from '../pagination';
import type { Transport } from '../transport';
import type { CallOptions, ForgetInput, ForgetResult, ListMemoriesFilter, ListOptions, MemoryContext, MemoryItem, MemoryPage, RecallInput, RecallResult, RememberedMemory, RememberInput } from '../types';
import { idempotencyKey } from './idempotency';

const at = (recordId: string, tail: string) => `/records/${encodeURIComponent(recordId)}/${tail}`;

/**
 * Memories of a record (docs/api.md, "Memories"). Each call is paid (0.05 USD: from the balance, or with
 * a Payment credential when `payments` is enabled) and rate limited per record.
 */
export class MemoriesApi {
  constructor(private readonly transport: Transport) {}

  /**
   * `POST /records/{recordId}/remember` `{ content, type?, path? }` → `{ id, path, type, summary }`.
   * Carries an `idempotency_key` (`options.idempotencyKey`, else a fresh UUID per call) reused on every
   * retry, so a retried remember stores one memory and is charged once (docs/api.md, "Idempotency keys").
   */
  remember(recordId: string, input: RememberInput, options: CallOptions = {}): Promise<RememberedMemory> {
    const body = { ...input, idempotency_key: idempotencyKey(options) };
    return this.transport.request({ method: 'POST', path: at(recordId, 'remember'), body, auth: 'agent', idempotent: true, paid: true }, options);
  }

  /**
   * `POST /records/{recordId}/recall` `{ query, limit?, types? }` → ranked `{ memories, count }`. Paid per
   * query: not repeated after the request may have reached the server unless `retries.paidReads` is set.
   */
  recall(recordId: string, input: RecallInput, options?: CallOptions): Promise<RecallResult> {
    return this.transport.request({ method: 'POST', path: at(recordId, 'recall'), body: input, auth: 'agent', idempotent: true, chargedPerAttempt: true, paid: true }, options);
  }

  /**
   * `DELETE /records/{recordId}/remember` with exactly one of `path` or `id` → `{ deleted, path }`.
   * Not repeated after a lost answer (a repeat would be NOT_FOUND for a memory already forgotten).
   */
  forget(recordId: string, target: ForgetInput, options?: CallOptions): Promise<ForgetResult> {
    return this.transport.request({ method: 'DELETE', path: at(recordId, 'remember'), body: target, auth: 'agent', paid: true }, options);
  }

  /** `GET /records/{recordId}/context?limit` (per type, 1–200, default 50) → newest memories under the five type keys. */
  context(recordId: string, query: { limit?: number } = {}, options?: CallOptions): Promise<MemoryContext> {
    return this.transport.request({ method: 'GET', path: at(recordId, 'context'), query, auth: 'agent', idempotent: true, chargedPerAttempt: true, paid: true }, options);
  }

  /** `GET /records/{recordId}/memories?limit&cursor&type`: one page in path order (limit 1–200, default 50); paid per page. */
  page(recordId: string, query: ListMemoriesFilter & { limit?: number; cursor?: string } = {}, options?: CallOptions): Promise<MemoryPage> {
    return this.transport.request({ method: 'GET', path: at(recordId, 'memories'), query, auth: 'agent', idempotent: true, chargedPerAttempt: true, paid: true }, options);
  }

  /** Every memory of the record with its content, in path order, page by page (each page is a paid call). */
  list(recordId: string, filter: ListMemoriesFilter & ListOptions = {}): PageIterator<MemoryItem, MemoryPage> {
    const { pageSize, type, ...call } = filter;
    return cursorPages((cursor) => this.page(recordId, { limit: pageSize, cursor, type }, call), (page) => page.memories);
  }
}
