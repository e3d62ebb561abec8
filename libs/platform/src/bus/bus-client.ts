import { Inject, Injectable } from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { firstValueFrom, timeout, TimeoutError } from 'rxjs';
import type { z } from 'zod';
import { DomainError, domainErrorFromBus, isBusError } from '@agent-memory/shared';

/** Injection token of the transport's `ClientProxy` (in-process or NATS). */
export const BUS_TRANSPORT_CLIENT = Symbol('BusTransportClient');
/** Injection token of the request timeout, in milliseconds. */
export const BUS_REQUEST_TIMEOUT_MS = Symbol('BusRequestTimeoutMs');

/**
 * Sends requests and events over the service bus (DESIGN.md §1). Replies are validated against the
 * contract's schema where they are consumed; errors come back as typed {@link DomainError}s; a request
 * that gets no reply within the timeout fails with INTERNAL_ERROR instead of hanging.
 */
@Injectable()
export class BusClient {
  constructor(
    @Inject(BUS_TRANSPORT_CLIENT) private readonly client: ClientProxy,
    @Inject(BUS_REQUEST_TIMEOUT_MS) private readonly timeoutMs: number,
  ) {}

  /** Request/reply on `subject`; resolves the reply parsed by `replySchema`. Throws DomainError. */
  async request<S extends z.ZodTypeAny>(subject: string, payload: unknown, replySchema: S): Promise<z.output<S>> {
    let reply: unknown;
    try {
      reply = await firstValueFrom(this.client.send<unknown>(subject, payload).pipe(timeout(this.timeoutMs)));
    } catch (err) {
      if (isBusError(err)) throw domainErrorFromBus(err);
      if (err instanceof TimeoutError) throw new DomainError('INTERNAL_ERROR', `The service did not answer in time (${subject})`);
      throw new DomainError('INTERNAL_ERROR', 'The service is unavailable');
    }
    const parsed = replySchema.safeParse(reply);
    if (!parsed.success) throw new DomainError('INTERNAL_ERROR', `Malformed reply on ${subject}`);
    return parsed.data;
  }

  /** Publishes an event on `subject`; resolves when the transport has accepted it (in process: when handled). */
  async emit(subject: string, payload: unknown): Promise<void> {
    await firstValueFrom(this.client.emit(subject, payload), { defaultValue: undefined });
  }
}
