/**
 * The cluster's bus over NATS (docs/architecture.md, "Bus subjects"), one concern per file:
 * - `nats-headers.ts`: the bus context (correlation id, deadline, principal) as NATS headers, the
 *   gateway's signature over them and its verification;
 * - `nats-connection.ts`: a process's NATS credentials and keys ({@link NatsAuthOptions});
 * - `nats-event-stream.ts`: the JetStream stream every event is stored in;
 * - `nats-record.serializer.ts`: Nest's NATS serializer plus the bus context headers;
 * - `nats-bus.client.ts`: the client (requests with request/reply and a deadline, events to JetStream);
 * - `draining-nats.server.ts`: the request server (signature check, graceful drain on SIGTERM);
 * - `jetstream-event.server.ts`: the event server (durable JetStream consumers);
 * - `nats-bus-context.interceptor.ts`: runs each handler inside the bus context of its message.
 * This module re-exports their public parts under the one name the launchers import.
 */
export { EVENT_STREAM, eventSubject } from './nats-permissions';
export { AGENT_ID_HEADER, DEADLINE_HEADER, KEY_ENVIRONMENT_HEADER, REQUEST_ID_HEADER } from './nats-headers';
export { type NatsAuthOptions, natsConnectionOptions } from './nats-connection';
export { ensureEventStream } from './nats-event-stream';
export { TracingNatsRecordSerializer } from './nats-record.serializer';
export { NatsBusClient } from './nats-bus.client';
export { NatsBusContextInterceptor } from './nats-bus-context.interceptor';
export { DrainingNatsServer } from './draining-nats.server';
export { JetStreamEventContext, JetStreamEventServer } from './jetstream-event.server';
