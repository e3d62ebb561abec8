import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { CACHE_INVALIDATIONS, type CacheInvalidations, TaggedCache } from '@agent-memory/platform';
import type { Principal } from '@agent-memory/shared';

/** Entries of each cache (keys presented, records reached): a few MB at most. */
export const RESOLUTION_CACHE_CAPACITY = 10_000;
/** The longest an entry is kept, whatever happens (a bound on any mistake, not the invalidation rule). */
export const RESOLUTION_CACHE_TTL_MS = 60_000;

/**
 * What the gateway resolved for earlier requests, so that an agent's next call skips two bus round trips
 * (docs/architecture.md, "Caches of the standalone gateway"): the principal of an agent key
 * (`agents.v1.authenticate-key`) and that a record is the agent's own (`records.v1.resolve-access`).
 * Only with {@link CacheInvalidations} (standalone: one process), which makes it exact: a rotation or
 * revocation drops the agent's keys and a deletion drops the record before the writer answers, and a
 * resolution that was in flight meanwhile is not stored. A key is kept no longer than its own end
 * (`keyExpiresAt`, set by a rotation's grace) and no entry longer than {@link RESOLUTION_CACHE_TTL_MS}.
 * Only successes are kept (a refusal is asked again each time); keys are held as their SHA-256. Without
 * invalidations (cluster) nothing is cached and every request asks the owning service.
 */
@Injectable()
export class ResolutionCache implements OnModuleDestroy {
  private readonly principals = new TaggedCache<Principal>(RESOLUTION_CACHE_CAPACITY, RESOLUTION_CACHE_TTL_MS);
  private readonly access = new TaggedCache<true>(RESOLUTION_CACHE_CAPACITY, RESOLUTION_CACHE_TTL_MS);
  private readonly unsubscribe: Array<() => void> = [];
  /** Set at shutdown, when the change notices stop: nothing is cached or served from the cache any more. */
  private closed = false;

  constructor(@Optional() @Inject(CACHE_INVALIDATIONS) private readonly invalidations?: CacheInvalidations) {
    if (!invalidations) return;
    this.unsubscribe.push(invalidations.subscribe('agent-keys', (agentId) => this.principals.invalidate(`agent:${agentId}`)));
    this.unsubscribe.push(invalidations.subscribe('records', (recordId) => this.access.invalidate(`record:${recordId}`)));
  }

  /** Whether anything is cached in this process (standalone, until shutdown). */
  get enabled(): boolean {
    return this.invalidations !== undefined && !this.closed;
  }

  /**
   * The principal of `agentKey`: cached, or `resolve()`'s (which throws for an invalid key; nothing is
   * cached then). `resolve` answers when the key ends (ISO 8601, or null for no end).
   */
  async principal(agentKey: string, resolve: () => Promise<Principal & { keyExpiresAt?: string | null }>): Promise<Principal> {
    if (!this.enabled) return strip(await resolve());
    const key = createHash('sha256').update(agentKey).digest('base64');
    const cached = this.principals.get(key);
    if (cached) return cached;
    const token = this.principals.begin();
    const reply = await resolve();
    const principal = strip(reply);
    this.principals.set(key, principal, token, { tags: [`agent:${principal.agentId}`], expiresAt: reply.keyExpiresAt ? Date.parse(reply.keyExpiresAt) : undefined });
    return principal;
  }

  /** Resolves `check()` (which throws when `recordId` is not the agent's) unless a success is cached. */
  async recordAccess(agentId: string, recordId: string, check: () => Promise<unknown>): Promise<void> {
    if (!this.enabled) {
      await check();
      return;
    }
    const key = `${agentId}\n${recordId}`;
    if (this.access.get(key)) return;
    const token = this.access.begin();
    await check();
    this.access.set(key, true, token, { tags: [`record:${recordId}`] });
  }

  /** Shutdown: the HTTP server may still answer calls after this hook, so caching stops with the notices. */
  onModuleDestroy(): void {
    this.closed = true;
    for (const stop of this.unsubscribe.splice(0)) stop();
  }
}

function strip({ agentId, keyEnvironment, mode }: Principal): Principal {
  return { agentId, keyEnvironment, mode };
}
