import { randomBytes } from 'node:crypto';
import type { BlobStore } from './blob-store.port';

/** A store made for the contract suite, and how to dispose of it after the suite. */
export interface BlobStoreUnderTest {
  store: BlobStore;
  dispose?: () => Promise<void>;
}

/**
 * Registers the shared {@link BlobStore} contract (Jest cases) for one adapter, so that the filesystem
 * (standalone) and S3 (cluster) adapters behave the same (docs/architecture.md, "Ports and adapters": a mode only picks adapters).
 * `makeStore` is called once in `beforeAll` and must return an empty store; every case works under its
 * own random `records/rec_…/` prefix, so the cases do not depend on one another.
 *
 * Pinned behaviour: put/get round trip of any bytes (binary, empty, 6 MB); overwrite replaces the bytes;
 * absent keys read as null and are ignored by delete; deletePrefix and list act on a directory-like
 * prefix (`records/rec_a` never matches `records/rec_ab/…`); list is sorted; keys and prefixes that fail
 * `assertBlobKey` are rejected before any I/O.
 */
export function describeBlobStoreContract(name: string, makeStore: () => Promise<BlobStoreUnderTest>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let subject: BlobStoreUnderTest;
    let store: BlobStore;

    beforeAll(async () => {
      subject = await makeStore();
      store = subject.store;
    });
    afterAll(async () => {
      await subject?.dispose?.();
    });

    /** A fresh record prefix such as `records/rec_3f9a…/`. */
    const newRecord = (): string => `records/rec_${randomBytes(6).toString('hex')}/`;

    it('round-trips text, binary and empty buffers', async () => {
      const rec = newRecord();
      const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await store.put(`${rec}memories/mem_1/sha256:abc`, Buffer.from('héllo wörld', 'utf8'), 'text/plain; charset=utf-8');
      await store.put(`${rec}raw/bin`, binary);
      await store.put(`${rec}raw/empty`, Buffer.alloc(0));
      expect((await store.get(`${rec}memories/mem_1/sha256:abc`))?.toString('utf8')).toBe('héllo wörld');
      expect((await store.get(`${rec}raw/bin`))?.equals(binary)).toBe(true);
      const empty = await store.get(`${rec}raw/empty`);
      expect(empty).not.toBeNull();
      expect(empty!.length).toBe(0);
    });

    it('overwrite replaces the bytes', async () => {
      const key = `${newRecord()}files/f_1`;
      await store.put(key, Buffer.from('first version, longer than the second'));
      await store.put(key, Buffer.from('second'));
      expect((await store.get(key))?.toString()).toBe('second');
    });

    it('reads an absent key as null', async () => {
      const rec = newRecord();
      expect(await store.get(`${rec}nothing/here`)).toBeNull();
      await store.put(`${rec}present`, Buffer.from('x'));
      expect(await store.get(`${rec}absent`)).toBeNull();
    });

    it('deletes many keys and ignores absent ones', async () => {
      const rec = newRecord();
      await store.put(`${rec}a`, Buffer.from('a'));
      await store.put(`${rec}b/c`, Buffer.from('c'));
      await store.put(`${rec}keep`, Buffer.from('k'));
      await store.delete([`${rec}a`, `${rec}b/c`, `${rec}never-written`, `${newRecord()}x`]);
      await store.delete([]);
      expect(await store.get(`${rec}a`)).toBeNull();
      expect(await store.get(`${rec}b/c`)).toBeNull();
      expect((await store.get(`${rec}keep`))?.toString()).toBe('k');
      await store.delete([`${rec}a`]);
    });

    it('deletePrefix removes only that prefix', async () => {
      const rec = newRecord();
      const sibling = `${rec.slice(0, -1)}0/`; // same leading characters, another record
      await store.put(`${rec}memories/m1`, Buffer.from('1'));
      await store.put(`${rec}memories/deep/m2`, Buffer.from('2'));
      await store.put(`${rec}files/f1`, Buffer.from('3'));
      await store.put(`${sibling}memories/m1`, Buffer.from('4'));
      await store.deletePrefix(`${rec}memories/`);
      expect(await store.list(rec)).toEqual([`${rec}files/f1`]);
      await store.deletePrefix(rec);
      expect(await store.list(rec)).toEqual([]);
      expect((await store.get(`${sibling}memories/m1`))?.toString()).toBe('4');
      await store.deletePrefix(`${newRecord()}`); // absent prefix: no error
      await expect(store.deletePrefix(rec.slice(0, -1))).rejects.toThrow();
    });

    it('lists the keys under a prefix, sorted, with or without the trailing slash', async () => {
      const rec = newRecord();
      const sibling = `${rec.slice(0, -1)}0/`;
      const keys = [`${rec}b/2`, `${rec}a`, `${rec}b/1`, `${rec}c/d/e`];
      for (const key of keys) await store.put(key, Buffer.from(key));
      await store.put(`${sibling}a`, Buffer.from('other record'));
      const sorted = [...keys].sort();
      expect(await store.list(rec)).toEqual(sorted);
      expect(await store.list(rec.slice(0, -1))).toEqual(sorted);
      expect(await store.list(`${rec}b/`)).toEqual([`${rec}b/1`, `${rec}b/2`]);
      expect(await store.list(newRecord())).toEqual([]);
    });

    it.each([
      ['empty', ''],
      ['leading slash', '/records/x'],
      ['dot-dot segment', 'records/../etc/passwd'],
      ['dot segment', 'records/./x'],
      ['empty segment', 'records//x'],
      ['trailing slash', 'records/x/'],
      ['space', 'records/a b'],
      ['control character', 'records/a\u0001'],
      ['backslash', 'records\\x'],
    ])('rejects an invalid key (%s)', async (_label, key) => {
      await expect(store.put(key, Buffer.from('x'))).rejects.toThrow(/Invalid blob key/);
      await expect(store.get(key)).rejects.toThrow(/Invalid blob key/);
      await expect(store.delete([key])).rejects.toThrow(/Invalid blob key/);
    });

    it('rejects an invalid prefix', async () => {
      await expect(store.list('../')).rejects.toThrow(/Invalid blob key/);
      await expect(store.deletePrefix('records/../')).rejects.toThrow(/Invalid blob key/);
    });

    it('round-trips a 6 MB object', async () => {
      const key = `${newRecord()}raw/large`;
      const data = randomBytes(6 * 1024 * 1024);
      await store.put(key, data);
      const back = await store.get(key);
      expect(back?.length).toBe(data.length);
      expect(back?.equals(data)).toBe(true);
    });

    it('accepts concurrent puts to different keys', async () => {
      const rec = newRecord();
      const keys = Array.from({ length: 24 }, (_, i) => `${rec}memories/mem_${i}/sha256:${i}`);
      await Promise.all(keys.map((key) => store.put(key, Buffer.from(`value ${key}`))));
      const values = await Promise.all(keys.map((key) => store.get(key)));
      expect(values.map((v) => v?.toString())).toEqual(keys.map((key) => `value ${key}`));
      expect(await store.list(`${rec}memories/`)).toEqual([...keys].sort());
    });
  });
}
