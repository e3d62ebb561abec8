/**
 * One HTTP call of the API: URL, credential, body bytes, the envelope (docs/api.md, "Envelope, statuses,
 * errors"), retries (./retry.ts) and payment of 402 challenges (./payments.ts). Uses `fetch` only.
 */
import { AgentMemoryError, AgentMemoryNetworkError, errorFromResponse } from './errors';
import type { Payer } from './payments';
import { backoffMs, isConnectError, rateLimitWaitSeconds, type RetryOptions, sleep } from './retry';
import type { RequestSigner } from './signature';
import type { CallOptions } from './types';

/**
 * Which credential a route takes (docs/api.md, "Authentication"): `agent` = the agent key, else the
 * wallet signature, else a human's passkey session (read routes of a claimed agent; the server refuses it
 * on writes with 403), and on a paid route nothing at all (the 402 challenge can then be paid);
 * `signature` = wallet only (raw blobs); `human` = passkey session; `session-if-any` = the passkey session
 * when the client has one, else nothing (passkey registration); `none` = no Authorization.
 */
export type AuthKind = 'agent' | 'signature' | 'human' | 'session-if-any' | 'none';

/** One call of the API. `path` is below `/api/v1` (e.g. `/records/rec_…`). */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  auth: AuthKind;
  /** Safe to repeat after the request may have reached the server (GET, or a write with an idempotency key). */
  idempotent?: boolean;
  /**
   * A paid read (recall, context, memory page, read file): each attempt that reaches the server is a new
   * charge, so it is repeated after that only when the client opted in with `retries.paidReads`.
   */
  chargedPerAttempt?: boolean;
  /** A paid route (docs/api.md, "Billing"): a 402 challenge may be paid when payments are enabled. */
  paid?: boolean;
  /** Overrides the maximum price paid for this call (micro-USD), e.g. a top-up pays its own amount. */
  maxPriceMicroUsd?: bigint;
}

/** Challenges paid at most per call (the first, and one more after a repeat of a paid request). */
const MAX_PAYMENTS_PER_CALL = 2;

/** Settings the transport reads from the client. */
export interface TransportConfig {
  baseUrl: string;
  fetch: typeof fetch;
  timeoutMs: number;
  retry: RetryOptions;
  apiKey?: string;
  sessionToken?: () => string | undefined;
  signer?: () => Promise<RequestSigner | undefined>;
  payer?: Payer;
}

/** Executes {@link RequestSpec}s; answers the envelope's `data`, throws typed errors. */
export class Transport {
  constructor(private readonly config: TransportConfig) {}

