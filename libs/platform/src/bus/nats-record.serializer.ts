import { NatsRecord, NatsRecordBuilder, type ReadPacket } from '@nestjs/microservices';
import { NatsRecordSerializer } from '@nestjs/microservices/serializers/nats-record.serializer';
import { headersFromContext } from './nats-headers';

/**
 * Nest's NATS record serializer plus the current bus context (`currentBusHeaders()`) as NATS
 * headers, so the correlation id crosses every request. Plugged in through Nest's public `serializer`
 * option of the NATS client.
 */
export class TracingNatsRecordSerializer extends NatsRecordSerializer {
  /** @param signing whether the principal goes along (the sender signs: see {@link headersFromContext}) */
  constructor(private readonly signing = false) {
    super();
  }

  override serialize(packet: ReadPacket & { headers?: unknown }): { data: Uint8Array; headers: unknown } {
    const data: unknown = packet?.data;
    if (data instanceof NatsRecord) return super.serialize(packet) as { data: Uint8Array; headers: unknown };
    const record = new NatsRecordBuilder(data).setHeaders(headersFromContext(this.signing)).build();
    return super.serialize({ ...packet, data: record }) as { data: Uint8Array; headers: unknown };
  }
}
