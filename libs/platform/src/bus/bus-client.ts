import { Inject, Injectable, Optional } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import type { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { DomainError, domainErrorFromBus, isBusError } from '@agent-memory/shared';
import { BUS_REPLY_GRACE_MS, currentBusHeaders, runWithBusHeaders } from './bus-context';

/** Injection token of the transport's `ClientProxy` (in-process or NATS). */
export const BUS_TRANSPORT_CLIENT = Symbol('BusTransportClient');
/** Injection token of the request timeout, in milliseconds. */
export const BUS_REQUEST_TIMEOUT_MS = Symbol('BusRequestTimeoutMs');
/** Injection token of the optional {@link BusMetricsHook} (provided by `OpsModule`). */
export const BUS_METRICS_HOOK = Symbol('BusMetricsHook');

/** Transport failures seen by the sending side (no responder, timeout, closed connection); a service's own error reply is none of these. */
export type BusTransportErrorKind = 'timeout' | 'no_responders' | 'unavailable' | 'malformed_reply';
const TRANSPORT_ERROR_KINDS: readonly string[] = ['timeout', 'no_responders', 'unavailable', 'malformed_reply'];

/** Told of every transport failure of a bus request or event (the `agent_memory_bus_errors_total` counter). */
export interface BusMetricsHook {
  busError(subject: string, kind: BusTransportErrorKind): void;
}

/**
 * Which transport failure `err` (what a `ClientProxy` raised) is, or undefined when it is the service's
 * own error reply. A transport may tag its errors with `transport: <kind>`; untagged INTERNAL_ERRORs are
 * recognised by the messages of the NATS and in-process clients (no responder / no handler, timeout).
 */
export function busTransportErrorKind(err: unknown): BusTransportErrorKind | undefined {
  if (err instanceof TimeoutError) return 'timeout';
  const tag = (err as { transport?: unknown } | null)?.transport;
  if (typeof tag === 'string' && TRANSPORT_ERROR_KINDS.includes(tag)) return tag as BusTransportErrorKind;
  if (!isBusError(err)) return 'unavailable';
  if (err.code !== 'INTERNAL_ERROR') return undefined;
  if (/no responder|no handler for/i.test(err.message)) return 'no_responders';
  if (/did not answer in time/i.test(err.message)) return 'timeout';
  if (/^the service is unavailable/i.test(err.message)) return 'unavailable';
  return undefined;
}

/**
 * Sends requests and events over the service bus (docs/architecture.md, "Bus subjects"). Replies are validated against the
 * contract's schema where they are consumed; errors come back as typed {@link DomainError}s; a request
 * that gets no reply within the timeout fails with INTERNAL_ERROR instead of hanging.
 *
 * Each request carries its deadline (now + the request timeout, header `x-deadline`), after which the
 * receiving service commits no write (`assertBeforeDeadline`); the sender waits {@link BUS_REPLY_GRACE_MS}
 * beyond it for the reply, so a timeout here means the write was not applied (docs/api.md "After a 500
 * or a timeout").
 */
@Injectable()
export class BusClient {
  constructor(
    @Inject(BUS_TRANSPORT_CLIENT) private readonly client: ClientProxy,
    @Inject(BUS_REQUEST_TIMEOUT_MS) private readonly timeoutMs: number,
    @Optional() @Inject(BUS_METRICS_HOOK) private readonly metrics?: BusMetricsHook,
  ) {}

  /** Request/reply on `subject`; resolves the reply parsed by `replySchema`. Throws DomainError. */
  async request<S extends z.ZodTypeAny>(subject: string, payload: unknown, replySchema: S): Promise<z.output<S>> {
    let reply: unknown;
    try {
      // A copy of the context with this request's deadline, so the transport sends it (headers are read at send).
      const headers = { ...(currentBusHeaders() ?? { requestId: randomUUID() }), deadline: Date.now() + this.timeoutMs };
      reply = await runWithBusHeaders(headers, () => firstValueFrom(this.client.send<unknown>(subject, payload).pipe(timeout(this.timeoutMs + BUS_REPLY_GRACE_MS))));
    } catch (err) {
      this.countTransportError(subject, err);
      if (isBusError(err)) throw domainErrorFromBus(err);
      if (err instanceof TimeoutError) throw new DomainError('INTERNAL_ERROR', `The service did not answer in time (${subject})`);
      throw new DomainError('INTERNAL_ERROR', 'The service is unavailable');
    }
    const parsed = replySchema.safeParse(reply);
    if (!parsed.success) {
      this.metrics?.busError(subject, 'malformed_reply');
      throw new DomainError('INTERNAL_ERROR', `Malformed reply on ${subject}`);
    }
    return parsed.data;
  }

  /** Publishes an event on `subject`; resolves when the transport has accepted it (in process: when handled). */
  async emit(subject: string, payload: unknown): Promise<void> {
    try {
      await firstValueFrom(this.client.emit(subject, payload), { defaultValue: undefined });
    } catch (err) {
      this.countTransportError(subject, err);
      throw err;
    }
  }

  private countTransportError(subject: string, err: unknown): void {
    const kind = this.metrics && busTransportErrorKind(err);
    if (kind) this.metrics?.busError(subject, kind);
  }
}
