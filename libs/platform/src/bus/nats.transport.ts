import { randomUUID } from 'node:crypto';
import { type CallHandler, type ExecutionContext, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { ClientNats, type CustomTransportStrategy, NatsContext, NatsRecord, NatsRecordBuilder, type ReadPacket, Server, ServerNats, type WritePacket } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer';
import {
  AckPolicy,
  connect,
  type ConsumerMessages,
  DeliverPolicy,
  headers as natsHeaders,
  type JsMsg,
  JSONCodec,
  type MsgHdrs,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { lastValueFrom, Observable } from 'rxjs';
import { BUS_REPLY_GRACE_MS, type BusHeaders, currentBusHeaders, runWithBusHeaders } from './bus-context';
import { type BusSigner, type BusVerifier, SIGNATURE_HEADER, SIGNED_AT_HEADER } from './bus-signature';
import { EVENT_STREAM, eventConsumerName, eventSubject, natsInboxPrefix } from './nats-permissions';

export { EVENT_STREAM, eventSubject } from './nats-permissions';

/** NATS header carrying the correlation id (the HTTP request id) beside every message. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** NATS headers of the authenticated principal ({@link BusHeaders}). */
export const AGENT_ID_HEADER = 'x-agent-id';
export const KEY_ENVIRONMENT_HEADER = 'x-key-environment';
/** NATS header of a request's deadline, epoch milliseconds ({@link BusHeaders.deadline}); never on events. */
export const DEADLINE_HEADER = 'x-deadline';

const json = JSONCodec();

/**
 * Credentials and keys of one process's NATS connections (docs/configuration.md, "Bus authentication"):
 * its NATS user (the inbox prefix follows from it), and the gateway's signing key or the services'
 * verifying key.
 */
export interface NatsAuthOptions {
  /** NATS user and password; without them the connection is anonymous (a NATS server without authorization). */
  user?: string;
  pass?: string;
  /** Signs every message this process sends (the gateway). */
  signer?: BusSigner;
  /** Verifies the principal of every request this process serves. */
  verifier?: BusVerifier;
}

/** Connection options (nats.js) for `auth`: credentials and the user's private inbox prefix. */
export function natsConnectionOptions(auth: NatsAuthOptions = {}): { user?: string; pass?: string; inboxPrefix?: string } {
  return auth.user ? { user: auth.user, pass: auth.pass, inboxPrefix: natsInboxPrefix(auth.user) } : {};
}

/**
 * NATS headers of a message sent from the current bus context. The principal crosses only when this
 * process signs (the gateway): a principal another service forwarded could not be told from a forged one,
 * so services send the correlation id alone. A request carries its deadline (set by `BusClient`); an
 * event never does: its consumers handle it whenever it arrives.
 */
function headersFromContext(signing: boolean, kind: 'request' | 'event' = 'request'): MsgHdrs {
  const h = natsHeaders();
  const current = currentBusHeaders() ?? { requestId: randomUUID() };
  h.set(REQUEST_ID_HEADER, current.requestId);
  if (signing && current.agentId) h.set(AGENT_ID_HEADER, current.agentId);
  if (signing && current.keyEnvironment) h.set(KEY_ENVIRONMENT_HEADER, current.keyEnvironment);
  if (kind === 'request' && current.deadline !== undefined) h.set(DEADLINE_HEADER, String(current.deadline));
  return h;
}

/** Adds the signing time and signature of `signer` over (`subject`, headers, `body`) to `h`. */
function signHeaders(signer: BusSigner, subject: string, h: MsgHdrs, body: Uint8Array): void {
  const signedAt = Date.now();
  h.set(SIGNED_AT_HEADER, String(signedAt));
  const fields = { subject, requestId: h.get(REQUEST_ID_HEADER), agentId: h.get(AGENT_ID_HEADER) || undefined, keyEnvironment: h.get(KEY_ENVIRONMENT_HEADER) || undefined, deadline: h.get(DEADLINE_HEADER) || undefined };
  h.set(SIGNATURE_HEADER, signer.sign({ ...fields, signedAt, body }));
}

/** Headers whose principal {@link DrainingNatsServer} verified (only these are trusted). */
const verifiedHeaders = new WeakSet<object>();

/**
 * Bus context of a received message: the correlation id, a request's deadline (it can only make the
 * receiver refuse a write, so it needs no signature), and the principal only from verified headers.
 */
function busHeadersFrom(h: MsgHdrs | undefined, kind: 'request' | 'event' = 'request'): BusHeaders {
  const headers: BusHeaders = { requestId: h?.get(REQUEST_ID_HEADER) || randomUUID() };
  const deadline = Number(h?.get(DEADLINE_HEADER) || NaN);
  if (kind === 'request' && Number.isSafeInteger(deadline) && deadline > 0) headers.deadline = deadline;
  if (!h || !verifiedHeaders.has(h)) return headers;
  const agentId = h.get(AGENT_ID_HEADER);
  const keyEnvironment = h.get(KEY_ENVIRONMENT_HEADER);
  if (agentId) headers.agentId = agentId;
  if (keyEnvironment === 'live' || keyEnvironment === 'test') headers.keyEnvironment = keyEnvironment;
  return headers;
}

/**
 * Nest's NATS record serializer plus the current bus context ({@link currentBusHeaders}) as NATS
 * headers, so the correlation id crosses every request.
 */
export class TracingNatsRecordSerializer extends NatsRecordSerializer {
  /** @param signing whether the principal goes along (the sender signs: see {@link headersFromContext}) */
  constructor(private readonly signing = false) {
    super();
  }

  override serialize(packet: ReadPacket & { headers?: unknown }): { data: Uint8Array; headers: unknown } {
    const data = packet?.data;
    if (data instanceof NatsRecord) return super.serialize(packet) as { data: Uint8Array; headers: unknown };
    const record = new NatsRecordBuilder(data).setHeaders(headersFromContext(this.signing)).build();
    return super.serialize({ ...packet, data: record }) as { data: Uint8Array; headers: unknown };
  }
}

/**
 * Creates (or updates) the event stream: file storage, limits retention for 30 days, a 2-minute
 * duplicate window so that an event re-published with the same id (outbox retry) is stored once.
 */
export async function ensureEventStream(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const config = {
    name: EVENT_STREAM,
    subjects: ['evt.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    // long enough for a consumer that was down or failing for weeks to catch up: events are small
    max_age: nanos(30 * 24 * 3600 * 1000),
    duplicate_window: nanos(120_000),
  };
  try {
    await jsm.streams.info(EVENT_STREAM);
    await jsm.streams.update(EVENT_STREAM, config);
  } catch (err) {
    if (!/stream not found/i.test(String((err as Error).message))) throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // A replica created it between our two calls.
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
    }
  }
}

/**
 * The cluster bus client (`ClientProxy`): requests on core NATS with the correlation id in headers,
 * sent with NATS request/reply so that a subject nobody serves fails at once ("no responders", i.e. the
 * service is down: INTERNAL_ERROR in milliseconds instead of a hung request) and a slow one fails after
 * `requestTimeoutMs`; events published to JetStream (`evt.<subject>`), resolved only once the stream has
 * stored them (PubAck). An event with an `eventId` field is de-duplicated by JetStream under that id.
 */
export class NatsBusClient extends ClientNats {
  private streamReady?: Promise<void>;
  private readonly signer?: BusSigner;

  constructor(servers: string[], name: string, private readonly requestTimeoutMs: number, auth: NatsAuthOptions = {}) {
    super({ servers, name, serializer: new TracingNatsRecordSerializer(auth.signer !== undefined), maxReconnectAttempts: -1, ...natsConnectionOptions(auth) } as never);
    this.signer = auth.signer;
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    try {
      const packet = this.assignPacketId(partialPacket);
      const subject = this.normalizePattern(partialPacket.pattern);
      const serialized = this.serializer.serialize(packet) as { data: Uint8Array; headers?: MsgHdrs };
      const onReply = this.createSubscriptionHandler(packet, callback);
      const nc = this.natsClient as unknown as NatsConnection;
      const headers = this.mergeHeaders(serialized.headers) as MsgHdrs;
      if (this.signer) signHeaders(this.signer, subject, headers, serialized.data);
      // Wait until the request's deadline plus the grace (BusClient sets it), so a late "not applied" reply still arrives.
      const deadline = currentBusHeaders()?.deadline;
      const timeout = deadline === undefined ? this.requestTimeoutMs + BUS_REPLY_GRACE_MS : Math.max(1, deadline + BUS_REPLY_GRACE_MS - Date.now());
      nc.request(subject, serialized.data, { timeout, headers }).then(
        (msg) => onReply(undefined, msg as never),
        (err: unknown) => {
          const code = (err as { code?: string }).code;
          const message = code === '503' ? `The service is unavailable (no responder for ${subject})` : code === 'TIMEOUT' ? `The service did not answer in time (${subject})` : 'The service is unavailable';
          callback({ err: { code: 'INTERNAL_ERROR', message }, isDisposed: true });
        },
      );
    } catch {
      callback({ err: { code: 'INTERNAL_ERROR', message: 'The service is unavailable' }, isDisposed: true });
    }
    return () => undefined;
  }

  protected override async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    const nc = (await this.connect()) as NatsConnection;
    this.streamReady ??= ensureEventStream(nc).catch((err: unknown) => {
      this.streamReady = undefined;
      throw err;
    });
    await this.streamReady;
    const pattern = this.normalizePattern(packet.pattern);
    const data = packet.data as { eventId?: unknown } | undefined;
    const msgID = typeof data?.eventId === 'string' ? data.eventId : undefined;
    try {
      // Events carry no principal (their consumers act on the event's own ids), so they need no signature.
      await nc.jetstream().publish(eventSubject(pattern), json.encode(packet.data), { msgID, headers: headersFromContext(false, 'event'), timeout: 5_000 });
    } catch (err) {
      // the stream may have been lost (a NATS server without its JetStream storage): set it up again next time
      this.streamReady = undefined;
      throw err;
    }
    return undefined as T;
  }
}

/**
 * Server-side interceptor of the NATS transport: runs the handler inside the bus context carried by
 * the message's headers, so logs and onward messages keep the caller's correlation id. The in-process
 * transport sets the context itself; there this is a no-op.
 */
@Injectable()
export class NatsBusContextInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
    const ctx = context.switchToRpc().getContext();
    if (!(ctx instanceof NatsContext)) return next.handle();
    const headers = busHeadersFrom(ctx.getHeaders() as MsgHdrs | undefined);
    return new Observable((subscriber) => runWithBusHeaders(headers, () => next.handle().subscribe(subscriber)));
  }
}

