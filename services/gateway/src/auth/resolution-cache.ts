import { createHash } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { CACHE_INVALIDATIONS, CACHE_TOKENS, type CacheInvalidations, type CacheTokens, TaggedCache } from '@agent-memory/platform';
import type { Principal } from '@agent-memory/shared';

/** Entries of each cache (keys presented, records reached): a few MB at most. */
export const RESOLUTION_CACHE_CAPACITY = 10_000;
/** The longest an entry is kept, whatever happens (a bound on any mistake, not the invalidation rule). */
export const RESOLUTION_CACHE_TTL_MS = 60_000;

/**
 * A cached principal and, in cluster mode, the agent's cache token it was read under ({@link CacheTokens});
 * `token: null` there marks a hint only (the key's agent, never served), kept so that the next call can
 * read the agent's token before it asks.
 */
interface PrincipalEntry {
  principal: Principal;
  token: string | null;
}

/**
 * What the gateway resolved for earlier requests, so that an agent's next call skips two bus round trips
 * (docs/architecture.md, "Caches of the gateway"): the principal of an agent key
 * (`agents.v1.authenticate-key`) and that a record is the agent's own (`records.v1.resolve-access`).
 * Exact in both run modes: a rotation or revocation of the agent's keys, or a record's deletion, is seen
 * by the very next call after the writer answers.
 *
 * - Standalone ({@link CacheInvalidations} with `subscribe`, one process): the writer's notice drops the
 *   entries before it answers, and a resolution that was in flight meanwhile is not stored.
 * - Cluster ({@link CacheTokens} in Redis): an entry holds the token of its agent (principal) or record
 *   (access) read before the owning service was asked, and is served only while Redis still holds that
 *   token (one GET per check); the owner replaces the token after its commit, before it answers. The
 *   first call with a key learns its agent (the token to read), the second caches it. A Redis error means
 *   asking the owner (nothing is served or stored without a token).
 *
 * A key is kept no longer than its own end (`keyExpiresAt`, set by a rotation's grace) and no entry longer
 * than {@link RESOLUTION_CACHE_TTL_MS}. Only successes are kept (a refusal is asked again each time); keys
 * are held as their SHA-256. With neither (a process without them) nothing is cached.
 */
@Injectable()
export class ResolutionCache implements OnModuleDestroy {
  private readonly principals = new TaggedCache<PrincipalEntry>(RESOLUTION_CACHE_CAPACITY, RESOLUTION_CACHE_TTL_MS);
  /** Per `agentId\nrecordId`: the record's token (cluster), or '' (standalone, where notices drop the entry). */
  private readonly access = new TaggedCache<string>(RESOLUTION_CACHE_CAPACITY, RESOLUTION_CACHE_TTL_MS);
  private readonly unsubscribe: Array<() => void> = [];
  /** In-process notices (standalone); when absent, `tokens` (cluster) or nothing. */
  private readonly local: boolean;
  /** Set at shutdown, when the change notices stop: nothing is cached or served from the cache any more. */
  private closed = false;

  constructor(
    @Optional() @Inject(CACHE_INVALIDATIONS) invalidations?: CacheInvalidations,
    @Optional() @Inject(CACHE_TOKENS) private readonly tokens?: CacheTokens,
  ) {
    this.local = invalidations?.subscribe !== undefined;
    if (!invalidations?.subscribe) return;
    this.unsubscribe.push(invalidations.subscribe('agent-keys', (agentId) => this.principals.invalidate(`agent:${agentId}`)));
    this.unsubscribe.push(invalidations.subscribe('records', (recordId) => this.access.invalidate(`record:${recordId}`)));
  }

  /** Whether anything is cached in this process (standalone or with cache tokens, until shutdown). */
  get enabled(): boolean {
    return (this.local || this.tokens !== undefined) && !this.closed;
  }

  /**
   * The principal of `agentKey`: cached, or `resolve()`'s (which throws for an invalid key; nothing is
   * cached then). `resolve` answers when the key ends (ISO 8601, or null for no end).
   */
  async principal(agentKey: string, resolve: () => Promise<Principal & { keyExpiresAt?: string | null }>): Promise<Principal> {
    if (!this.enabled) return strip(await resolve());
    const key = createHash('sha256').update(agentKey).digest('base64');
    const cached = this.principals.get(key);
    if (this.local) {
      if (cached) return cached.principal;
      const generation = this.principals.begin();
      const reply = await resolve();
      const principal = strip(reply);
      this.principals.set(key, { principal, token: null }, generation, { tags: [`agent:${principal.agentId}`], expiresAt: expiryOf(reply) });
      return principal;
    }
    const tokens = this.tokens!;
    const agentId = cached?.principal.agentId;
    if (cached?.token && (await tokens.read('agent-keys', cached.principal.agentId)) === cached.token) return cached.principal;
    // Asked of the agents service: under the agent's token read first, when the key's agent is known.
    const token = agentId ? await tokens.current('agent-keys', agentId) : null;
    const reply = await resolve();
    const principal = strip(reply);
    const exact = token !== null && principal.agentId === agentId;
    this.principals.set(key, { principal, token: exact ? token : null }, this.principals.begin(), { tags: [], expiresAt: expiryOf(reply) });
    return principal;
  }

  /** Resolves `check()` (which throws when `recordId` is not the agent's) unless a success is cached. */
  async recordAccess(agentId: string, recordId: string, check: () => Promise<unknown>): Promise<void> {
    if (!this.enabled) {
      await check();
      return;
    }
    const key = `${agentId}\n${recordId}`;
    const cached = this.access.get(key);
    if (this.local) {
      if (cached !== undefined) return;
      const generation = this.access.begin();
      await check();
      this.access.set(key, '', generation, { tags: [`record:${recordId}`] });
      return;
    }
    const tokens = this.tokens!;
    if (cached !== undefined && (await tokens.read('records', recordId)) === cached) return;
    const token = await tokens.current('records', recordId);
    await check();
    if (token !== null) this.access.set(key, token, this.access.begin(), { tags: [] });
  }

  /** Shutdown: the HTTP server may still answer calls after this hook, so caching stops with the notices. */
  onModuleDestroy(): void {
    this.closed = true;
    for (const stop of this.unsubscribe.splice(0)) stop();
  }
}

/** When a resolved key ends (ms since the epoch), if it does. */
function expiryOf(reply: { keyExpiresAt?: string | null }): number | undefined {
  return reply.keyExpiresAt ? Date.parse(reply.keyExpiresAt) : undefined;
}

function strip({ agentId, keyEnvironment, mode }: Principal): Principal {
  return { agentId, keyEnvironment, mode };
}
