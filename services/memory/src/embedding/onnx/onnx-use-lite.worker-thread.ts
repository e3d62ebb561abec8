import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { USE_LITE_WIDTH } from './onnx-use-lite.session';
import type { UseLiteWorkerClose, UseLiteWorkerData, UseLiteWorkerReady, UseLiteWorkerReply, UseLiteWorkerRequest } from './onnx-use-lite.worker';

/** How long the worker may take to open its session before it counts as failed, ms. */
const START_TIMEOUT_MS = 60_000;
/**
 * How long one request may go unanswered before the thread counts as failed (stuck), ms. A request is at
 * most one embed call's texts: 64 texts of at most 2,000 characters, well under a second of model time.
 */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * After a failure with requests in flight, how long the thread keeps the process open so that a run still
 * going can end and the thread exit by itself (the process ending would tear it down mid-run), ms.
 */
const WIND_DOWN_MS = 30_000;

/**
 * The converted USE-lite model in a worker thread (entry: onnx-use-lite.worker.ts): {@link rows} sends
 * token ids there and resolves with the raw 512-float rows, while the event loop's thread does other
 * work. The thread starts at construction; it holds the process open while it starts and while a request
 * is in flight (`unref` when idle), and serves requests once it has opened its session ({@link isReady}). Once it failed
 * to start (or took longer than 60 s), exited, crashed or left a request unanswered for 30 s, it is
 * {@link failed} for good and asked to end: `onFailure` is told once, and every request in flight and every
 * later one rejects with {@link UseLiteWorkerThreadError}, so that the caller runs the model on its own
 * thread instead. The thread is never torn down from outside while a model run may be active (that aborts
 * the process; see `UseLiteWorkerClose`): it is asked to end, and does so once its runs are over. If
 * requests were in flight, it keeps the process open for up to 30 s more, so that a run still going can
 * end first; one stuck in a run for good then stays, unused and unref'd, until the process ends. An error the model raised for one request rejects only that
 * request, with a plain Error (it would fail the same way on any thread).
 *
 * The entry is TypeScript when this file is (the service runs under `@swc-node/register`, which a worker
 * thread does not inherit): it is then loaded through that same register hook.
 */
export class UseLiteWorkerThread {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly pending = new Map<number, { resolve(rows: Float32Array[]): void; reject(error: Error): void }>();
  private nextId = 1;
  private failure?: UseLiteWorkerThreadError;
  private opened = false;
  private exited = false;
  /** Rejects {@link ready} (no effect once it settled): a thread stopped while it starts never counts as started. */
  private rejectReady?: (error: Error) => void;
  /** Texts embedded in the thread since it started (for tests and diagnostics). */
  texts = 0;
  /** Resolves true once the thread has opened its session, false if it failed first. */
  readonly started: Promise<boolean>;

  private readonly requestTimeoutMs: number;

