import { cursorPages, type PageIterator } from '../pagination';
import type { Transport } from '../transport';
import type { CallOptions, FileContent, FileInfo, FilePage, ListFilesFilter, ListOptions, RawBlob, RawPutInput, RawPutResult, WriteFileInput, WrittenFile } from '../types';
import { idempotencyKey } from './idempotency';

const at = (recordId: string, tail: string) => `/records/${encodeURIComponent(recordId)}/${tail}`;

/** Files of a record (docs/api.md, "Files"; read and write are paid) and raw blobs of `local` agents (free, wallet signature only). */
export class FilesApi {
  constructor(private readonly transport: Transport) {}

  /**
   * `POST /records/{recordId}/write` `{ path, content }` (0 bytes to 1 MB of UTF-8) → `{ path, contentHash }`.
   * Carries an `idempotency_key` reused on every retry, as {@link MemoriesApi.remember}.
   */
  write(recordId: string, input: WriteFileInput, options: CallOptions = {}): Promise<WrittenFile> {
    const body = { ...input, idempotency_key: idempotencyKey(options) };
    return this.transport.request({ method: 'POST', path: at(recordId, 'write'), body, auth: 'agent', idempotent: true, paid: true }, options);
  }

  /** `GET /records/{recordId}/read?path` → `{ content, path }`; NOT_FOUND for a missing file. */
  read(recordId: string, path: string, options?: CallOptions): Promise<FileContent> {
    return this.transport.request({ method: 'GET', path: at(recordId, 'read'), query: { path }, auth: 'agent', idempotent: true, chargedPerAttempt: true, paid: true }, options);
  }

  /** `GET /records/{recordId}/files?limit&cursor&prefix`: one page of file metadata in path order (limit 1–1000, default 100). */
  page(recordId: string, query: ListFilesFilter & { limit?: number; cursor?: string } = {}, options?: CallOptions): Promise<FilePage> {
    return this.transport.request({ method: 'GET', path: at(recordId, 'files'), query, auth: 'agent', idempotent: true }, options);
  }

  /** Every file's metadata, in path order, page by page: `for await (const file of client.files.list(recordId))`. */
  list(recordId: string, filter: ListFilesFilter & ListOptions = {}): PageIterator<FileInfo, FilePage> {
    const { pageSize, prefix, ...call } = filter;
    return cursorPages((cursor) => this.page(recordId, { limit: pageSize, cursor, prefix }, call), (page) => page.files);
  }

  /**
   * `POST /records/{recordId}/raw` (local agents, wallet signature): stores an opaque blob (≤ 1 MB) →
   * `{ path, size, contentHash }`. Writing the same bytes again is harmless, so it is retried.
   */
  rawPut(recordId: string, input: RawPutInput, options?: CallOptions): Promise<RawPutResult> {
    const content = input.content instanceof Uint8Array ? toBase64(input.content) : input.content.base64;
    const body = { path: input.path, content, ...(input.contentType ? { contentType: input.contentType } : {}) };
    return this.transport.request({ method: 'POST', path: at(recordId, 'raw'), body, auth: 'signature', idempotent: true }, options);
  }

  /** `GET /records/{recordId}/raw?path` (wallet signature) → `{ path, content (base64), contentType, bytes }`. */
  async rawGet(recordId: string, path: string, options?: CallOptions): Promise<RawBlob> {
    const blob = await this.transport.request<Omit<RawBlob, 'bytes'>>({ method: 'GET', path: at(recordId, 'raw'), query: { path }, auth: 'signature', idempotent: true }, options);
    return { ...blob, bytes: fromBase64(blob.content) };
  }
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(base64: string): Uint8Array {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}
