import { offsetPages, type PageIterator } from '../pagination';
import type { Transport } from '../transport';
import type { CallOptions, CreateRecordInput, DeletedRecord, ListOptions, MemoryRecord, RecordPage, UpdateRecordInput } from '../types';

/** Records: named containers of memories and files (docs/api.md, "Records"). */
export class RecordsApi {
  constructor(private readonly transport: Transport) {}

  /** `POST /records` `{ name, tags?, category?, parentRecordId? }` → 201 record. Not retried after it may have reached the server. */
  create(input: CreateRecordInput, options?: CallOptions): Promise<MemoryRecord> {
    return this.transport.request({ method: 'POST', path: '/records', body: input, auth: 'agent' }, options);
  }

  /** `GET /records?limit&offset`: one page (limit 1–100, default 20), newest first, with `total`. */
  page(query: { limit?: number; offset?: number } = {}, options?: CallOptions): Promise<RecordPage> {
    return this.transport.request({ method: 'GET', path: '/records', query, auth: 'agent', idempotent: true }, options);
  }

  /** Every record, newest first, fetched page by page: `for await (const record of client.records.list())`. */
  list(options: ListOptions = {}): PageIterator<MemoryRecord, RecordPage> {
    const { pageSize, ...call } = options;
    return offsetPages((offset) => this.page({ limit: pageSize, offset }, call), (page) => page.records);
  }

  /** `GET /records/{recordId}`; NOT_FOUND for a record that is not the caller's. */
  get(recordId: string, options?: CallOptions): Promise<MemoryRecord> {
    return this.transport.request({ method: 'GET', path: `/records/${encodeURIComponent(recordId)}`, auth: 'agent', idempotent: true }, options);
  }

  /** `PATCH /records/{recordId}`: at least one of `name`, `tags`, `category`, `parentRecordId` (null detaches). */
  update(recordId: string, input: UpdateRecordInput, options?: CallOptions): Promise<MemoryRecord> {
    return this.transport.request({ method: 'PATCH', path: `/records/${encodeURIComponent(recordId)}`, body: input, auth: 'agent', idempotent: true }, options);
  }

  /**
   * `DELETE /records/{recordId}` (`cascade: true` also deletes child records; without it a record with
   * children is VALIDATION_ERROR). Its memories and files are purged.
   */
  delete(recordId: string, input: { cascade?: boolean } = {}, options?: CallOptions): Promise<DeletedRecord> {
    return this.transport.request({ method: 'DELETE', path: `/records/${encodeURIComponent(recordId)}`, query: input.cascade ? { cascade: 'true' } : undefined, auth: 'agent' }, options);
  }
}