  /**
   * @param data what the thread opens (the model, its threads, one text per run)
   * @param onFailure told once when the thread fails (not when {@link terminate} stops it)
   * @param options `requestTimeoutMs`: how long a request may go unanswered, default 30 s (a seam for tests)
   */
  constructor(
    data: UseLiteWorkerData,
    private readonly onFailure?: (error: UseLiteWorkerThreadError) => void,
    options: { requestTimeoutMs?: number } = {},
  ) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const entry = join(__dirname, `onnx-use-lite.worker${extname(__filename)}`);
    // Resolved here, so that the thread finds the same copy whatever its working directory.
    const load = entry.endsWith('.ts') ? `require(${JSON.stringify(require.resolve('@swc-node/register'))}); require(${JSON.stringify(entry)});` : `require(${JSON.stringify(entry)});`;
    this.worker = new Worker(load, { eval: true, workerData: data });
    this.worker.once('exit', () => (this.exited = true));
    this.worker.on('messageerror', (error) => this.fail(`a reply could not be read: ${error.message}`));
    this.ready = new Promise<void>((resolve, reject) => {
      this.rejectReady = reject;
      const timer = setTimeout(() => reject(this.fail(`it did not open the model within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      timer.unref();
      this.worker.once('message', (message: UseLiteWorkerReady) => {
        clearTimeout(timer);
        if (message.ready) {
          this.worker.on('message', (reply: UseLiteWorkerReply) => this.settle(reply));
          this.opened = true;
          this.idle();
          resolve();
        } else {
          reject(this.fail(`it could not open the model: ${message.error}`));
        }
      });
      this.worker.once('error', (error) => {
        clearTimeout(timer);
        reject(this.fail(`it crashed: ${error.message}`));
      });
      this.worker.once('exit', (code) => {
        clearTimeout(timer);
        reject(this.fail(`it exited with code ${code}`));
      });
    });
    this.started = this.ready.then(
      () => true,
      () => false,
    );
  }

  /** Whether the thread has opened its session and has not failed: a request now is served at once. */
  get isReady(): boolean {
    return this.opened && !this.failure;
  }

  /** Why the thread cannot serve requests any more, or undefined while it can. */
  get failed(): UseLiteWorkerThreadError | undefined {
    return this.failure;
  }

  /**
   * The raw rows of `encodings` (token ids per text, each non-empty), in order, computed in the thread.
   * @throws UseLiteWorkerThreadError when the thread failed (before or during the request);
   *   Error with the model's message when the model failed on this input.
   */
  async rows(encodings: readonly (readonly number[])[]): Promise<Float32Array[]> {
    if (this.failure) throw this.failure;
    await this.ready;
    const lengths = encodings.map((ids) => ids.length);
    const ids = new Int32Array(lengths.reduce((a, b) => a + b, 0));
    let at = 0;
    for (const text of encodings) {
      ids.set(text, at);
      at += text.length;
    }
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const timer = setTimeout(() => this.fail(`request ${id} got no answer within ${this.requestTimeoutMs} ms`), this.requestTimeoutMs);
      timer.unref();
      const done = <T>(settle: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
      this.pending.set(id, { resolve: done(resolve), reject: done(reject) });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, ids, lengths } satisfies UseLiteWorkerRequest, [ids.buffer]);
    });
  }

  /**
   * Stops the thread: requests in flight reject with a {@link UseLiteWorkerThreadError} whose `stopped` is
   * true, and the thread ends once its model runs are over. Resolves when it has ended (at once if it had);
   * never, if a run it is in never returns (the service does not wait for it: the runner's `dispose`).
   */
  async terminate(): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      if (this.exited) return resolve();
      this.worker.once('exit', () => resolve());
    });
    this.fail('it was stopped', false);
    await ended;
  }

  private settle(reply: UseLiteWorkerReply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.idle();
    if ('error' in reply) return waiter.reject(new Error(reply.error));
    const count = reply.rows.length / USE_LITE_WIDTH;
    this.texts += count;
    waiter.resolve(Array.from({ length: count }, (_, i) => reply.rows.subarray(i * USE_LITE_WIDTH, (i + 1) * USE_LITE_WIDTH)));
  }

  /** Lets the process exit while nothing is in flight. */
  private idle(): void {
    this.worker.unref();
  }

  /**
   * Marks the thread failed (once: `notify` false for a deliberate stop, which `onFailure` is not told of),
   * rejects every request in flight, and asks the thread to end (a late start or a stuck run must not keep
   * a session nobody uses). Returns the failure.
   */
  private fail(why: string, notify = true): UseLiteWorkerThreadError {
    if (!this.failure) {
      this.failure = new UseLiteWorkerThreadError(`The embedding worker thread cannot serve requests: ${why}`, !notify);
      if (notify) this.onFailure?.(this.failure);
      this.rejectReady?.(this.failure);
      if (!this.exited) this.worker.postMessage({ close: true } satisfies UseLiteWorkerClose);
    }
    const running = this.pending.size > 0 && !this.exited;
    for (const waiter of this.pending.values()) waiter.reject(this.failure);
    this.pending.clear();
    if (running) {
      // A run may still be going: stay ref'd until the thread exits by itself, for at most WIND_DOWN_MS.
      const windDown = setTimeout(() => this.idle(), WIND_DOWN_MS);
      windDown.unref();
      this.worker.once('exit', () => clearTimeout(windDown));
    } else {
      this.idle();
    }
    return this.failure;
  }
}

/**
 * The worker thread cannot run the model: it failed to start, exited, crashed or got stuck (run the model
 * elsewhere), or it was stopped on purpose (`stopped`: its owner is shutting down; do not run it elsewhere).
 */
export class UseLiteWorkerThreadError extends Error {
  override readonly name = 'UseLiteWorkerThreadError';
  constructor(
    message: string,
    readonly stopped = false,
  ) {
    super(message);
  }
}
