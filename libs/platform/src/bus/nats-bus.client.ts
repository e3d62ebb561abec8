import { ClientNats, type MsPattern, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { JSONCodec, type MsgHdrs, type NatsConnection } from 'nats';
import { BUS_REPLY_GRACE_MS, currentBusHeaders } from './bus-context';
import type { BusSigner } from './bus-signature';
import { type NatsAuthOptions, natsConnectionOptions } from './nats-connection';
import { ensureEventStream } from './nats-event-stream';
import { headersFromContext, signHeaders } from './nats-headers';
import { eventSubject } from './nats-permissions';
import { TracingNatsRecordSerializer } from './nats-record.serializer';

const json = JSONCodec();

/**
 * The cluster bus client (`ClientProxy`): requests on core NATS with the correlation id in headers,
 * sent with NATS request/reply so that a subject nobody serves fails at once ("no responders", i.e. the
 * service is down: INTERNAL_ERROR in milliseconds instead of a hung request) and a slow one fails after
 * `requestTimeoutMs` (or the request's deadline plus {@link BUS_REPLY_GRACE_MS}); events published to
 * JetStream (`evt.<subject>`), resolved only once the stream has stored them (PubAck). An event with an
 * `eventId` field is de-duplicated by JetStream under that id. The gateway's client (`auth.signer`)
 * signs every request's principal.
 *
 * Extends Nest's `ClientNats` through its two protected extension points for custom transports,
 * `publish` (requests) and `dispatchEvent` (events), and uses only its protected helpers
 * (`assignPacketId`, `normalizePattern`, `serializer`, `mergeHeaders`, `createSubscriptionHandler`,
 * `natsClient`); Nest's own `publish` subscribes a reply inbox and waits without a timeout, and its
 * `dispatchEvent` publishes on core NATS, where an event is lost while its consumer is down.
 */
export class NatsBusClient extends ClientNats {
  private streamReady?: Promise<void>;
  private readonly signer?: BusSigner;

  /**
   * @param servers NATS server URLs
   * @param name connection name shown by the NATS server
   * @param requestTimeoutMs how long a request without a deadline waits for its reply, milliseconds
   * @param auth this process's NATS user, and the gateway's signing key
   */
  constructor(servers: string[], name: string, private readonly requestTimeoutMs: number, auth: NatsAuthOptions = {}) {
    super({ servers, name, serializer: new TracingNatsRecordSerializer(auth.signer !== undefined), maxReconnectAttempts: -1, ...natsConnectionOptions(auth) });
    this.signer = auth.signer;
  }

  protected override publish(partialPacket: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    try {
      const packet = this.assignPacketId(partialPacket);
      const subject = this.normalizePattern(partialPacket.pattern as MsPattern);
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
    const pattern = this.normalizePattern(packet.pattern as MsPattern);
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
