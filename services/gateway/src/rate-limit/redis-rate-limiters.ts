import type { Redis, RedisOptions } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { RATE_LIMITS } from '@agent-memory/shared';
import { POLICY_NAMES, type RateLimiters } from './rate-limit.service';
import { SLIDING_WINDOW_LUA, SlidingWindowMemoryLimiter } from './sliding-window';

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
   * allows `ceil(points / assumedReplicas)` per window, so N replicas together stay near the documented
   * budget. Default 1 (each replica enforces the full budget alone: never stricter than documented,
   * at most N times as lenient during the outage).
   */
  assumedReplicas?: number;
}

/**
 * One policy's limiter in Redis: `points` requests in any sliding window of `duration` seconds
 * (`rate-limiter-flexible` `RateLimiterRedis` running {@link SLIDING_WINDOW_LUA}, one atomic script per
 * consume), with an in-memory {@link SlidingWindowMemoryLimiter} of `insurancePoints` as insurance while
 * Redis is unreachable, and refused keys answered from memory until a request fits again.
 */
export function slidingWindowRedisLimiter(redis: Redis, options: { keyPrefix: string; points: number; duration: number; insurancePoints?: number }): RateLimiterRedis {
  const { keyPrefix, points, duration } = options;
  return new RateLimiterRedis({
    storeClient: redis,
    useRedisPackage: false, // ioredis: the script is registered with defineCommand
    customIncrTtlLuaScript: SLIDING_WINDOW_LUA,
    rejectIfRedisNotReady: true,
    keyPrefix,
    points,
    duration,
    // a refused key is answered 429 from this replica's memory until its oldest request leaves the window
    inMemoryBlockOnConsumed: points + 1,
    insuranceLimiter: new SlidingWindowMemoryLimiter({ keyPrefix, points: options.insurancePoints ?? points, duration }),
  });
}

/**
 * Cluster {@link RateLimiters}: the limits of docs/api.md ("Rate limits": 100 requests/min per agent, 30
 * writes/min and 60 queries/min per record) counted in Redis, so every gateway replica shares one
 * budget per agent, record and client. Sliding 60 s windows ({@link slidingWindowRedisLimiter}): at most
 * the limit in any 60 seconds, with no burst at a window boundary.
 *
 * Keys (sorted sets of admitted request times): `<keyPrefix>:sw:agent:<agentId>`,
 * `<keyPrefix>:sw:record-write:<recordId>`, `<keyPrefix>:sw:record-query:<recordId>`,
 * `<keyPrefix>:sw:client:<address>`; each expires one window after its last admitted request.
 *
 * Redis outage: `rejectIfRedisNotReady` plus {@link RATE_LIMIT_REDIS_OPTIONS} make a consume fail fast
 * while the connection is down, and `rate-limiter-flexible` then answers from an in-memory insurance
 * limiter of the same policy (points divided by `assumedReplicas`). Callers therefore only ever see a
 * `RateLimiterRes` (allowed or rejected), never a connection error: limiting continues, nothing 500s.
 * When Redis is back, counting returns to Redis (with what it held before the outage).
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
    slidingWindowRedisLimiter(redis, { keyPrefix: `${keyPrefix}:sw:${policy}`, points, duration, insurancePoints: Math.max(1, Math.ceil(points / replicas)) });
  return {
    agent: limiter(POLICY_NAMES.agent, RATE_LIMITS.agentPerMinute),
    recordWrite: limiter(POLICY_NAMES.recordWrite, RATE_LIMITS.recordWritesPerMinute),
    recordQuery: limiter(POLICY_NAMES.recordQuery, RATE_LIMITS.recordQueriesPerMinute),
    anonymous: limiter(POLICY_NAMES.anonymous, anonymousPerMinute),
  };
}
