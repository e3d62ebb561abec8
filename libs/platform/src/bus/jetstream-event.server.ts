import { Logger } from '@nestjs/common';
import { type CustomTransportStrategy, NatsContext, Server } from '@nestjs/microservices';
import { AckPolicy, connect, type ConsumerMessages, DeliverPolicy, type JsMsg, JSONCodec, type NatsConnection, nanos } from 'nats';
import { lastValueFrom } from 'rxjs';
import { runWithBusHeaders } from './bus-context';
import { type NatsAuthOptions, natsConnectionOptions } from './nats-connection';
import { ensureEventStream } from './nats-event-stream';
import { busHeadersFrom } from './nats-headers';
import { EVENT_STREAM, eventConsumerName, eventSubject } from './nats-permissions';

const json = JSONCodec();

/** Context handed to event handlers by {@link JetStreamEventServer}: `[subject, headers]`. */
export class JetStreamEventContext extends NatsContext {}

/**
 * Nest transport strategy (a public `CustomTransportStrategy`) that feeds the `@EventPattern` handlers
 * of a service from durable JetStream consumers (one per service and event subject, named
 * `<service>__<subject>`), so an event published while the service was down is delivered when it comes
 * back. A message is acked after its handler succeeded and nak'ed with a growing delay otherwise (500 ms
 * doubling up to 60 s): event handlers are idempotent, an event may arrive more than once
 * (docs/architecture.md, "Bus subjects"). Request handlers are ignored here (the NATS transport,
 * {@link DrainingNatsServer}, serves them).
 */
export class JetStreamEventServer extends Server implements CustomTransportStrategy {
  private nc?: NatsConnection;
  private readonly subscriptions: ConsumerMessages[] = [];
  private readonly loops: Promise<void>[] = [];
  private readonly log = new Logger('JetStreamEvents');

  /** `auth`: this process's NATS user (events carry no principal, so no key is needed). */
  constructor(private readonly options: { servers: string[]; service: string; auth?: NatsAuthOptions }) {
    super();
  }

  /** Connects, makes sure the event stream and this service's consumers exist, and starts pulling. */
  async listen(callback: (err?: unknown) => void): Promise<void> {
    try {
      this.nc = await connect({ servers: this.options.servers, name: `${this.options.service}-events`, maxReconnectAttempts: -1, ...natsConnectionOptions(this.options.auth) });
      await ensureEventStream(this.nc);
      const jsm = await this.nc.jetstreamManager();
      for (const [pattern, handler] of this.messageHandlers) {
        if (!handler.isEventHandler) continue;
        const durable = eventConsumerName(this.options.service, pattern);
        const config = {
          durable_name: durable,
          filter_subject: eventSubject(pattern),
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          ack_wait: nanos(60_000),
          max_deliver: -1,
        };
        try {
          await jsm.consumers.info(EVENT_STREAM, durable);
        } catch {
          await jsm.consumers.add(EVENT_STREAM, config).catch((err: unknown) => {
            if (!/already in use|already exists/i.test(String((err as Error).message))) throw err;
          });
        }
        const consumer = await this.nc.jetstream().consumers.get(EVENT_STREAM, durable);
        const messages = await consumer.consume({ max_messages: 16 });
        this.subscriptions.push(messages);
        this.loops.push(this.run(pattern, messages));
      }
      callback();
    } catch (err) {
      callback(err);
    }
  }

  private async run(pattern: string, messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) await this.deliver(pattern, m);
  }

  private async deliver(pattern: string, m: JsMsg): Promise<void> {
    const handler = this.getHandlerByPattern(pattern);
    if (!handler) return m.nak(5_000);
    let data: unknown;
    try {
      data = json.decode(m.data);
    } catch {
      this.log.error(`Dropping an undecodable event on ${m.subject}`);
      return m.term();
    }
    const headers = busHeadersFrom(m.headers, 'event');
    try {
      await runWithBusHeaders(headers, async () => {
        const result$ = this.transformToObservable(await handler(data, new JetStreamEventContext([m.subject, m.headers as never])));
        await lastValueFrom(result$, { defaultValue: undefined });
      });
      m.ack();
    } catch (err) {
      const delay = Math.min(60_000, 500 * 2 ** Math.min(m.info.redeliveryCount, 7));
      this.log.warn(`Event ${pattern} failed (delivery ${m.info.redeliveryCount}); retry in ${delay} ms: ${(err as { message?: string }).message ?? String(err)}`);
      m.nak(delay);
    }
  }

  /** Stops pulling, waits for the event being handled, then drains the connection (graceful shutdown). */
  async close(): Promise<void> {
    for (const s of this.subscriptions) s.stop();
    await Promise.allSettled(this.loops);
    if (this.nc && !this.nc.isClosed()) await this.nc.drain().catch(() => undefined);
  }

  on(): void {
    // connection status is logged by the NATS client itself
  }

  unwrap<T>(): T {
    return this.nc as T;
  }
}
