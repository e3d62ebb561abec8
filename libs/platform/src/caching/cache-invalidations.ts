/**
 * Injection token of the process's {@link CacheInvalidations}: in standalone every process-wide
 * {@link InProcessCacheInvalidations}; in cluster the agents and records processes' {@link RedisCacheTokens}
 * (./redis-cache-tokens.ts). Absent elsewhere: nothing to publish.
 */
export const CACHE_INVALIDATIONS = Symbol('CacheInvalidations');

/**
 * What changed, for caches of the gateway (docs/architecture.md, "Caches of the gateway"):
 * - `agent-keys`: an agent's keys changed (rotated, revoked); the id is the agent's;
 * - `records`: a record was deleted; the id is the record's.
 */
export type InvalidationChannel = 'agent-keys' | 'records';

/**
 * Change notices from the services that own some data to the caches of the gateway. A writer publishes
 * after its transaction commits and before it answers (awaiting the result), so no request that starts
 * after the writer's answer can find the old value:
 * - within one process (standalone, {@link InProcessCacheInvalidations}) every subscriber runs
 *   synchronously inside `publish`;
 * - across processes (cluster, `RedisCacheTokens`) `publish` replaces the channel's token in Redis, which
 *   every gateway compares with the token its cached entry was read under; it rejects when Redis could not
 *   be told (the writer then answers an error although its change is committed).
 */
export interface CacheInvalidations {
  publish(channel: InvalidationChannel, id: string): void | Promise<void>;
  /** In one process only: calls `listener` with every id published on `channel` from now on; returns the unsubscribe function. */
  subscribe?(channel: InvalidationChannel, listener: (id: string) => void): () => void;
}

/** {@link CacheInvalidations} within one process (standalone): synchronous, exact. */
export class InProcessCacheInvalidations implements CacheInvalidations {
  private readonly listeners = new Map<InvalidationChannel, Set<(id: string) => void>>();

  publish(channel: InvalidationChannel, id: string): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(id);
  }

  subscribe(channel: InvalidationChannel, listener: (id: string) => void): () => void {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }
}

/**
 * A bounded cache of read results whose invalidation is exact (with {@link CacheInvalidations}):
 * - each entry has tags (e.g. `agent:<id>`); {@link invalidate} drops the entries of a tag;
 * - a result read while an invalidation happened is not stored ({@link begin} before the read, its
 *   token to {@link set}): a read that started before a writer committed cannot bring the old value back
 *   after the writer's notice;
 * - entries expire at `expiresAt` (ms epoch) or `ttlMs` after they were stored, whichever is first;
 * - at most `capacity` entries (least recently stored dropped first). Memory: O(capacity).
 */
export class TaggedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; tags: readonly string[] }>();
  private readonly byTag = new Map<string, Set<string>>();
  private generation = 0;

  constructor(
    private readonly capacity: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value of `key` if present and not expired. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** A token to pass to {@link set}: taken before the read whose result will be stored. */
  begin(): number {
    return this.generation;
  }

  /** Stores `value` unless an invalidation happened since `token` was taken, or it is already expired. */
  set(key: string, value: V, token: number, options: { tags: readonly string[]; expiresAt?: number }): void {
    if (token !== this.generation) return;
    const expiresAt = Math.min(options.expiresAt ?? Infinity, this.now() + this.ttlMs);
    if (!(expiresAt > this.now())) return;
    this.delete(key);
    this.entries.set(key, { value, expiresAt, tags: options.tags });
    for (const tag of options.tags) {
      let keys = this.byTag.get(tag);
      if (!keys) this.byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.capacity) this.delete(this.entries.keys().next().value!);
  }

  /** Drops every entry tagged `tag`, and any result still being read (see {@link begin}). */
  invalidate(tag: string): void {
    this.generation++;
    for (const key of this.byTag.get(tag) ?? []) this.delete(key);
  }

  /** Entries held (tests, metrics). */
  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    for (const tag of entry.tags) {
      const keys = this.byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.byTag.delete(tag);
    }
  }
}
