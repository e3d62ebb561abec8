import { Logger } from '@nestjs/common';
import { type NatsContext, ServerNats } from '@nestjs/microservices';
import { JSONCodec, type Msg, type NatsConnection, type Subscription } from 'nats';
import type { BusVerifier } from './bus-signature';
import { type NatsAuthOptions, natsConnectionOptions } from './nats-connection';
import { principalRefusal } from './nats-headers';

const json = JSONCodec();

/**
 * Nest's NATS server (requests in the service's queue group) that serves request handlers only, refuses
 * a request whose principal the gateway did not sign, and closes gracefully on SIGTERM: drain the
 * subscriptions (NATS routes new requests to the other replicas; those already sent here are still
 * handled), wait until every request being handled has sent its reply (at most `drainTimeoutMs`), then
 * drain the connection.
 *
 * What it changes in Nest's `ServerNats`, through its public methods only: `bindEvents` (subscribes the
 * request handlers and keeps the subscriptions here, so `close` can drain them: Nest keeps its own list
 * private and only unsubscribes it), `handleMessage` (the signature check and the count of requests in
 * flight), `getPublisher` (a request stops counting once its last reply is sent) and `close` (the drain
 * above, then Nest's own close). Nest's `gracefulShutdown` option does not do the job: it unsubscribes
 * (messages already routed here are dropped) and waits a fixed grace period, not for the replies.
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;
  private readonly idle = new Set<() => void>();
  private readonly verifier?: BusVerifier;
  private readonly refusals = new Logger('BusAuthentication');
  private readonly drainTimeoutMs: number;
  private readonly queue: string;
  /** Request subscriptions, drained by {@link close}. */
  private readonly requestSubscriptions: Subscription[] = [];
  /** Marks the request of a received message done (its reply sent); one entry per request in flight. */
  private readonly finishers = new WeakMap<Msg, () => void>();

  /**
   * @param options.queue NATS queue group of the service's replicas (one of them gets each request)
   * @param options.drainTimeoutMs longest wait for the requests in flight on close, milliseconds (25 s)
   * @param options.auth this process's NATS user, and the gateway's verifying key (without one, no
   *   principal is trusted)
   */
  constructor(options: { servers: string[]; queue: string; name: string; drainTimeoutMs?: number; auth?: NatsAuthOptions }) {
    super({ servers: options.servers, queue: options.queue, name: options.name, maxReconnectAttempts: -1, ...natsConnectionOptions(options.auth) });
    this.queue = options.queue;
    this.drainTimeoutMs = options.drainTimeoutMs ?? 25_000;
    this.verifier = options.auth?.verifier;
  }

  /**
   * Subscribes the request handlers only: events arrive through JetStream ({@link JetStreamEventServer}),
   * and a core-NATS message on an event subject (which anyone allowed to publish it could send) must not
   * reach them.
   */
  override bindEvents(client: NatsConnection): void {
    for (const [channel, handler] of this.messageHandlers) {
      if (handler.isEventHandler) continue;
      const queue = (handler.extras?.queue as string | undefined) ?? this.queue;
      this.requestSubscriptions.push(client.subscribe(channel, { queue, callback: this.getMessageHandler(channel).bind(this) as never }));
    }
  }

  override async handleMessage(channel: string, natsMsg: Msg): Promise<void> {
    const refused = principalRefusal(this.verifier, natsMsg);
    if (refused) {
      this.refusals.warn(`Refused a message on ${natsMsg.subject}: ${refused}`);
      let id: unknown;
      try {
        id = (json.decode(natsMsg.data) as { id?: unknown }).id;
      } catch {
        id = undefined;
      }
      if (natsMsg.reply && typeof id === 'string') {
        natsMsg.respond(json.encode({ id, err: { code: 'UNAUTHORIZED', message: `Refused: ${refused}` }, isDisposed: true }));
      }
      return;
    }
    this.inFlight++;
    let replied = false;
    const done = () => {
      if (replied) return;
      replied = true;
      if (--this.inFlight === 0) for (const resolve of this.idle) resolve();
    };
    this.finishers.set(natsMsg, done);
    try {
      await super.handleMessage(channel, natsMsg);
    } catch (err) {
      done();
      throw err;
    } finally {
      if (!natsMsg.reply) done();
    }
  }

  override getPublisher(natsMsg: Msg, id: string, ctx: NatsContext) {
    const publish = super.getPublisher(natsMsg, id, ctx);
    return (response: { isDisposed?: boolean; err?: unknown }) => {
      const result: unknown = publish(response);
      if (response.isDisposed || response.err) this.finishers.get(natsMsg)?.();
      return result;
    };
  }

  override async close(): Promise<void> {
    let nc: NatsConnection;
    try {
      nc = this.unwrap<NatsConnection>();
    } catch {
      return; // never connected, or already closed
    }
    // Subscription drain: the server stops routing to this replica (queue-group peers get the requests),
    // and messages already on their way here are still handed to the handler, not dropped.
    await Promise.all(this.requestSubscriptions.map((sub) => sub.drain().catch(() => undefined)));
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.drainTimeoutMs);
        this.idle.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await nc.drain().catch(() => undefined);
    // Nest's own close: the connection is closed by now (a no-op on it); drops the status listeners and
    // forgets the connection.
    await super.close();
  }
}