/**
 * Nest's NATS server (requests in the service's queue group) with a graceful close for SIGTERM: drain
 * the subscriptions (NATS routes new requests to the other replicas; those already sent here are still
 * handled), wait until every request being handled has sent its reply (at most `drainTimeoutMs`), then
 * drain the connection.
 */
export class DrainingNatsServer extends ServerNats {
  private inFlight = 0;
  private readonly idle = new Set<() => void>();
  private readonly verifier?: BusVerifier;
  private readonly refusals = new Logger('BusAuthentication');

  /** `auth`: this process's NATS user, and the gateway's verifying key (without one, no principal is trusted). */
  constructor(options: { servers: string[]; queue: string; name: string; drainTimeoutMs?: number; auth?: NatsAuthOptions }) {
    super({ servers: options.servers, queue: options.queue, name: options.name, maxReconnectAttempts: -1, ...natsConnectionOptions(options.auth) } as never);
    this.drainTimeoutMs = options.drainTimeoutMs ?? 25_000;
    this.verifier = options.auth?.verifier;
  }

  private readonly drainTimeoutMs: number;

  /**
   * Subscribes the request handlers only: events arrive through JetStream ({@link JetStreamEventServer}),
   * and a core-NATS message on an event subject (which anyone allowed to publish it could send) must not
   * reach them.
   */
  override bindEvents(client: NatsConnection): void {
    // `options` and `subscriptions` are private in Nest's typings, not at run time.
    const self = this as unknown as { subscriptions: unknown[]; options: { queue?: string } };
    const defaultQueue = self.options.queue;
    for (const [channel, handler] of this.messageHandlers) {
      if (handler.isEventHandler) continue;
      const queue = (handler.extras?.queue as string | undefined) ?? defaultQueue;
      self.subscriptions.push(client.subscribe(channel, { queue, callback: this.getMessageHandler(channel).bind(this) as never }));
    }
  }

