/**
 * Entry of the worker thread that runs the converted USE-lite model for document embeddings
 * ({@link UseLiteWorkerThread}, onnx-use-lite.worker-thread.ts), so that stored content is embedded
 * beside the event loop instead of on it. It opens its own onnxruntime session of the same model file
 * with the same options as the runner on the main thread (onnx-use-lite.session.ts), then answers each
 * request with the raw rows of its texts. Messages: in, {@link UseLiteWorkerRequest} and at the end
 * {@link UseLiteWorkerClose}; out, first one
 * {@link UseLiteWorkerReady}, then one {@link UseLiteWorkerReply} per request (any order is not assumed:
 * replies carry the request's id).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openUseLiteSession, type OrtModule, USE_LITE_WIDTH, useLiteRows } from './onnx-use-lite.session';

/** What the worker is started with (`workerData`). */
export interface UseLiteWorkerData {
  /** The converted model's file, or its bytes when the cache could not be written. */
  model: string | Uint8Array;
  intraOpThreads?: number;
  /** One text per model run (the int8 model; see `OnnxUseLiteRunnerOptions.textPerRun`). */
  textPerRun: boolean;
}

/** A request: the token ids of every text, one after another, and how many belong to each text (each ≥ 1). */
export interface UseLiteWorkerRequest {
  id: number;
  ids: Int32Array;
  lengths: number[];
}

/**
 * Asks the thread to end once no model run is active. The owner never terminates the thread from outside
 * while a run may be active: onnxruntime-node aborts the whole process (`terminate called after throwing
 * an instance of 'Napi::Error'`) when a thread is torn down in the middle of a run while another thread
 * of the process holds a session.
 */
export interface UseLiteWorkerClose {
  close: true;
}

/** The first message: the session opened, or why it did not. */
export type UseLiteWorkerReady = { ready: true } | { ready: false; error: string };

/** The answer to request `id`: `lengths.length` × 512 floats, row after row, or the model's error. */
export type UseLiteWorkerReply = { id: number; rows: Float32Array } | { id: number; error: string };

async function serve(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('onnx-use-lite.worker.ts runs only as a worker thread');
  const data = workerData as UseLiteWorkerData;
  let opened: Awaited<ReturnType<typeof openUseLiteSession>>;
  let ort: OrtModule;
  try {
    ort = await import('onnxruntime-node');
    opened = await openUseLiteSession(ort, data.model, data.intraOpThreads);
  } catch (error) {
    port.postMessage({ ready: false, error: (error as Error).message } satisfies UseLiteWorkerReady);
    return;
  }
  let active = 0;
  let closing = false;
  const endIfIdle = () => {
    if (closing && active === 0) process.exit(0);
  };
  port.on('message', (message: UseLiteWorkerRequest | UseLiteWorkerClose) => {
    if ('close' in message) {
      closing = true;
      return endIfIdle();
    }
    const request = message;
    active++;
    void (async () => {
      try {
        const encodings: number[][] = [];
        let at = 0;
        for (const length of request.lengths) {
          encodings.push(Array.from(request.ids.subarray(at, at + length)));
          at += length;
        }
        const rows = await useLiteRows(ort, opened.session, opened.outputName, encodings, data.textPerRun);
        const out = new Float32Array(rows.length * USE_LITE_WIDTH);
        rows.forEach((row, i) => out.set(row, i * USE_LITE_WIDTH));
        port.postMessage({ id: request.id, rows: out } satisfies UseLiteWorkerReply, [out.buffer]);
      } catch (error) {
        port.postMessage({ id: request.id, error: (error as Error).message } satisfies UseLiteWorkerReply);
      } finally {
        active--;
        endIfIdle();
      }
    })();
  });
  port.postMessage({ ready: true } satisfies UseLiteWorkerReady);
}

void serve();
