import { type NatsConnection, nanos, RetentionPolicy, StorageType } from 'nats';
import { EVENT_STREAM } from './nats-permissions';

/**
 * Creates (or updates) the JetStream stream of every event (`evt.>`, docs/architecture.md, "Bus
 * subjects"): file storage, limits retention for 30 days, a 2-minute duplicate window so that an event
 * re-published with the same id (outbox retry) is stored once. Safe to call from every replica at once.
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
