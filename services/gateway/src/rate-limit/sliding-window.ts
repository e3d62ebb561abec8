import { RateLimiterCompatibleAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Sliding-window-log limit in Redis, as `rate-limiter-flexible`'s `customIncrTtlLuaScript` for
 * `RateLimiterRedis` (docs/api.md, "Rate limits": a sliding window in Redis). A key is a sorted set of the
 * admitted requests' times (µs, from the Redis server's clock, so every gateway replica counts on one
 * clock); a request is admitted while fewer than `limit` remain within the last `window` seconds. A
 * refused request is not recorded, so a client that keeps retrying is admitted again as soon as the
 * oldest request leaves the window (the set never holds more than `limit` members).
 *
 * Called as RateLimiterRedis calls its script: KEYS[1] the key; ARGV[1] points to consume, ARGV[2] the
 * window in seconds, ARGV[3] the limit. Returns `{consumed, msBeforeNext}` as that script does:
 * `consumed` is the count in the window after this request (`limit + points` when refused, which
 * RateLimiterRedis reads as over the limit), `msBeforeNext` the ms until the oldest counted request
 * leaves the window (when one more is admitted).
 */
export const SLIDING_WINDOW_LUA = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local points = tonumber(ARGV[1])
local window = tonumber(ARGV[2]) * 1000000
local limit = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
if count + points > limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local wait = window
  if oldest[2] then wait = tonumber(oldest[2]) + window - now end
  return {limit + points, math.ceil(wait / 1000)}
end
for i = 1, points do
  redis.call('ZADD', key, now, time[1] .. '.' .. time[2] .. ':' .. (count + i))
end
redis.call('PEXPIRE', key, math.ceil(window / 1000))
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {count + points, math.ceil((tonumber(oldest[2]) + window - now) / 1000)}
`;

/** Options of {@link SlidingWindowMemoryLimiter}. */
export interface SlidingWindowMemoryOptions {
  /** Requests admitted per window. */
  points: number;
  /** Window length, seconds. */
  duration: number;
  keyPrefix?: string;
  /** Clock in ms (tests); default `Date.now`. */
  now?: () => number;
}

/**
 * The same sliding-window-log limit as {@link SLIDING_WINDOW_LUA}, in process memory: standalone mode's
 * limiters, and the insurance limiter a gateway falls back to while Redis is unreachable. A custom
 * `rate-limiter-flexible` limiter (its `RateLimiterCompatibleAbstract` extension point: `consume` resolves a
 * `RateLimiterRes`, or rejects with one when over the limit), so it plugs in wherever `RateLimiterMemory`
 * did. Each key keeps at most `points` times; keys whose window has emptied are dropped by {@link prune},
 * which runs every window on an unref'd timer that {@link close} stops (the gateway's
 * lifecycle, ../gateway.lifecycle.ts, closes its limiters at shutdown). Only `consume`, `get` and `delete` are implemented (the
 * gateway uses nothing else); `blockDuration` and `execEvenly` are kept but not used.
 */
export class SlidingWindowMemoryLimiter extends RateLimiterCompatibleAbstract {
  readonly points: number;
  /** Window length, seconds. */
  readonly duration: number;
  override readonly keyPrefix: string;
  override blockDuration = 0;
  override execEvenly = false;
  private readonly log = new Map<string, number[]>();
  private readonly now: () => number;
  private readonly pruner: NodeJS.Timeout;

  constructor(options: SlidingWindowMemoryOptions) {
    super();
    if (!Number.isInteger(options.points) || options.points < 1) throw new RangeError(`points must be a positive integer, got ${options.points}`);
    if (!(options.duration > 0)) throw new RangeError(`duration must be positive, got ${options.duration}`);
    this.points = options.points;
    this.duration = options.duration;
    this.keyPrefix = options.keyPrefix ?? '';
    this.now = options.now ?? Date.now;
    this.pruner = setInterval(() => this.prune(), Math.max(1000, options.duration * 1000));
    this.pruner.unref();
  }

  /** Admits `points` requests for `key` if they fit in the window; rejects with a RateLimiterRes otherwise. */
  override consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const now = this.now();
    const windowMs = this.duration * 1000;
    const rlKey = this.keyOf(key);
    const times = this.inWindow(rlKey, now);
    if (times.length + points > this.points) {
      const wait = times.length > 0 ? times[0] + windowMs - now : windowMs;
      // rate-limiter-flexible's contract: a limiter over its limit rejects with the RateLimiterRes, not an Error.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(new RateLimiterRes(0, wait, this.points + points, false));
    }
    for (let i = 0; i < points; i++) times.push(now);
    this.log.set(rlKey, times);
    return Promise.resolve(new RateLimiterRes(this.points - times.length, times[0] + windowMs - now, times.length, times.length === points));
  }

  /** The key's state without consuming (null when nothing is counted). */
  override get(key: string | number): Promise<RateLimiterRes | null> {
    const now = this.now();
    const times = this.inWindow(this.keyOf(key), now);
    if (times.length === 0) return Promise.resolve(null);
    return Promise.resolve(new RateLimiterRes(this.points - times.length, times[0] + this.duration * 1000 - now, times.length, false));
  }

  override delete(key: string | number): Promise<boolean> {
    return Promise.resolve(this.log.delete(this.keyOf(key)));
  }

  /** Drops the keys whose every counted request has left the window; returns how many keys remain. */
  prune(): number {
    const now = this.now();
    for (const rlKey of [...this.log.keys()]) this.inWindow(rlKey, now);
    return this.log.size;
  }

  /** Stops the pruning timer (at the gateway's shutdown; idempotent). */
  close(): void {
    clearInterval(this.pruner);
  }

  private keyOf(key: string | number): string {
    return this.keyPrefix ? `${this.keyPrefix}:${key}` : String(key);
  }

  /** The key's times still within the window at `now` (older ones dropped; an emptied key removed). */
  private inWindow(rlKey: string, now: number): number[] {
    const times = this.log.get(rlKey);
    if (!times) return [];
    const cutoff = now - this.duration * 1000;
    let expired = 0;
    while (expired < times.length && times[expired] <= cutoff) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length === 0) this.log.delete(rlKey);
    return times;
  }
}