  /**
   * Why the message may not run (its principal is not vouched for), or undefined: a message that carries
   * a principal or a signature must bear a valid, fresh signature of the gateway over its subject,
   * headers and exact body; one without either runs without a principal (a service's own call).
   */
  private refusal(channel: string, natsMsg: Parameters<ServerNats['handleMessage']>[1]): string | undefined {
    const h = natsMsg.headers;
    if (!h) return undefined;
    const agentId = h.get(AGENT_ID_HEADER) || undefined;
    const keyEnvironment = h.get(KEY_ENVIRONMENT_HEADER) || undefined;
    const signature = h.get(SIGNATURE_HEADER) || undefined;
    if (!agentId && !keyEnvironment && !signature) return undefined;
    if (!this.verifier) return 'this service has no key to verify the principal with';
    const fields = { subject: natsMsg.subject, requestId: h.get(REQUEST_ID_HEADER), agentId, keyEnvironment, deadline: h.get(DEADLINE_HEADER) || undefined, body: natsMsg.data };
    const failure = this.verifier.verify(fields, h.get(SIGNED_AT_HEADER) || undefined, signature);
    if (failure) return `the principal is not signed by the gateway (${failure})`;
    verifiedHeaders.add(h);
    return undefined;
  }

  override async handleMessage(channel: string, natsMsg: Parameters<ServerNats['handleMessage']>[1]): Promise<void> {
    const refused = this.refusal(channel, natsMsg);
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
    (natsMsg as unknown as { __done?: () => void }).__done = done;
    try {
      await super.handleMessage(channel, natsMsg);
    } catch (err) {
      done();
      throw err;
    } finally {
      if (!natsMsg.reply) done();
    }
  }

