import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The part of s3rver 3.7.1's filesystem store patched by {@link hardenStore} (the package ships no types). */
interface S3rverStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: unknown }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
  deleteObject(bucket: string, key: string): Promise<void>;
  listObjects(bucket: string, options: unknown): Promise<unknown>;
}
/** The part of s3rver 3.7.1's API used here. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
  store: S3rverStore;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;
// eslint-disable-next-line @typescript-eslint/no-require-imports -- s3rver ships no type declarations; its shape is declared above
const S3rver = require('s3rver') as S3rverConstructor;

const errnoCode = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** Retries `fn` while it fails with one of `codes` (a filesystem race with a concurrent request), up to 5 tries. */
async function retryOn<T>(codes: readonly string[], fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5 || !codes.includes(errnoCode(err) ?? '')) throw err;
      await new Promise((resolve) => setTimeout(resolve, attempt * 5));
    }
  }
}

/**
 * Writes `content` to `target` through a temporary file in the same directory, resolving once the bytes
 * are on disk and renamed into place; returns size and MD5 (hex). The open is retried when a concurrent
 * delete removed the (empty) directory between mkdir and open; once the temporary file exists the
 * directory is not empty and cannot be removed.
 */
async function writeAtomically(target: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> {
  const tmp = `${target}.${randomBytes(6).toString('hex')}.upload`;
  const handle = await retryOn(['ENOENT'], async () => {
    await mkdir(dirname(target), { recursive: true });
    return open(tmp, 'w');
  });
  const md5 = createHash('md5');
  let size = 0;
  try {
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, counter, handle.createWriteStream());
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  } finally {
    await handle.close().catch(() => undefined);
  }
  return { size, md5: md5.digest('hex') };
}

/**
 * Makes s3rver's filesystem store safe under concurrent requests, as a real S3 server is. As shipped it
 * answers a PUT (and an UploadPart) before the bytes are flushed, writes objects in place (a reader can
 * see a torn object), and its directory clean-up after a delete races with other deletes, listings and
 * puts in the same directory (500 on ENOENT/ENOTEMPTY). Listings come in one page (no continuation
 * token: s3rver's needs DES, absent from OpenSSL 3, and answers 500 past 1000 keys). Patched on the
 * instance only.
 */
function hardenStore(store: S3rverStore): void {
  const deleteObject = store.deleteObject.bind(store);
  const listObjects = store.listObjects.bind(store);
  store.putObject = async (object) => {
    const result = await writeAtomically(store.getResourcePath(object.bucket, object.key, 'object'), object.content);
    await store.putMetadata(object.bucket, object.key, object.metadata, result.md5);
    return result;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    const result = await writeAtomically(partPath, content);
    await writeFile(`${partPath}.md5`, result.md5);
    return result;
  };
  // The object files are gone before the clean-up starts: a clean-up race is not a failed delete.
  store.deleteObject = (bucket, key) =>
    deleteObject(bucket, key).catch((err: unknown) => {
      if (errnoCode(err) !== 'ENOENT' && errnoCode(err) !== 'ENOTEMPTY') throw err;
    });
  // One page per listing: s3rver's ListObjectsV2 continuation token uses DES, which OpenSSL 3 (Node >= 17) lacks.
  store.listObjects = (bucket, options) => retryOn(['ENOENT'], () => listObjects(bucket, { ...(options as object), maxKeys: Infinity }));
}

/** A running S3 test server (see {@link startS3TestServer}). */
export interface S3TestServer {
  /** Base URL for `S3_ENDPOINT`, e.g. `http://127.0.0.1:41234`. */
  endpoint: string;
  /** s3rver's fixed credentials: `S3RVER`/`S3RVER`. */
  accessKey: string;
  secretKey: string;
  region: string;
  /** Data directory of s3rver (buckets and objects as files). */
  directory: string;
  /** While true, the front answers every request 503 `ServiceUnavailable` (S3 XML error), for fault tests. */
  setFailing(failing: boolean): void;
  /** While true, the front reads every request and never answers (a hung S3), for timeout tests. */
  setHanging(hanging: boolean): void;
  /** Holds every request arriving from now on for `ms` before forwarding it (a slow S3; 0: no delay). */
  setDelayMs(ms: number): void;
  /** Requests seen since start: multipart uploads initiated, and upload listings answered by the front. */
  stats(): { multipartUploads: number; uploadListings: number };
  /** Stops the front and s3rver; removes the data directory if this call created it. */
  stop(): Promise<void>;
}

