import { EVENTS } from '@agent-memory/shared';

/** JetStream stream holding the durable cross-service events (docs/architecture.md, "Bus subjects": record deleted → purges). */
export const EVENT_STREAM = 'AGENT_MEMORY_EVENTS';
/** Events are published under `evt.<event subject>`, apart from the core-NATS request subjects. */
export const eventSubject = (pattern: string): string => `evt.${pattern}`;
/** Name of the durable JetStream consumer of `service` for the event `pattern`. */
export const eventConsumerName = (service: string, pattern: string): string => `${service}__${pattern.replace(/[^A-Za-z0-9_-]/g, '_')}`;
/**
 * Inbox prefix of a NATS user: replies to its requests arrive under `<prefix>.>`, a subject only that
 * user may subscribe to, so no other process can read the answers meant for it.
 */
export const natsInboxPrefix = (user: string): string => `_INBOX_${user.replace(/[^A-Za-z0-9_-]/g, '_')}`;

/** Publish and subscribe allow-lists of one NATS user (nats-server `authorization.users[].permissions`). */
export interface NatsUserPermissions {
  publish: string[];
  subscribe: string[];
}

/** Who sends which requests over the bus (the sources of truth are the callers in services/*). */
const REQUESTS: Readonly<Record<string, readonly string[]>> = {
  // the gateway is the only entry point of outside requests: every service's API
  gateway: ['agents.v1.>', 'records.v1.>', 'memory.v1.>', 'files.v1.>', 'billing.v1.>'],
  // creating an agent creates its default record
  agents: ['records.v1.create'],
  records: [],
  // the remote embedded vector index (cluster mode without Qdrant)
  memory: ['vector-index.v1.>'],
  'memory-worker': ['vector-index.v1.>'],
  files: [],
  billing: [],
  'vector-index': [],
};
/** The request subjects each process serves (its queue group's subjects). */
const SERVES: Readonly<Record<string, readonly string[]>> = {
  gateway: [],
  agents: ['agents.v1.>'],
  records: ['records.v1.>'],
  memory: ['memory.v1.>'],
  'memory-worker': [],
  files: ['files.v1.>'],
  billing: ['billing.v1.>'],
  'vector-index': ['vector-index.v1.>'],
};
/** Durable events each process publishes (through JetStream) or consumes. */
const PUBLISHES_EVENTS: Readonly<Record<string, readonly string[]>> = { records: [EVENTS.recordDeleted] };
const CONSUMES_EVENTS: Readonly<Record<string, readonly string[]>> = { memory: [EVENTS.recordDeleted], files: [EVENTS.recordDeleted] };

/** The NATS users of a cluster, one per process that connects to NATS (the `migrate` job does not). */
export const NATS_USERS = Object.keys(REQUESTS);

/**
 * Least-privilege permissions of the NATS user of `process` (docs/deployment.md, "NATS users"): publish
 * only the requests it sends (replies to requests it serves are allowed by `allow_responses`), subscribe
 * only to the subjects it serves and its own inbox, and of the JetStream API only what its events need:
 * the event stream's info/create/update, and its own durable consumers' info/create/next/ack. Nobody may
 * publish a request subject it does not own, so a stolen worker password cannot ask billing for credit.
 */
export function natsPermissions(process: string): NatsUserPermissions {
  if (!(process in REQUESTS)) throw new Error(`No NATS user for process "${process}"`);
  const publish = [...REQUESTS[process]];
  const subscribe = [...SERVES[process], `${natsInboxPrefix(process)}.>`];
  const publishes = PUBLISHES_EVENTS[process] ?? [];
  const consumes = CONSUMES_EVENTS[process] ?? [];
  if (publishes.length > 0 || consumes.length > 0) {
    publish.push('$JS.API.INFO', `$JS.API.STREAM.INFO.${EVENT_STREAM}`, `$JS.API.STREAM.CREATE.${EVENT_STREAM}`, `$JS.API.STREAM.UPDATE.${EVENT_STREAM}`);
  }
  for (const pattern of publishes) publish.push(eventSubject(pattern));
  for (const pattern of consumes) {
    const durable = eventConsumerName(process, pattern);
    publish.push(
      `$JS.API.CONSUMER.INFO.${EVENT_STREAM}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${EVENT_STREAM}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${EVENT_STREAM}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${EVENT_STREAM}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${EVENT_STREAM}.${durable}`,
      `$JS.ACK.${EVENT_STREAM}.${durable}.>`,
    );
  }
  return { publish, subscribe };
}

/**
 * The `authorization` block of a nats-server configuration with one user per process and the
 * permissions of {@link natsPermissions}. `password(user)` gives each user's password as it must appear
 * in the file: a quoted literal (tests) or a `$VARIABLE` reference resolved by nats-server from its
 * environment (deploy/nats/agent-memory.conf). No anonymous user: a client without credentials is refused.
 */
export function natsAuthorizationConfig(password: (user: string) => string): string {
  const q = (s: string) => JSON.stringify(s);
  const users = NATS_USERS.map((user) => {
    const p = natsPermissions(user);
    return [
      `    {`,
      `      user: ${q(user)}`,
      `      password: ${password(user)}`,
      `      permissions: {`,
      `        publish: { allow: [${p.publish.map(q).join(', ')}] }`,
      `        subscribe: { allow: [${p.subscribe.map(q).join(', ')}] }`,
      `        allow_responses: true`,
      `      }`,
      `    }`,
    ].join('\n');
  });
  return `authorization {\n  users: [\n${users.join('\n')}\n  ]\n}\n`;
}

/** Name of the environment variable holding the NATS password of `user` in deploy/nats/agent-memory.conf. */
export const natsPasswordVariable = (user: string): string => `NATS_PASSWORD_${user.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
