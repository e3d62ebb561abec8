import { type CacheTokens, InProcessCacheInvalidations, type InvalidationChannel } from '@agent-memory/platform';
import type { Principal } from '@agent-memory/shared';
import { ResolutionCache } from './resolution-cache';

const principal: Principal = { agentId: 'agt_1', keyEnvironment: 'live', mode: 'cloud' };

/** Cache tokens held in a map, as Redis would hold them; `down` makes every read fail (null), as a Redis outage does. */
class MapTokens implements CacheTokens {
  readonly tokens = new Map<string, string>();
  down = false;
  private counter = 0;
  async current(channel: InvalidationChannel, id: string): Promise<string | null> {
    if (this.down) return null;
    const key = `${channel}:${id}`;
    if (!this.tokens.has(key)) this.tokens.set(key, `t${this.counter++}`);
    return this.tokens.get(key)!;
  }
  async read(channel: InvalidationChannel, id: string): Promise<string | null> {
    return this.down ? null : (this.tokens.get(`${channel}:${id}`) ?? null);
  }
  /** What an owning service does after its change commits. */
  change(channel: InvalidationChannel, id: string): void {
    this.tokens.set(`${channel}:${id}`, `t${this.counter++}`);
  }
}

describe('ResolutionCache', () => {
  it('asks once per key until the agent\'s keys change, and never keeps the extra reply fields', async () => {
    const invalidations = new InProcessCacheInvalidations();
    const cache = new ResolutionCache(invalidations);
    let asked = 0;
    const resolve = async () => (asked++, { ...principal, keyExpiresAt: null });
    expect(await cache.principal('amk_live_x', resolve)).toEqual(principal);
    expect(await cache.principal('amk_live_x', resolve)).toEqual(principal);
    expect(asked).toBe(1);
    invalidations.publish('agent-keys', 'agt_1');
    await cache.principal('amk_live_x', resolve);
    expect(asked).toBe(2);
  });

  it('does not store a resolution that was in flight when a notice came, nor one whose key has ended', async () => {
    const invalidations = new InProcessCacheInvalidations();
    const cache = new ResolutionCache(invalidations);
    let asked = 0;
    await cache.principal('k1', async () => {
      asked++;
      invalidations.publish('agent-keys', 'agt_1'); // a revocation commits while this read is in flight
      return principal;
    });
    await cache.principal('k1', async () => (asked++, principal));
    expect(asked).toBe(2);
    await cache.principal('k2', async () => (asked++, { ...principal, keyExpiresAt: new Date(Date.now() - 1).toISOString() }));
    await cache.principal('k2', async () => (asked++, principal));
    expect(asked).toBe(4);
  });

  it('keeps a record\'s access per agent until the record is deleted; a refusal is never kept', async () => {
    const invalidations = new InProcessCacheInvalidations();
    const cache = new ResolutionCache(invalidations);
    let checks = 0;
    const ok = async () => void checks++;
    await cache.recordAccess('agt_1', 'rec_1', ok);
    await cache.recordAccess('agt_1', 'rec_1', ok);
    await cache.recordAccess('agt_2', 'rec_1', ok); // another agent is asked on its own
    expect(checks).toBe(2);
    await expect(cache.recordAccess('agt_3', 'rec_1', async () => Promise.reject(new Error('not yours')))).rejects.toThrow('not yours');
    await expect(cache.recordAccess('agt_3', 'rec_1', async () => Promise.reject(new Error('still not yours')))).rejects.toThrow('still not yours');
    invalidations.publish('records', 'rec_1');
    await cache.recordAccess('agt_1', 'rec_1', ok);
    expect(checks).toBe(3);
  });

  it('caches nothing without change notices or cache tokens, or once shutting down', async () => {
    for (const cache of [new ResolutionCache(undefined), new ResolutionCache(new InProcessCacheInvalidations()), new ResolutionCache(undefined, new MapTokens())]) {
      cache.onModuleDestroy();
      let asked = 0;
      await cache.principal('k', async () => (asked++, principal));
      await cache.principal('k', async () => (asked++, principal));
      expect(asked).toBe(2);
    }
  });

  it('cluster: learns the key\'s agent on the first call, caches from the second, and asks again once the agent\'s token changes', async () => {
    const tokens = new MapTokens();
    const cache = new ResolutionCache(undefined, tokens);
    let asked = 0;
    const resolve = async () => (asked++, { ...principal, keyExpiresAt: null });
    for (let i = 0; i < 4; i++) expect(await cache.principal('amk_live_x', resolve)).toEqual(principal);
    expect(asked).toBe(2);
    tokens.change('agent-keys', 'agt_1'); // a revocation committed; the agents service replaced the token before answering
    await cache.principal('amk_live_x', resolve);
    await cache.principal('amk_live_x', resolve);
    expect(asked).toBe(3);
    tokens.tokens.clear(); // Redis lost its keys: a new token is created, which no entry holds
    await cache.principal('amk_live_x', resolve);
    await cache.principal('amk_live_x', resolve);
    expect(asked).toBe(4);
  });

  it('cluster: never serves a resolution read under a token replaced meanwhile, a key past its end, or anything while Redis is down', async () => {
    const tokens = new MapTokens();
    const cache = new ResolutionCache(undefined, tokens);
    let asked = 0;
    await cache.principal('k1', async () => (asked++, principal)); // learns agt_1
    await cache.principal('k1', async () => {
      asked++;
      tokens.change('agent-keys', 'agt_1'); // a revocation commits while this read is in flight
      return principal;
    });
    await cache.principal('k1', async () => (asked++, principal));
    expect(asked).toBe(3);
    await cache.principal('k1', async () => (asked++, principal));
    expect(asked).toBe(3); // the last read was under the current token
    for (let i = 0; i < 3; i++) await cache.principal('k2', async () => (asked++, { ...principal, keyExpiresAt: new Date(Date.now() - 1).toISOString() }));
    expect(asked).toBe(6);
    tokens.down = true;
    await cache.principal('k1', async () => (asked++, principal));
    await cache.principal('k1', async () => (asked++, principal));
    expect(asked).toBe(8);
    await expect(cache.principal('k1', async () => Promise.reject(new Error('Invalid agent key')))).rejects.toThrow('Invalid agent key');
  });

  it('cluster: keeps a record\'s access per agent under the record\'s token; a deletion, a refusal or a Redis outage is asked again', async () => {
    const tokens = new MapTokens();
    const cache = new ResolutionCache(undefined, tokens);
    let checks = 0;
    const ok = async () => void checks++;
    await cache.recordAccess('agt_1', 'rec_1', ok);
    await cache.recordAccess('agt_1', 'rec_1', ok);
    await cache.recordAccess('agt_2', 'rec_1', ok);
    expect(checks).toBe(2);
    await expect(cache.recordAccess('agt_3', 'rec_1', async () => Promise.reject(new Error('not yours')))).rejects.toThrow('not yours');
    await expect(cache.recordAccess('agt_3', 'rec_1', async () => Promise.reject(new Error('still not yours')))).rejects.toThrow('still not yours');
    tokens.change('records', 'rec_1');
    await expect(cache.recordAccess('agt_1', 'rec_1', async () => Promise.reject(new Error('Record not found')))).rejects.toThrow('Record not found');
    tokens.down = true;
    await cache.recordAccess('agt_2', 'rec_2', ok);
    await cache.recordAccess('agt_2', 'rec_2', ok);
    expect(checks).toBe(4);
  });
});
