/**
 * Port: remembers single-use tokens (wallet signatures) for their validity window, so each is accepted
 * once. Standalone: {@link InMemoryReplayCache}; cluster: Redis `SET NX EX`.
 */
export interface ReplayCache {
  /** True the first time `token` is claimed within `ttlSeconds`; false for a replay. */
  claim(token: string, ttlSeconds: number): Promise<boolean>;
}
export const REPLAY_CACHE = Symbol('ReplayCache');

/** In-process {@link ReplayCache}; expired entries are swept as new ones arrive. */
export class InMemoryReplayCache implements ReplayCache {
  private readonly expiries = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  claim(token: string, ttlSeconds: number): Promise<boolean> {
    const t = this.now();
    if (this.expiries.size > 10_000) for (const [k, exp] of this.expiries) if (exp <= t) this.expiries.delete(k);
    const exp = this.expiries.get(token);
    if (exp !== undefined && exp > t) return Promise.resolve(false);
    this.expiries.set(token, t + ttlSeconds * 1000);
    return Promise.resolve(true);
  }
}
