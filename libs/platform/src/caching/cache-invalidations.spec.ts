import { InProcessCacheInvalidations, TaggedCache } from './cache-invalidations';

describe('TaggedCache', () => {
  it('drops the entries of an invalidated tag and keeps the others', () => {
    const cache = new TaggedCache<string>(10, 60_000);
    cache.set('k1', 'a', cache.begin(), { tags: ['agent:1'] });
    cache.set('k2', 'b', cache.begin(), { tags: ['agent:2'] });
    cache.invalidate('agent:1');
    expect(cache.get('k1')).toBeUndefined();
    expect(cache.get('k2')).toBe('b');
  });

  it('does not store a result read while an invalidation happened (the read began before the writer committed)', () => {
    const cache = new TaggedCache<string>(10, 60_000);
    const token = cache.begin();
    cache.invalidate('agent:1'); // the writer's notice arrives while the read is in flight
    cache.set('k1', 'old', token, { tags: ['agent:1'] });
    expect(cache.get('k1')).toBeUndefined();
    cache.set('k1', 'new', cache.begin(), { tags: ['agent:1'] });
    expect(cache.get('k1')).toBe('new');
  });

  it('expires an entry at its own end or after the TTL, whichever is first, and never stores an ended one', () => {
    let now = 1_000;
    const cache = new TaggedCache<string>(10, 100, () => now);
    cache.set('short', 'x', cache.begin(), { tags: [], expiresAt: 1_050 });
    cache.set('long', 'y', cache.begin(), { tags: [], expiresAt: 9_999 });
    cache.set('ended', 'z', cache.begin(), { tags: [], expiresAt: 1_000 });
    expect(cache.get('ended')).toBeUndefined();
    now = 1_049;
    expect([cache.get('short'), cache.get('long')]).toEqual(['x', 'y']);
    now = 1_050;
    expect(cache.get('short')).toBeUndefined();
    now = 1_100;
    expect(cache.get('long')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most its capacity, dropping the oldest', () => {
    const cache = new TaggedCache<number>(3, 60_000);
    for (let i = 0; i < 5; i++) cache.set(`k${i}`, i, cache.begin(), { tags: [`t${i}`] });
    expect(cache.size).toBe(3);
    expect([cache.get('k0'), cache.get('k1'), cache.get('k4')]).toEqual([undefined, undefined, 4]);
  });
});

describe('InProcessCacheInvalidations', () => {
  it('calls every subscriber of the channel synchronously, and none after unsubscribing', () => {
    const bus = new InProcessCacheInvalidations();
    const seen: string[] = [];
    const stop = bus.subscribe('records', (id) => seen.push(`a:${id}`));
    bus.subscribe('records', (id) => seen.push(`b:${id}`));
    bus.subscribe('agent-keys', (id) => seen.push(`k:${id}`));
    bus.publish('records', 'rec_1');
    expect(seen).toEqual(['a:rec_1', 'b:rec_1']);
    stop();
    bus.publish('records', 'rec_2');
    expect(seen).toEqual(['a:rec_1', 'b:rec_1', 'b:rec_2']);
  });
});
