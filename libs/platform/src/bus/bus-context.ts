import { AsyncLocalStorage } from 'node:async_hooks';

/** Metadata carried beside every bus message (NATS headers in cluster mode; in-process otherwise). */
export interface BusHeaders {
  /** Correlation id of the HTTP request that caused the message; appears in every log line. */
  requestId: string;
}

const storage = new AsyncLocalStorage<BusHeaders>();

/** Runs `fn` with `headers` as the current bus context, so that messages sent inside carry them. */
export function runWithBusHeaders<T>(headers: BusHeaders, fn: () => T): T {
  return storage.run(headers, fn);
}

/** The bus headers of the current async context, if any. */
export function currentBusHeaders(): BusHeaders | undefined {
  return storage.getStore();
}
