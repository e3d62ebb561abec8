import { randomUUID } from 'node:crypto';
import { BaseRpcContext, ClientProxy, type CustomTransportStrategy, type ReadPacket, Server, type WritePacket } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import { type BusError, isBusError } from '@agent-memory/shared';
import { type BusHeaders, currentBusHeaders, runWithBusHeaders } from './bus-context';

/** Context handed to handlers by the in-process transport: `[subject, headers]`, like NATS's `[subject, headers]`. */
export class InProcessContext extends BaseRpcContext<[string, BusHeaders]> {
  getSubject(): string {
    return this.args[0];
  }
  getHeaders(): BusHeaders {
    return this.args[1];
  }
}

/** Message copied through JSON, so that in-process messages obey the same wire rules as NATS (no Dates, no shared objects). */
function wireCopy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * The in-process message bus of standalone mode (docs/architecture.md, "Ports and adapters"): the same `@MessagePattern` and
 * `@EventPattern` handlers and subjects as NATS, called within one process. Requests and replies are
 * JSON-copied; errors keep their `{ code, message }` wire form.
 */
export class InProcessBus {
  private readonly servers: InProcessServer[] = [];
  /** The server of each request subject answered so far (cleared when a server comes or goes). */
  private readonly responders = new Map<string, InProcessServer>();

  attach(server: InProcessServer): void {
    this.servers.push(server);
    this.responders.clear();
  }

  detach(server: InProcessServer): void {
    const i = this.servers.indexOf(server);
    if (i >= 0) this.servers.splice(i, 1);
    this.responders.clear();
  }

  /** Sends a request to the one handler of `subject`; rejects with a {@link BusError}. */
  async request(subject: string, data: unknown, headers: BusHeaders): Promise<unknown> {
    let server = this.responders.get(subject);
    if (!server) {
      server = this.servers.find((s) => s.getHandlerByPattern(subject)?.isEventHandler === false);
      if (server) this.responders.set(subject, server);
    }
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the bus rejects with a plain BusError, as the NATS transport does
    if (!server) throw { code: 'INTERNAL_ERROR', message: `No handler for ${subject}` } satisfies BusError;
    return wireCopy(await server.handle(subject, wireCopy(data), headers));
  }

  /** Delivers an event to every handler of `subject` and resolves once all have finished; rejects if any failed. */
  async emit(subject: string, data: unknown, headers: BusHeaders): Promise<void> {
    const targets = this.servers.filter((s) => s.getHandlerByPattern(subject)?.isEventHandler === true);
    const results = await Promise.allSettled(targets.map((s) => s.handle(subject, wireCopy(data), headers)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/** Server side of the in-process transport; register with `app.connectMicroservice({ strategy })`. */
export class InProcessServer extends Server implements CustomTransportStrategy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  listen(callback: () => void): void {
    this.bus.attach(this);
    callback();
  }

  close(): void {
    this.bus.detach(this);
  }

  on(): void {
    // no transport-level events in process
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  /**
   * The handler of a subject. Subjects are plain strings, which Nest stores under themselves; Nest's own
   * lookup first tries `JSON.parse` on the pattern, which throws for every plain subject (tens of
   * microseconds per request and server), so the plain lookup comes first.
   */
  override getHandlerByPattern(pattern: string): ReturnType<Server['getHandlerByPattern']> {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  /** Runs the handler of `subject` through Nest's pipes, guards and filters; resolves its last value. */
  async handle(subject: string, data: unknown, headers: BusHeaders): Promise<unknown> {
    const handler = this.getHandlerByPattern(subject);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the bus rejects with a plain BusError, as the NATS transport does
    if (!handler) throw { code: 'INTERNAL_ERROR', message: `No handler for ${subject}` } satisfies BusError;
    return runWithBusHeaders(headers, async () => {
      const result$ = this.transformToObservable(await handler(data, new InProcessContext([subject, headers])));
      return lastValueFrom<unknown, undefined>(result$, { defaultValue: undefined });
    });
  }
}

/** Client side of the in-process transport: the gateway's `ClientProxy` in standalone mode. */
export class InProcessClient extends ClientProxy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {
    // nothing to connect in process
  }

  close(): void {
    // nothing to close in process
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const headers = { ...(currentBusHeaders() ?? { requestId: randomUUID() }) }; // a copy, as NATS headers would be
    this.bus.request(String(packet.pattern), packet.data, headers).then(
      (response) => callback({ response, isDisposed: true }),
      (err: unknown) => callback({ err: isBusError(err) ? err : { code: 'INTERNAL_ERROR', message: 'Internal error' }, isDisposed: true }),
    );
    return () => undefined;
  }

  protected async dispatchEvent<T = unknown>(packet: ReadPacket): Promise<T> {
    // An event carries no deadline (as on NATS): its handlers run whenever it arrives.
    const { deadline: _deadline, ...headers } = { ...(currentBusHeaders() ?? { requestId: randomUUID() }) };
    await this.bus.emit(String(packet.pattern), packet.data, headers);
    return undefined as T;
  }
}
