import { InProcessCacheInvalidations } from '@agent-memory/platform';
import type { Principal } from '@agent-memory/shared';
import { ResolutionCache } from './resolution-cache';

const principal: Principal = { agentId: 'agt_1', keyEnvironment: 'live', mode: 'cloud' };

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

  it('caches nothing without change notices (cluster) or once shutting down', async () => {
    for (const cache of [new ResolutionCache(undefined), new ResolutionCache(new InProcessCacheInvalidations())]) {
      cache.onModuleDestroy();
      let asked = 0;
      await cache.principal('k', async () => (asked++, principal));
      await cache.principal('k', async () => (asked++, principal));
      expect(asked).toBe(2);
    }
  });
});