/** S3 error body, as S3 writes it. */
function s3ErrorXml(code: string, message: string, resource: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message><Resource>${escapeXml(resource)}</Resource>` +
    `<RequestId>${randomBytes(8).toString('hex')}</RequestId></Error>`
  );
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

/** Empty ListMultipartUploadsResult for `GET /<bucket>?uploads` (S3 API ListMultipartUploads). */
function emptyUploadsXml(bucket: string, prefix: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Bucket>${escapeXml(bucket)}</Bucket><KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker>` +
    `<NextKeyMarker></NextKeyMarker><NextUploadIdMarker></NextUploadIdMarker><Prefix>${escapeXml(prefix)}</Prefix>` +
    '<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>'
  );
}

/** Sends `body` once the request body has been read, so the client never writes into a closed socket. */
function answerAfterBody(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  const send = (): void => {
    res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (req.readableEnded) send();
  else req.on('end', send).resume();
}

/**
 * Starts an S3 server for tests and local clusters: `s3rver` 3.7.1 (silent, keys `S3RVER`/`S3RVER`, data
 * in `directory` or a fresh temporary directory) on a random 127.0.0.1 port, behind a small HTTP front
 * on `port` (default: random) that
 * - answers `GET /<bucket>?uploads` (ListMultipartUploads) with an empty list: s3rver answers 501, and
 *   the minio client asks it before every multipart upload (checked against the minio client on this project's CI);
 * - forwards every other request unchanged (same path, headers and body, so signatures still match);
 * - answers every request 503 `ServiceUnavailable` while `setFailing(true)`, and none at all while
 *   `setHanging(true)`, so that tests can make the blob store fail (or hang) and recover; `setDelayMs`
 *   holds each request for a while first (a slow store).
 *
 * s3rver's store is hardened against concurrent requests (see {@link hardenStore}). Path-style addressing
 * only (s3rver's vhost buckets are off). Rejects if the port is taken.
 */
export async function startS3TestServer(options: { directory?: string; port?: number; host?: string } = {}): Promise<S3TestServer> {
  const ownDirectory = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'agent-memory-s3-'));
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
  hardenStore(s3rver.store);
  const backend = await s3rver.run();
  // No keep-alive to s3rver: a pooled socket the backend closed meanwhile fails the next request with ECONNRESET (seen as 502).
  const agent = new Agent({ keepAlive: false });
  let failing = false;
  let hanging = false;
  let delayMs = 0;
  const counts = { multipartUploads: 0, uploadListings: 0 };

  const front = createServer((req, res) => {
    if (delayMs > 0) setTimeout(() => handle(req, res), delayMs);
    else handle(req, res);
  });
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://front');
    if (hanging) {
      req.resume();
      return;
    }
    if (failing) {
      answerAfterBody(req, res, 503, s3ErrorXml('ServiceUnavailable', 'Reduce your request rate.', url.pathname));
      return;
    }
    const segments = url.pathname.split('/').filter(Boolean);
    if (req.method === 'GET' && segments.length === 1 && url.searchParams.has('uploads')) {
      counts.uploadListings++;
      answerAfterBody(req, res, 200, emptyUploadsXml(decodeURIComponent(segments[0]), url.searchParams.get('prefix') ?? ''));
      return;
    }
    if (req.method === 'POST' && segments.length > 1 && url.searchParams.has('uploads')) counts.multipartUploads++;
    const upstream = request(
      { host: '127.0.0.1', port: backend.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (err) => {
      req.unpipe(upstream);
      if (res.headersSent) res.destroy();
      else answerAfterBody(req, res, 502, s3ErrorXml('InternalError', `S3 test backend: ${err.message}`, url.pathname));
    });
    req.on('error', () => upstream.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }
  const host = options.host ?? '127.0.0.1';
  try {
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject);
      front.listen(options.port ?? 0, host, () => {
        front.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    s3rver.httpServer?.closeAllConnections();
    await s3rver.close();
    if (ownDirectory) rmSync(directory, { recursive: true, force: true });
    throw err;
  }
  const { port } = front.address() as AddressInfo;
  const endpointHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    endpoint: `http://${endpointHost}:${port}`,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: 'us-east-1',
    directory,
    setFailing(value: boolean) {
      failing = value;
    },
    setHanging(value: boolean) {
      hanging = value;
    },
    setDelayMs(ms: number) {
      delayMs = ms;
    },
    stats: () => ({ ...counts }),
    async stop() {
      await new Promise<void>((resolve) => {
        front.close(() => resolve());
        front.closeAllConnections();
      });
      agent.destroy();
      s3rver.httpServer?.closeAllConnections();
      await s3rver.close();
      if (ownDirectory) rmSync(directory, { recursive: true, force: true });
    },
  };
}
