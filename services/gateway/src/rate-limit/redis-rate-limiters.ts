import type { Redis, RedisOptions } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { RATE_LIMITS } from '@agent-memory/shared';
import { POLICY_NAMES, type RateLimiters } from './rate-limit.service';

/**
 * ioredis options for the rate-limit connection (pass to `new Redis(REDIS_URL, RATE_LIMIT_REDIS_OPTIONS)`).
 * During a Redis outage a request must fall through to the insurance limiter at once instead of waiting
 * in ioredis' offline queue or retrying: no offline queue, one retry, and a 500 ms command timeout (a
 * command stuck on a half-open connection also fails over). Reconnection keeps ioredis' default backoff.
 */
export const RATE_LIMIT_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 500,
};

/** Options of {@link redisRateLimiters}. */
export interface RedisRateLimitersOptions {
  /**
   * Gateway replicas assumed while Redis is unreachable: each replica's in-memory insurance limiter
   * allows `ceil(points / assumedReplicas)` per window, so N replicas together stay near the spec's
   * budget. Default 1 (each replica enforces the full budget alone: never stricter than the spec,
   * at most N times as lenient during the outage).
   */
  assumedReplicas?: number;
}

/**
 * Cluster {@link RateLimiters}: the spec's limits ("Limits": 100 requests/min per agent, 30 writes/min
 * and 60 queries/min per record; DESIGN.md §4) counted in Redis, so every gateway replica shares one
 * budget per agent, record and client. Fixed 60 s windows (`rate-limiter-flexible` `RateLimiterRedis`,
 * an atomic `SET NX EX` + `INCRBY` Lua script per consume).
 *
 * Keys: `<keyPrefix>:agent:<agentId>`, `<keyPrefix>:record-write:<recordId>`,
 * `<keyPrefix>:record-query:<recordId>`, `<keyPrefix>:client:<address>`; each expires with its window.
 *
 * Redis outage: `rejectIfRedisNotReady` plus {@link RATE_LIMIT_REDIS_OPTIONS} make a consume fail fast
 * while the connection is down, and `rate-limiter-flexible` then answers from an in-memory insurance
 * limiter of the same policy (points divided by `assumedReplicas`). Callers therefore only ever see a
 * `RateLimiterRes` (allowed or rejected), never a connection error: limiting continues, nothing 500s.
 * When Redis is back, counting returns to Redis (the window restarts there).
 *
 * @param redis an ioredis connection owned by the caller (close it on shutdown); see {@link RATE_LIMIT_REDIS_OPTIONS}.
 * @param anonymousPerMinute calls per minute per client address for unauthenticated calls (create agent).
 * @param keyPrefix namespace of every key (default `am:rl`); tests use a unique one per run.
 */
export function redisRateLimiters(
  redis: Redis,
  anonymousPerMinute: number,
  keyPrefix = 'am:rl',
  options: RedisRateLimitersOptions = {},
): RateLimiters {
  const replicas = Math.max(1, Math.floor(options.assumedReplicas ?? 1));
  const duration = RATE_LIMITS.windowSeconds;
  const limiter = (policy: string, points: number): RateLimiterRedis =>
    new RateLimiterRedis({
      storeClient: redis,
      useRedisPackage: false, // ioredis: the script is registered with defineCommand
      rejectIfRedisNotReady: true,
      keyPrefix: `${keyPrefix}:${policy}`,
      points,
      duration,
      // once a key is over its limit, this replica answers 429 from memory until the window ends
      inMemoryBlockOnConsumed: points + 1,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${keyPrefix}:${policy}`, points: Math.max(1, Math.ceil(points / replicas)), duration }),
    });
  return {
    agent: limiter(POLICY_NAMES.agent, RATE_LIMITS.agentPerMinute),
    recordWrite: limiter(POLICY_NAMES.recordWrite, RATE_LIMITS.recordWritesPerMinute),
    recordQuery: limiter(POLICY_NAMES.recordQuery, RATE_LIMITS.recordQueriesPerMinute),
    anonymous: limiter(POLICY_NAMES.anonymous, anonymousPerMinute),
  };
}
