import type { Redis } from 'ioredis';
import type { ReplayCache } from './replay-cache';

/**
 * Cluster {@link ReplayCache}: one Redis key per claimed token, `SET <keyPrefix>:<token> 1 NX EX <ttl>`,
 * so a wallet signature is accepted once across every gateway replica within its validity window
 * (docs/authentication.md: ±300 s, each signed message accepted once).
 *
 * Errors: a Redis failure rejects `claim` (the request fails rather than risk accepting a replay).
 *
 * @param redis an ioredis connection owned by the caller.
 * @param keyPrefix namespace of the keys (default `am:replay`); tests use a unique one per run.
 */
export class RedisReplayCache implements ReplayCache {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix = 'am:replay',
  ) {}

  /** True the first time `token` is claimed within `ttlSeconds` (whole seconds, at least 1); false for a replay. */
  async claim(token: string, ttlSeconds: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reply = await this.redis.set(`${this.keyPrefix}:${token}`, '1', 'EX', ttl, 'NX');
    return reply === 'OK';
  }
}
