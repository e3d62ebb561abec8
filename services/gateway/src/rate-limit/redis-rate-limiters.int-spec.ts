import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '@agent-memory/shared';
import type { GatewayRequest } from '../auth/request-context';
import type { GatewayOptions } from '../gateway.options';
import { RateLimitService, type RateLimiters } from './rate-limit.service';
import { RATE_LIMIT_REDIS_OPTIONS, redisRateLimiters, slidingWindowRedisLimiter } from './redis-rate-limiters';

// Integration: the real Redis on 127.0.0.1:6379; every run uses its own key prefix and deletes it after.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `am:test:rl:${randomBytes(6).toString('hex')}`;

/** Consumes `n` points one by one; counts allowed and rejected, and fails on any non-RateLimiterRes error. */
async function consumeMany(limiters: Pick<RateLimiters, 'agent'> | RateLimiters, policy: keyof RateLimiters, key: string, n: number): Promise<{ allowed: number; rejected: number }> {
  let allowed = 0;
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    try {
      await (limiters as RateLimiters)[policy].consume(key, 1);
      allowed++;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      rejected++;
    }
  }
  return { allowed, rejected };
}

/** A TCP proxy in front of Redis that can be "restarted" (all connections cut, port refused) without touching the shared Redis. */
class RedisProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private blackhole = false;
  port = 0;

  /** From now on, bytes are swallowed in both directions (a half-open connection / network partition). */
  pause(): void {
    this.blackhole = true;
  }

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(6379, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.on('data', (chunk) => this.blackhole || upstream.write(chunk));
      upstream.on('data', (chunk) => this.blackhole || client.write(chunk));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

describe('redisRateLimiters (real Redis)', () => {
  const connections: Redis[] = [];
  const open = (url = REDIS_URL, extra = {}): Redis => {
    const r = new Redis(url, { ...RATE_LIMIT_REDIS_OPTIONS, ...extra });
    r.on('error', () => undefined); // outages are expected in some tests
    connections.push(r);
    return r;
  };
  const ready = (r: Redis): Promise<void> => (r.status === 'ready' ? Promise.resolve() : new Promise((resolve) => r.once('ready', () => resolve())));

  afterAll(async () => {
    const admin = new Redis(REDIS_URL);
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
    await admin.quit();
    // (disconnecting an ended connection would leave ioredis' 2 s stream-close timer behind)
    for (const r of connections) if (r.status !== 'end') r.disconnect();
  });

  it('two replicas (separate connections) share one agent budget: 60 + 60 consumes allow exactly 100', async () => {
    const a = open();
    const b = open();
    await Promise.all([ready(a), ready(b)]);
    const replicaA = redisRateLimiters(a, 10, prefix);
    const replicaB = redisRateLimiters(b, 10, prefix);
    // interleave the two replicas, as a load balancer would
    const results = await Promise.all([consumeMany(replicaA, 'agent', 'agt_shared', 60), consumeMany(replicaB, 'agent', 'agt_shared', 60)]);
    expect(results[0].allowed + results[1].allowed).toBe(100);
    expect(results[0].rejected + results[1].rejected).toBe(20);
    // a rejection carries the time to the window's end, as the RateLimit/Retry-After headers need
    const rejection = await replicaA.agent.consume('agt_shared').catch((e: unknown) => e);
    expect(rejection).toBeInstanceOf(RateLimiterRes);
    expect((rejection as RateLimiterRes).msBeforeNext).toBeGreaterThan(50_000);
  });

  it('per-record write (30/min) and query (60/min) budgets are shared too, and independent of each other', async () => {
    const a = open();
    const b = open();
    await Promise.all([ready(a), ready(b)]);
    const replicaA = redisRateLimiters(a, 10, prefix);
    const replicaB = redisRateLimiters(b, 10, prefix);
    const writes = await Promise.all([consumeMany(replicaA, 'recordWrite', 'rec_1', 20), consumeMany(replicaB, 'recordWrite', 'rec_1', 20)]);
    expect(writes[0].allowed + writes[1].allowed).toBe(30);
    const queries = await Promise.all([consumeMany(replicaA, 'recordQuery', 'rec_1', 40), consumeMany(replicaB, 'recordQuery', 'rec_1', 40)]);
    expect(queries[0].allowed + queries[1].allowed).toBe(60);
    // another record has its own budget
    expect((await consumeMany(replicaB, 'recordWrite', 'rec_2', 1)).allowed).toBe(1);
    // anonymous (per client address) uses the configured figure
    const anon = await Promise.all([consumeMany(replicaA, 'anonymous', '10.0.0.1', 8), consumeMany(replicaB, 'anonymous', '10.0.0.1', 8)]);
    expect(anon[0].allowed + anon[1].allowed).toBe(10);
    expect(replicaA.agent.points).toBe(100);
    expect(replicaA.recordWrite.points).toBe(30);
    expect(replicaA.recordQuery.points).toBe(60);
  });

  it('keys live under the prefix, and another prefix has its own budget', async () => {
    const a = open();
    await ready(a);
    const first = redisRateLimiters(a, 10, `${prefix}:p1`);
    const second = redisRateLimiters(a, 10, `${prefix}:p2`);
    expect((await consumeMany(first, 'recordWrite', 'rec_x', 35)).allowed).toBe(30);
    expect((await consumeMany(second, 'recordWrite', 'rec_x', 35)).allowed).toBe(30);
    // a sorted set of the admitted requests only (the refused ones are not recorded)
    expect(await a.type(`${prefix}:p1:sw:record-write:rec_x`)).toBe('zset');
    expect(await a.zcard(`${prefix}:p1:sw:record-write:rec_x`)).toBe(30);
    expect(await a.pttl(`${prefix}:p1:sw:record-write:rec_x`)).toBeGreaterThan(50_000);
  });

  it('counts over a sliding window in Redis: no burst at a boundary, refused requests not counted (4 s window)', async () => {
    const a = open();
    const b = open();
    await Promise.all([ready(a), ready(b)]);
    const key = `${prefix}:sliding`;
    const [onA, onB] = [a, b].map((r) => ({ agent: slidingWindowRedisLimiter(r, { keyPrefix: key, points: 4, duration: 4 }) }));
    expect(await consumeMany(onA, 'agent', 'k', 2)).toEqual({ allowed: 2, rejected: 0 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await consumeMany(onB, 'agent', 'k', 3)).toEqual({ allowed: 2, rejected: 1 });
    const refused = await onA.agent.consume('k').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    // the first two leave the window 4 s after they were admitted, about 3 s from now
    expect((refused as RateLimiterRes).msBeforeNext).toBeGreaterThan(1_000);
    expect((refused as RateLimiterRes).msBeforeNext).toBeLessThanOrEqual(3_000);
    // A fixed 4 s window started with the first request would admit 4 again at +4 s; the sliding one
    // admits only the 2 whose predecessors left (the other 2 are still inside the last 2 s).
    await new Promise((r) => setTimeout(r, (refused as RateLimiterRes).msBeforeNext + 50));
    const onC = { agent: slidingWindowRedisLimiter(open(), { keyPrefix: key, points: 4, duration: 4 }) }; // no in-memory block state
    await ready((onC.agent as unknown as { client: Redis }).client);
    expect(await consumeMany(onC, 'agent', 'k', 4)).toEqual({ allowed: 2, rejected: 2 });
    expect(await a.zcard(`${key}:k`)).toBe(4);
  });

  it('Redis unreachable (dead port): the insurance limiter answers and keeps limiting, never another error', async () => {
    const dead = open('redis://127.0.0.1:1', { retryStrategy: () => null });
    const limiters = redisRateLimiters(dead, 10, prefix, { assumedReplicas: 2 });
    const started = Date.now();
    const result = await consumeMany(limiters, 'agent', 'agt_outage', 60);
    expect(result).toEqual({ allowed: 50, rejected: 10 }); // 100 / 2 assumed replicas
    expect(Date.now() - started).toBeLessThan(2000); // no waiting on the connection

    // the gateway's service turns the rejection into RATE_LIMITED (429), not a 500
    const service = new RateLimitService(limiters, { rateLimitsEnabled: true } as GatewayOptions);
    const req = {} as GatewayRequest;
    await expect(service.consume(req, 'agent', 'agt_outage')).rejects.toBeInstanceOf(RateLimitedError);
    await expect(service.consume(req, 'recordWrite', 'rec_outage')).resolves.toBeUndefined();
    expect(req.gateway?.rateLimit?.[1]).toMatchObject({ policy: 'record-write', limit: 30 });
  });

  it('a closed connection also falls back to the insurance limiter', async () => {
    const r = open();
    await ready(r);
    const limiters = redisRateLimiters(r, 10, prefix);
    expect((await consumeMany(limiters, 'recordWrite', 'rec_closed', 10)).allowed).toBe(10);
    await r.quit();
    const after = await consumeMany(limiters, 'recordWrite', 'rec_closed', 40);
    expect(after).toEqual({ allowed: 30, rejected: 10 }); // the in-memory window starts afresh
  });

  it('Redis "restart" during rate-limited traffic: limiting continues through the outage and returns to Redis after', async () => {
    const proxy = new RedisProxy();
    await proxy.start();
    const r = open(`redis://127.0.0.1:${proxy.port}`, { retryStrategy: () => 100 });
    await ready(r);
    const limiters = redisRateLimiters(r, 10, prefix);

    expect((await consumeMany(limiters, 'recordWrite', 'rec_restart', 10)).allowed).toBe(10);
    await proxy.stop(); // Redis goes away mid-traffic
    const during = await consumeMany(limiters, 'recordWrite', 'rec_restart', 40);
    expect(during).toEqual({ allowed: 30, rejected: 10 });

    await proxy.start(); // same port: Redis is back
    await ready(r);
    // counting is back in Redis: the key already held 10 from before the outage
    const after = await consumeMany(limiters, 'recordWrite', 'rec_restart', 25);
    expect(after).toEqual({ allowed: 20, rejected: 5 });
    r.disconnect();
    await proxy.stop();
  });

  it('a half-open connection (replies never come): each consume fails over after the 500 ms command timeout', async () => {
    const proxy = new RedisProxy();
    await proxy.start();
    const r = open(`redis://127.0.0.1:${proxy.port}`);
    await ready(r);
    const limiters = redisRateLimiters(r, 10, prefix);
    expect((await consumeMany(limiters, 'recordQuery', 'rec_partition', 1)).allowed).toBe(1);
    proxy.pause();
    const started = Date.now();
    expect(await consumeMany(limiters, 'recordQuery', 'rec_partition', 2)).toEqual({ allowed: 2, rejected: 0 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2 * 450);
    expect(elapsed).toBeLessThan(2 * 1500);
    r.disconnect();
    await proxy.stop();
  });
});