  override getPublisher(natsMsg: Parameters<ServerNats['getPublisher']>[0], id: string, ctx: NatsContext) {
    const publish = super.getPublisher(natsMsg, id, ctx);
    return (response: { isDisposed?: boolean; err?: unknown }) => {
      const result = publish(response as never);
      if (response.isDisposed || response.err) (natsMsg as unknown as { __done?: () => void }).__done?.();
      return result;
    };
  }

  override async close(): Promise<void> {
    // `natsClient` and `subscriptions` are private in Nest's typings, not at run time.
    const self = this as unknown as { natsClient: NatsConnection | null; subscriptions: Array<{ drain(): Promise<void> }> };
    const nc = self.natsClient;
    if (!nc) return;
    // Subscription drain: the server stops routing to this replica (queue-group peers get the requests),
    // and messages already on their way here are still handed to the handler, not dropped.
    await Promise.all(self.subscriptions.map((sub) => sub.drain().catch(() => undefined)));
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
    self.natsClient = null;
  }
}

/** Context handed to event handlers by {@link JetStreamEventServer}: `[subject, headers]`. */
export class JetStreamEventContext extends NatsContext {}

/**
 * Nest transport strategy that feeds the `@EventPattern` handlers of a service from durable JetStream
 * consumers (one per service and event subject, named `<service>__<subject>`), so an event published
 * while the service was down is delivered when it comes back. A message is acked after its handler
 * succeeded and nak'ed with a growing delay otherwise (handlers are idempotent: DESIGN.md §1).
 * Request handlers are ignored here (the NATS transport serves them).
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
