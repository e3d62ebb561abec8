import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';
import { Client } from 'minio';
import { assertBlobKey, type BlobStore } from './blob-store.port';

/** Connection settings of {@link S3BlobStore}; the cluster fills them from `S3_*` (docs/configuration.md). */
export interface S3BlobStoreOptions {
  /** Base URL of the S3 endpoint, `http(s)://host[:port]` (`S3_ENDPOINT`, e.g. `http://minio:9000`). A path is not allowed. */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** Bucket holding every blob (`S3_BUCKET`, default `agent-memory`). */
  bucket: string;
  /** Region sent in signatures and used when creating the bucket (`S3_REGION`); default `us-east-1`. */
  region?: string;
  /** Path-style addressing (`host/bucket/key`), which MinIO and most S3 servers expect; default true. */
  pathStyle?: boolean;
  /**
   * Objects larger than this many bytes are sent as a multipart upload in parts of this size; smaller ones
   * in one PUT. Default 64 MiB (the minio client's own default); S3 requires at least 5 MiB.
   */
  partSizeBytes?: number;
  /**
   * A request is aborted (rejecting with `code: 'ETIMEDOUT'`) when its connection sees no traffic for
   * this many ms (connecting, waiting for the answer, or mid-body); default 30 000. The minio client has
   * no timeout of its own, so a hung S3 front would otherwise hold a request (and a purge job) forever.
   */
  requestTimeoutMs?: number;
}

const DEFAULT_PART_SIZE = 64 * 1024 * 1024;
const MIN_PART_SIZE = 5 * 1024 * 1024;
/** S3 DeleteObjects accepts at most 1000 keys per request. */
const DELETE_BATCH = 1000;
/** Default of {@link S3BlobStoreOptions.requestTimeoutMs}. */
export const S3_REQUEST_TIMEOUT_MS = 30_000;

/**
 * The minio client's `transport` (`http`/`https` `request`) with an inactivity timeout on every request:
 * after `timeoutMs` ms without socket traffic the request is destroyed with an `ETIMEDOUT` error, which
 * rejects the pending minio call (or errors the response stream being read).
 */
function timedTransport(base: typeof http | typeof https, timeoutMs: number): Pick<typeof http, 'request'> {
  const request = ((...args: Parameters<typeof http.request>) => {
    const req = (base.request)(...args);
    req.setTimeout(timeoutMs, () => {
      const err = Object.assign(new Error(`S3 request timed out after ${timeoutMs} ms without traffic`), { code: 'ETIMEDOUT' });
      req.destroy(err);
    });
    return req;
  }) as typeof http.request;
  return { request };
}

/** Error code of an S3 error raised by the minio client, if any. */
function s3ErrorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Cluster {@link BlobStore} on MinIO or any S3-compatible server, through the `minio` client (docs/architecture.md,
 * "Ports and adapters"). One object per key in one bucket; keys are the services' own keys
 * (`records/<recordId>/...`), checked with {@link assertBlobKey} before any request.
 *
 * - `put` is one PUT (or one multipart upload above `partSizeBytes`): S3 makes either atomic, so a
 *   reader sees the old or the new bytes.
 * - `list`/`deletePrefix` treat the prefix as a directory (`a/b` and `a/b/` both mean `a/b/`), like
 *   the filesystem adapter, so `records/rec_1` never matches `records/rec_10/...`.
 * - The minio client's own retry is off: it logs to the console and cannot replay a streamed body.
 *   Retrying belongs to the callers (durable purge jobs, the agent repeating a failed call).
 *
 * Errors: S3 failures reject with the minio client's error (`code` is the S3 error code, e.g.
 * `ServiceUnavailable`, `AccessDenied`); a request without traffic for `requestTimeoutMs` rejects with
 * `code: 'ETIMEDOUT'`; an invalid key rejects before any request.
 */
export class S3BlobStore implements BlobStore {
  private readonly client: Client;
  private readonly bucket: string;
  private readonly region: string;
  private readonly partSize: number;

