import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisReplayCache } from './redis-replay-cache';

// Integration: the real Redis on 127.0.0.1:6379, with a key prefix of its own, deleted after the run.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `am:test:replay:${randomBytes(6).toString('hex')}`;

describe('RedisReplayCache (real Redis)', () => {
  const a = new Redis(REDIS_URL);
  const b = new Redis(REDIS_URL);

  afterAll(async () => {
    const keys = await a.keys(`${prefix}:*`);
    if (keys.length) await a.del(...keys);
    await Promise.all([a.quit(), b.quit()]);
  });

  it('accepts a token once across replicas; another token is accepted', async () => {
    const replicaA = new RedisReplayCache(a, prefix);
    const replicaB = new RedisReplayCache(b, prefix);
    expect(await replicaA.claim('0xsig-1', 300)).toBe(true);
    expect(await replicaA.claim('0xsig-1', 300)).toBe(false);
    expect(await replicaB.claim('0xsig-1', 300)).toBe(false); // the other gateway replica sees the claim
    expect(await replicaB.claim('0xsig-2', 300)).toBe(true);
    const ttl = await a.ttl(`${prefix}:0xsig-1`);
    expect(ttl).toBeGreaterThan(290);
    expect(ttl).toBeLessThanOrEqual(300);
  });

  it('claims concurrently: exactly one of many simultaneous claims wins', async () => {
    const caches = [new RedisReplayCache(a, prefix), new RedisReplayCache(b, prefix)];
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => caches[i % 2].claim('0xsig-race', 300)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('honours the ttl: after 1 s the token may be claimed again', async () => {
    const cache = new RedisReplayCache(a, prefix);
    expect(await cache.claim('0xsig-short', 1)).toBe(true);
    expect(await cache.claim('0xsig-short', 1)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await cache.claim('0xsig-short', 1)).toBe(true);
  });

  it('a prefix isolates runs', async () => {
    expect(await new RedisReplayCache(a, `${prefix}:other`).claim('0xsig-1', 300)).toBe(true);
  });
});
