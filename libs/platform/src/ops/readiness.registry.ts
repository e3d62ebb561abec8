import { Injectable } from '@nestjs/common';

/** One readiness check: resolves when the dependency answers, throws (with a reason) when it does not. */
export type ReadinessCheck = () => Promise<void>;

/**
 * The dependencies whose answer makes this process ready: each process
 * checks its own dependencies. Adapters and services register a check at start-up (`registry.register('database',
 * () => db.ping())`); `GET /readyz` runs them all, each under the per-check timeout.
 */
@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, ReadinessCheck>();

  /**
   * Adds the check `name` (the key in `/readyz`'s answer, e.g. `database`, `bus`, `redis`).
   * Throws when the name is empty or already registered (two adapters answering under one name would hide one).
   */
  register(name: string, check: ReadinessCheck): void {
    if (!name) throw new Error('ReadinessRegistry: a check needs a name');
    if (this.checks.has(name)) throw new Error(`ReadinessRegistry: a check named "${name}" is already registered`);
    this.checks.set(name, check);
  }

  /** Removes the check `name`; true when there was one. */
  unregister(name: string): boolean {
    return this.checks.delete(name);
  }

  /** Names of the registered checks, in registration order. */
  names(): string[] {
    return [...this.checks.keys()];
  }

  /** The registered checks as `[name, check]` pairs, in registration order. */
  entries(): Array<[string, ReadinessCheck]> {
    return [...this.checks.entries()];
  }
}

/** What {@link busReadinessCheck} needs of a transport client: any Nest `ClientProxy` (NATS, in process). */
export interface ConnectableBusClient {
  connect(): Promise<unknown>;
  unwrap<T>(): T;
}

/**
 * Readiness of the bus: the transport client connects, and when the connection can round-trip to its
 * server (NATS `flush()`: a PING answered by a PONG) it does. Throws when the connection is closed or the
 * server does not answer; the in-process bus is always ready once connected.
 */
export function busReadinessCheck(client: ConnectableBusClient): ReadinessCheck {
  return async () => {
    await client.connect();
    const connection = client.unwrap<{ flush?: () => Promise<void>; isClosed?: () => boolean } | undefined>();
    if (connection?.isClosed?.()) throw new Error('the bus connection is closed');
    if (typeof connection?.flush === 'function') await connection.flush();
  };
}
