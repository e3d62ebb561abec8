import { randomBytes } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { CacheInvalidations, InvalidationChannel } from './cache-invalidations';

/** Injection token of the gateway's {@link CacheTokens}; provided in cluster only (absent: the gateway caches only with in-process notices). */
export const CACHE_TOKENS = Symbol('CacheTokens');

/**
 * ioredis options of a tokens connection: a command fails within ~0.5 s while Redis is unreachable
 * instead of queueing, so a gateway falls back to asking the owning service rather than waiting.
 */
export const CACHE_TOKENS_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 500,
};

/** How long a token lives in Redis without a change (ms): far above any cached entry's life (60 s), so it only bounds Redis's memory. */
export const CACHE_TOKEN_TTL_MS = 3_600_000;

/** Attempts, and the pause before each retry (ms), of a token change after a committed write. */
const CHANGE_RETRY_DELAYS_MS = [0, 100, 400];

/**
 * What a gateway replica in cluster mode reads to know whether an entry it cached is still exact
 * (docs/architecture.md, "Caches of the gateway"): one random token per (channel, id) in Redis, replaced
 * by the owning service after each committed change (an agent's keys rotated or revoked, a record
 * deleted). A gateway reads the token with {@link current} before it asks the owning service, keeps the
 * answer with that token, and serves the entry again only while {@link read} still returns the same token.
 *
 * Why that is exact: the owner replaces the token after its commit and before it answers. If the
 * gateway's token was read before the replacement, it differs from every later read, so the entry is never
 * served after the owner's answer; if it was read after, the owner's commit came before the gateway's
 * question, whose answer already shows the change. Tokens are random (not counters), so a token lost with
 * Redis, expired, or overwritten by a slower concurrent writer never brings an old value back: a new one is
 * created, which no cached entry holds.
 */
export interface CacheTokens {
  /** The token of (`channel`, `id`), created when absent; null when Redis cannot answer (then nothing may be cached). */
  current(channel: InvalidationChannel, id: string): Promise<string | null>;
  /** The token as Redis holds it now, without creating one; null when absent or Redis cannot answer (a cached entry is then not served). */
  read(channel: InvalidationChannel, id: string): Promise<string | null>;
}

/**
 * {@link CacheTokens} and, for the owning services, {@link CacheInvalidations} on Redis: key
 * `<keyPrefix>:<channel>:<id>` holds a random 128-bit token (base64url) for {@link CACHE_TOKEN_TTL_MS}.
 * `publish` replaces it (SET with expiry), retried twice within ~0.5 s, and rejects when Redis still could
 * not be told; `current` creates one atomically when absent (a Lua script); `read` is one GET. Redis errors
 * in `current` and `read` resolve to null. Memory in Redis: one ~100-byte key per agent and record active
 * within the TTL.
 *
 * @param redis an ioredis connection owned by the caller ({@link CACHE_TOKENS_REDIS_OPTIONS}).
 * @param keyPrefix namespace of the keys (`<REDIS_KEY_PREFIX>:cache`); tests use a unique one per run.
 */
export class RedisCacheTokens implements CacheTokens, CacheInvalidations {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlMs = CACHE_TOKEN_TTL_MS,
  ) {}

  async current(channel: InvalidationChannel, id: string): Promise<string | null> {
    try {
      const token = await this.redis.eval(GET_OR_CREATE, 1, this.key(channel, id), newToken(), String(this.ttlMs));
      return typeof token === 'string' ? token : null;
    } catch {
      return null;
    }
  }

  async read(channel: InvalidationChannel, id: string): Promise<string | null> {
    try {
      return await this.redis.get(this.key(channel, id));
    } catch {
      return null;
    }
  }

  /** Replaces the token of (`channel`, `id`) after a committed change; rejects with the last Redis error when every attempt failed. */
  async publish(channel: InvalidationChannel, id: string): Promise<void> {
    let last: unknown;
    for (const delay of CHANGE_RETRY_DELAYS_MS) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      try {
        await this.redis.set(this.key(channel, id), newToken(), 'PX', this.ttlMs);
        return;
      } catch (err) {
        last = err;
      }
    }
    throw new Error(`The gateways' caches could not be told of the change (${channel} ${id}): ${(last as Error)?.message ?? last}`);
  }

  private key(channel: InvalidationChannel, id: string): string {
    return `${this.keyPrefix}:${channel}:${id}`;
  }
}

/** KEYS[1]: the token's key; ARGV[1]: a new token, ARGV[2]: its TTL (ms). Returns the existing token or the new one, stored. */
const GET_OR_CREATE = `
local token = redis.call('GET', KEYS[1])
if token then return token end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
`;

function newToken(): string {
  return randomBytes(16).toString('base64url');
}