  /**
   * `/api/v1` + path + query string: the path the gateway sees, and the one a wallet signature names
   * (docs/authentication.md, "The signed message"). The gateway serves `/api/v1` at its root and checks
   * the request line as it arrives, so a path prefix of `baseUrl` (`https://example.com/memory`) is left
   * out: it is for a reverse proxy that strips it before the gateway.
   */
  pathWithQuery(spec: Pick<RequestSpec, 'path' | 'query'>): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(spec.query ?? {})) if (value !== undefined) params.append(key, String(value));
    const query = params.toString();
    return `/api/v1${spec.path}${query ? `?${query}` : ''}`;
  }

  /** Runs the call with retries and payment; answers `data` of `{ success: true, data }`. */
  async request<T>(spec: RequestSpec, options: CallOptions = {}): Promise<T> {
    const pathWithQuery = this.pathWithQuery(spec);
    const base = new URL(this.config.baseUrl);
    const url = new URL(`${base.pathname.replace(/\/$/, '')}${pathWithQuery}`, base).toString();
    const body = spec.body === undefined ? '' : JSON.stringify(spec.body);
    const { retry } = this.config;
    // repeatable after the request may have reached the server (a lost answer, a timeout, 500-504)
    const repeatable = spec.idempotent === true && (!spec.chargedPerAttempt || retry.paidReads);
    let payment: string | undefined;
    let payments = 0;
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= retry.maxAttempts;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (spec.body !== undefined) headers['content-type'] = 'application/json';
      const authorization = payment ?? (await this.authorization(spec, pathWithQuery, body));
      if (authorization) headers['authorization'] = authorization;
      let response: Response;
      try {
        response = await this.send(url, { method: spec.method, headers, body: spec.body === undefined ? undefined : body }, options);
      } catch (error) {
        if (!(error instanceof AgentMemoryNetworkError)) throw error;
        if (last || !(isConnectError(error.cause) || repeatable)) throw error;
        await sleep(backoffMs(retry, attempt), options.signal);
        continue;
      }
      if (response.ok) return this.data<T>(response);
      const failure = await this.failure(response);
      if (response.status === 429 && !last) {
        const waitMs = rateLimitWaitSeconds(response.headers) * 1000;
        if (waitMs <= retry.maxRetryAfterMs) {
          await sleep(waitMs, options.signal);
          continue;
        }
      }
      // 500 means "not applied" (docs/api.md, "After a 500 or a timeout"); 502-504 come from proxies
      if ([500, 502, 503, 504].includes(response.status) && repeatable && !last) {
        await sleep(backoffMs(retry, attempt), options.signal);
        continue;
      }
      if (response.status === 402 && this.config.payer && failure.details?.['wwwAuthenticate'] && payments < MAX_PAYMENTS_PER_CALL) {
        // paying is not a retry: the same request goes again with the credential. A repeat after a lost
        // answer gets a fresh challenge for its used credential; an idempotent replay paid twice is refunded
        payment = await this.config.payer.credentialFor(failure, spec.maxPriceMicroUsd);
        payments += 1;
        attempt -= 1;
        continue;
      }
      throw failure;
    }
  }

  private async authorization(spec: RequestSpec, pathWithQuery: string, body: string): Promise<string | undefined> {
    const { apiKey } = this.config;
    const session = this.config.sessionToken?.();
    switch (spec.auth) {
      case 'none':
        return undefined;
      case 'session-if-any':
        return session ? `Passkey ${session}` : undefined;
      case 'human':
        if (!session) throw new TypeError('this call needs a passkey session: pass sessionToken, or sign in with humans.loginVerify');
        return `Passkey ${session}`;
      case 'signature':
        return this.sign(spec, pathWithQuery, body, true);
      case 'agent': {
        // the agent's key, else its wallet; else a human's session (a claimed agent's read routes; refused 403 on writes)
        if (apiKey) return `Bearer ${apiKey}`;
        if (session && !(await this.config.signer?.())) return `Passkey ${session}`;
        return this.sign(spec, pathWithQuery, body, !spec.paid);
      }
    }
  }

  /** The Signature header, or (when `required` is false and the client has no wallet) nothing: a paid call then gets its 402 challenge. */
  private async sign(spec: RequestSpec, pathWithQuery: string, body: string, required: boolean): Promise<string | undefined> {
    const signer = await this.config.signer?.();
    if (!signer) {
      if (required) throw new TypeError(`${spec.method} ${spec.path}: needs ${spec.auth === 'signature' ? 'the wallet of a local agent (wallet signature only)' : 'an apiKey or a wallet (local agents sign with their wallet)'}`);
      return undefined;
    }
    return signer.authorization({ method: spec.method, pathWithQuery, body });
  }

  /** fetch with the per-attempt timeout and the caller's signal; network failures become {@link AgentMemoryNetworkError}. */
  private async send(url: string, init: RequestInit, options: CallOptions): Promise<Response> {
    if (options.signal?.aborted) throw options.signal.reason;
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => controller.abort(options.signal!.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.config.fetch(url, { ...init, signal: controller.signal });
      // read the whole body under the same timeout: a dropped connection mid-body is a network error too
      const text = await response.text();
      return new Response(text === '' || [204, 304].includes(response.status) ? null : text, { status: response.status, headers: response.headers });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      const what = timedOut ? `timed out after ${timeoutMs} ms` : `network error: ${(error as Error)?.message ?? String(error)}`;
      throw new AgentMemoryNetworkError(`${init.method} ${new URL(url).pathname}: ${what}`, timedOut, error);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async data<T>(response: Response): Promise<T> {
    const body = await readJson(response);
    const envelope = body as { success?: unknown; data?: unknown } | undefined;
    if (envelope?.success !== true) {
      throw new AgentMemoryError({ code: 'INTERNAL_ERROR', status: response.status, message: `HTTP ${response.status} without a success envelope`, requestId: response.headers.get('x-request-id') ?? undefined, details: { body } });
    }
    return envelope.data as T;
  }

  private async failure(response: Response): Promise<AgentMemoryError> {
    return errorFromResponse(response.status, response.headers, await readJson(response));
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