  constructor(options: S3BlobStoreOptions) {
    const url = new URL(options.endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`S3 endpoint must be http(s): ${options.endpoint}`);
    if (url.pathname !== '/' && url.pathname !== '') throw new Error(`S3 endpoint must not have a path: ${options.endpoint}`);
    const useSSL = url.protocol === 'https:';
    this.bucket = options.bucket;
    this.region = options.region ?? 'us-east-1';
    this.partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE;
    if (this.partSize < MIN_PART_SIZE) throw new Error(`S3 part size must be at least ${MIN_PART_SIZE} bytes`);
    this.client = new Client({
      endPoint: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port ? Number(url.port) : useSSL ? 443 : 80,
      useSSL,
      accessKey: options.accessKey,
      secretKey: options.secretKey,
      region: this.region,
      pathStyle: options.pathStyle ?? true,
      partSize: this.partSize,
      retryOptions: { disableRetry: true },
      transport: timedTransport(useSSL ? https : http, options.requestTimeoutMs ?? S3_REQUEST_TIMEOUT_MS),
    });
  }

  /**
   * Creates the bucket unless it exists. Idempotent and safe when several replicas start at once: a
   * concurrent creator's `BucketAlreadyOwnedByYou`/`BucketAlreadyExists` counts as success once the
   * bucket answers. Call once at start-up, before serving.
   */
  async ensureBucket(): Promise<void> {
    if (await this.client.bucketExists(this.bucket)) return;
    try {
      await this.client.makeBucket(this.bucket, this.region);
    } catch (err) {
      const code = s3ErrorCode(err);
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
      // BucketAlreadyExists may also mean "owned by someone else": only accept it if we can reach it.
      if (!(await this.client.bucketExists(this.bucket))) throw err;
    }
  }

  /** Readiness probe: resolves when the server answers and the bucket exists; rejects otherwise. */
  async ping(): Promise<void> {
    if (!(await this.client.bucketExists(this.bucket))) throw new Error(`S3 bucket ${this.bucket} does not exist`);
  }

  async put(key: string, data: Buffer, contentType = 'application/octet-stream'): Promise<void> {
    assertBlobKey(key);
    const meta = { 'Content-Type': contentType };
    // The minio client sends a Buffer in one PUT whatever its size; a stream above the part size goes multipart.
    const body = data.length > this.partSize ? Readable.from([data]) : data;
    await this.client.putObject(this.bucket, key, body, data.length, meta);
  }

  async get(key: string): Promise<Buffer | null> {
    assertBlobKey(key);
    let stream: Readable;
    try {
      stream = await this.client.getObject(this.bucket, key);
    } catch (err) {
      if (s3ErrorCode(err) === 'NoSuchKey') return null;
      throw err;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) assertBlobKey(key);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) await this.removeBatch(keys.slice(i, i + DELETE_BATCH));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobKey(prefix, true);
    if (!prefix.endsWith('/')) throw new Error('A blob prefix must end with "/"');
    // Delete page by page while listing, so memory stays bounded however many objects the prefix holds.
    let batch: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, prefix, true) as AsyncIterable<{ name?: string }>) {
      if (!item.name) continue;
      batch.push(item.name);
      if (batch.length === DELETE_BATCH) {
        await this.removeBatch(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await this.removeBatch(batch);
  }

  async list(prefix: string): Promise<string[]> {
    assertBlobKey(prefix, true);
    const dir = prefix.endsWith('/') ? prefix : `${prefix}/`;
    const out: string[] = [];
    for await (const item of this.client.listObjectsV2(this.bucket, dir, true) as AsyncIterable<{ name?: string }>) if (item.name) out.push(item.name);
    return out.sort();
  }

  /** One DeleteObjects request (≤ 1000 keys); absent keys are not errors in S3, any per-key error is. */
  private async removeBatch(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const results = await this.client.removeObjects(this.bucket, [...keys]);
    const failed = results.filter((r) => r?.Error && r.Error.Code !== 'NoSuchKey');
    if (failed.length > 0) {
      const first = failed[0]!.Error!;
      throw Object.assign(new Error(`S3 delete failed for ${failed.length} key(s), first ${first.Key}: ${first.Code} ${first.Message ?? ''}`.trim()), {
        code: first.Code,
      });
    }
  }
}
