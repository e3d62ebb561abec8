import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort } from '@agent-memory/testing';
import { CACHE_TOKENS_REDIS_OPTIONS, RedisCacheTokens } from './redis-cache-tokens';

// Integration: the real Redis on 127.0.0.1:6379; every run uses its own key prefix and deletes it after.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `am:test:cache:${randomBytes(6).toString('hex')}`;
const connections: Redis[] = [];

/** A connection with the adapter's options, ready (commands fail at once while it is not: no offline queue). */
async function connect(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, CACHE_TOKENS_REDIS_OPTIONS);
  connections.push(redis);
  await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

afterAll(async () => {
  const redis = connections[0];
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  for (const r of connections) r.disconnect();
});

describe('RedisCacheTokens (real Redis)', () => {
  it('creates a token once, keeps it for every reader, and replaces it on publish with one no reader held', async () => {
    const gateway = new RedisCacheTokens(await connect(), prefix);
    const owner = new RedisCacheTokens(await connect(), prefix);
    expect(await gateway.read('agent-keys', 'agt_1')).toBeNull();
    const first = await gateway.current('agent-keys', 'agt_1');
    expect(first).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await Promise.all([gateway.current('agent-keys', 'agt_1'), owner.current('agent-keys', 'agt_1'), gateway.read('agent-keys', 'agt_1')])).toEqual([first, first, first]);
    await owner.publish('agent-keys', 'agt_1');
    const second = await gateway.read('agent-keys', 'agt_1');
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    // channels and ids are separate keys
    expect(await gateway.read('records', 'agt_1')).toBeNull();
    expect(await gateway.read('agent-keys', 'agt_2')).toBeNull();
  });

  it('creates a new token, unlike any before, when Redis lost the key (restart, flush, expiry)', async () => {
    const redis = await connect();
    const tokens = new RedisCacheTokens(redis, prefix, 200);
    const before = await tokens.current('records', 'rec_1');
    expect(await redis.pttl(`${prefix}:records:rec_1`)).toBeGreaterThan(0);
    await redis.del(`${prefix}:records:rec_1`);
    const after = await tokens.current('records', 'rec_1');
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the TTL
    expect(await tokens.read('records', 'rec_1')).toBeNull();
  });

  it('answers null to readers while Redis is unreachable, and rejects a publish after its retries', async () => {
    const unreachable = new Redis(`redis://127.0.0.1:${await freePort()}`, CACHE_TOKENS_REDIS_OPTIONS);
    unreachable.on('error', () => undefined); // nothing listens there
    connections.push(unreachable);
    const tokens = new RedisCacheTokens(unreachable, prefix);
    expect(await tokens.current('agent-keys', 'agt_1')).toBeNull();
    expect(await tokens.read('agent-keys', 'agt_1')).toBeNull();
    const started = Date.now();
    await expect(tokens.publish('agent-keys', 'agt_1')).rejects.toThrow(/The gateways' caches could not be told of the change \(agent-keys agt_1\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450); // it retried (100 + 400 ms) before giving up
  });
});
