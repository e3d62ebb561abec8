import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

/** Blobs up to this size (bytes) go through the writer thread; larger ones (files of up to 1 MB) use the pool, so a big write never holds up a memory's. */
export const WRITER_THREAD_MAX_BYTES = 64 * 1024;
/**
 * An idle writer thread ends after this long (ms), so that an idle process, or a finished test file, holds
 * no thread; the next write starts it again (about 25 ms, during which writes use the pool).
 */
const IDLE_END_MS = 30_000;

/** One write of a blob file, as {@link FilesystemBlobStore} makes it: `data` into `tmp`, synced, renamed to `target`. */
export interface BlobFileWrite {
  target: string;
  tmp: string;
  data: Uint8Array;
  fileMode: number;
  directoryMode: number;
}

/**
 * The writer thread's script (CommonJS, evaluated: no file to resolve under a TypeScript loader). One
 * write per message, all synchronous: create the directory, write the temporary file, fsync, close,
 * rename. Replies `{ id }` or `{ id, error: { message, code } }`; a failed write closes its descriptor.
 */
const WRITER_SCRIPT = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
parentPort.on('message', ({ id, target, tmp, data, fileMode, directoryMode }) => {
  let fd;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: directoryMode });
    fd = fs.openSync(tmp, 'w', fileMode);
    let written = 0;
    while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
    fs.fsyncSync(fd);
    const closing = fd;
    fd = undefined;
    fs.closeSync(closing);
    fs.renameSync(tmp, target);
    parentPort.postMessage({ id });
  } catch (err) {
    if (fd !== undefined) {
      try { fs.closeSync(fd); } catch {}
    }
    parentPort.postMessage({ id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
`;

interface Pending {
  /** The thread the write was sent to. */
  worker: Worker;
  resolve(): void;
  reject(error: Error): void;
  /** The same write on the event loop's pool, for a thread that died with this write in flight. */
  fallback(): Promise<void>;
}

/**
 * Writes small blob files in one worker thread with synchronous calls, so that a write is one message
 * each way instead of six round trips through libuv's pool, each of which waits for the event loop's
 * thread (busy with the model's analysis during a remember). Measured on a remember one at a time: the
 * wait for the content's blob after the analysis was 1.0-1.7 ms (docs/configuration.md, "The embedded
 * database", "Blob writes"). The thread starts on the first write, ends after {@link IDLE_END_MS} without one, holds the
 * process open only while a write is in flight, and writes one file at a time. Until it is running
 * (`online`) writes run through `fallback` (the pool), so none waits for its start. If it fails to start,
 * crashes or exits, the writes in flight and every later one, for the rest of the process, run through
 * `fallback`, and a warning is logged once. Errors of a write (ENOSPC, EACCES...) reject that write with the system's
 * message and `code`, as `fs` would.
 */
export class BlobFileWriter {
  private readonly logger = new Logger('BlobFileWriter');
  private worker?: Worker;
  /** Whether {@link worker} is running (its `online` event came): until then writes use the pool. */
  private online = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer?: NodeJS.Timeout;
  private failed = false;

  /** Whether writes go through the thread (false once it failed). */
  get available(): boolean {
    return !this.failed;
  }

  /**
   * Writes `write.data` durably at `write.target` (temporary file, fsync, rename); runs `fallback`
   * instead when the thread is unavailable, or failed with this write in flight.
   */
  write(write: BlobFileWrite, fallback: () => Promise<void>): Promise<void> {
    if (this.failed) return fallback();
    const worker = this.ensureWorker();
    // While the thread starts (about 25 ms), the pool: a write never waits for the start.
    if (!worker || !this.online) return fallback();
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject, fallback });
      clearTimeout(this.idleTimer);
      worker.ref();
      try {
        // Copied, not transferred: a small Buffer is a view into Node's shared pool.
        worker.postMessage({ id, ...write });
      } catch {
        this.pending.delete(id);
        fallback().then(
          () => resolve(),
          (error: Error) => reject(error),
        );
      }
    });
  }

  /** Starts the thread if needed; resolves true once it is running, false if it failed (tests, warm-up). */
  async start(): Promise<boolean> {
    const worker = this.failed ? undefined : this.ensureWorker();
    if (!worker) return false;
    if (this.online) return true;
    return new Promise<boolean>((resolve) => {
      worker.once('online', () => resolve(true));
      worker.once('exit', () => resolve(false));
    });
  }

  /** Ends the thread (tests; writes in flight fall back to the pool). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    this.online = false;
    if (worker) await worker.terminate();
  }

  private ensureWorker(): Worker | undefined {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      // No execArgv: the parent's (`-r @swc-node/register`) would load a TypeScript compiler into the thread (~240 ms to start).
      worker = new Worker(WRITER_SCRIPT, { eval: true, execArgv: [] });
    } catch (err) {
      this.fail(err as Error);
      return undefined;
    }
    this.online = false;
    worker.unref();
    worker.once('online', () => {
      if (this.worker !== worker) return;
      this.online = true;
      this.idleUnless(worker);
    });
    worker.on('message', (reply: { id: number; error?: { message: string; code?: string } }) => this.settle(worker, reply));
    worker.on('error', (err) => this.fail(err, worker));
    worker.on('exit', (code) => {
      // An exit we asked for (idle end, close) is not a failure; its writes in flight (none, for the idle end) fall back.
      if (this.worker === worker) this.fail(new Error(`the blob writer thread exited with code ${code}`), worker);
      else this.fallBack(worker);
    });
    this.worker = worker;
    return worker;
  }

  private settle(worker: Worker, reply: { id: number; error?: { message: string; code?: string } }): void {
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.error) pending.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    else pending.resolve();
    this.idleUnless(worker);
  }

  /** When `worker` has no write in flight: lets the process end without it, and ends it after {@link IDLE_END_MS} unless a write comes. */
  private idleUnless(worker: Worker): void {
    if ([...this.pending.values()].some((p) => p.worker === worker)) return;
    worker.unref();
    if (this.worker !== worker) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || [...this.pending.values()].some((p) => p.worker === worker)) return;
      this.worker = undefined;
      this.online = false;
      void worker.terminate();
    }, IDLE_END_MS);
    this.idleTimer.unref();
  }

  private fail(err: Error, worker?: Worker): void {
    if (!this.failed) this.logger.warn({ err }, 'Blob writer thread failed; blobs are written on the event loop from now on');
    this.failed = true;
    if (!worker) return;
    if (this.worker === worker) {
      this.worker = undefined;
      this.online = false;
    }
    this.fallBack(worker);
    void worker.terminate();
  }

  /**
   * Runs the writes still in flight on `worker` through their fallbacks (a fresh temporary file each: the
   * thread may have written, or even renamed, the file before it died; the same bytes again are harmless).
   */
  private fallBack(worker: Worker): void {
    for (const [id, pending] of this.pending) {
      if (pending.worker !== worker) continue;
      this.pending.delete(id);
      pending.fallback().then(
        () => pending.resolve(),
        (error: Error) => pending.reject(error),
      );
    }
  }
}
