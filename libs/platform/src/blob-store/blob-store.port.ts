/**
 * Port: the blob store holding memory content, file content and raw blobs. Adapters:
 * `filesystem.blob-store.ts` (standalone, under the data directory) and `s3.blob-store.ts` (cluster,
 * MinIO or any S3). Keys are built by the owning service from ids and hashes only
 * (`records/<recordId>/memories/<memoryId>/<sha256>`), never from user paths, and checked by
 * {@link assertBlobKey}.
 */
export interface BlobStore {
  /** Writes `data` under `key` atomically (a reader sees the old or the new bytes, never a mix). */
  put(key: string, data: Buffer, contentType?: string): Promise<void>;
  /** The bytes under `key`, or null when absent. */
  get(key: string): Promise<Buffer | null>;
  /** Deletes the keys; absent keys are ignored. */
  delete(keys: readonly string[]): Promise<void>;
  /** Deletes every key that starts with `prefix` (which must end with `/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys under `prefix`, for tests and audits. */
  list(prefix: string): Promise<string[]>;
}
export const BLOB_STORE = Symbol('BlobStore');

const KEY_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

/** Throws unless `key` is `/`-separated segments of `[A-Za-z0-9_.:-]` (no `.`/`..`, no empty segment). */
export function assertBlobKey(key: string, allowTrailingSlash = false): void {
  const body = allowTrailingSlash && key.endsWith('/') ? key.slice(0, -1) : key;
  const segments = body.split('/');
  if (segments.length === 0 || segments.some((s) => !KEY_SEGMENT.test(s) || s === '.' || s === '..')) {
    throw new Error(`Invalid blob key ${JSON.stringify(key)}`);
  }
}
