import { randomBytes } from 'node:crypto';
import { startS3TestServer, type S3TestServer } from '@agent-memory/testing';
import { describeBlobStoreContract } from './blob-store.contract';
import { S3BlobStore } from './s3.blob-store';

/** Buckets per store, so that the contract and the cases below never share state. */
const bucketName = (): string => `am-test-${randomBytes(4).toString('hex')}`;

/** 5 MiB parts (the S3 minimum): the contract's 6 MB object then goes through a multipart upload. */
const PART_SIZE = 5 * 1024 * 1024;

describeBlobStoreContract('S3BlobStore on s3rver', async () => {
  const server = await startS3TestServer();
  const store = new S3BlobStore({ ...server, bucket: bucketName(), partSizeBytes: PART_SIZE });
  await store.ensureBucket();
  return { store, dispose: () => server.stop() };
});

describe('S3BlobStore (s3rver)', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3TestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('creates the bucket if missing; twice, or concurrently, is fine', async () => {
    const bucket = bucketName();
    const store = new S3BlobStore({ ...server, bucket });
    await expect(store.ping()).rejects.toThrow(/does not exist/);
    await store.ensureBucket();
    await store.ensureBucket();
    await Promise.all([1, 2, 3].map(() => new S3BlobStore({ ...server, bucket }).ensureBucket()));
    await store.ping();
    await store.put('records/rec_1/x', Buffer.from('x'));
    expect((await store.get('records/rec_1/x'))?.toString()).toBe('x');
  });

  it('sends an object above the part size as a multipart upload (the front answers the uploads listing)', async () => {
    const store = new S3BlobStore({ ...server, bucket: bucketName(), partSizeBytes: PART_SIZE });
    await store.ensureBucket();
    const data = randomBytes(PART_SIZE * 2 + 123);
    const before = server.stats();
    await store.put('records/rec_1/raw/big', data);
    expect(server.stats().multipartUploads).toBe(before.multipartUploads + 1);
    expect(server.stats().uploadListings).toBe(before.uploadListings + 1);
    await store.put('records/rec_1/raw/small', randomBytes(PART_SIZE));
    expect(server.stats().multipartUploads).toBe(before.multipartUploads + 1);
    expect((await store.get('records/rec_1/raw/small'))?.length).toBe(PART_SIZE);
    expect((await store.get('records/rec_1/raw/big'))?.equals(data)).toBe(true);
  });

  it('deletes more than one batch of 1000 keys', async () => {
    const store = new S3BlobStore({ ...server, bucket: bucketName() });
    await store.ensureBucket();
    const keys = Array.from({ length: 1005 }, (_, i) => `records/rec_1/m/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50) await Promise.all(keys.slice(i, i + 50).map((k) => store.put(k, Buffer.from(k))));
    await store.put('records/rec_2/keep', Buffer.from('k'));
    expect(await store.list('records/rec_1/')).toHaveLength(1005);
    await store.deletePrefix('records/rec_1/');
    expect(await store.list('records/rec_1/')).toEqual([]);
    expect(await store.list('records/rec_2/')).toEqual(['records/rec_2/keep']);
  }, 30_000);

  it('survives concurrent puts, deletes and listings in the same directories', async () => {
    const store = new S3BlobStore({ ...server, bucket: bucketName() });
    await store.ensureBucket();
    const key = (i: number): string => `records/rec_1/memories/mem_${i % 3}/sha256:${i}`;
    for (let i = 0; i < 40; i++) {
      await Promise.all([
        store.put(key(i), Buffer.from(String(i))),
        i > 0 ? store.delete([key(i - 1)]) : Promise.resolve(),
        store.list('records/rec_1/'),
        i > 1 ? store.deletePrefix(`records/rec_1/memories/mem_${(i - 2) % 3}/`) : Promise.resolve(),
      ]);
    }
    expect(await store.list('records/rec_1/')).toEqual([key(39)]);
  });

  it('rejects put/get/delete/ping while the server fails, and works again after', async () => {
    const store = new S3BlobStore({ ...server, bucket: bucketName() });
    await store.ensureBucket();
    await store.put('records/rec_1/a', Buffer.from('before'));
    server.setFailing(true);
    try {
      await expect(store.put('records/rec_1/a', Buffer.from('during'))).rejects.toThrow(/503/);
      await expect(store.get('records/rec_1/a')).rejects.toThrow(/503/);
      await expect(store.delete(['records/rec_1/a'])).rejects.toThrow(/503/);
      await expect(store.list('records/rec_1/')).rejects.toThrow(/503/);
      await expect(store.ping()).rejects.toThrow(/503/);
    } finally {
      server.setFailing(false);
    }
    expect((await store.get('records/rec_1/a'))?.toString()).toBe('before');
    await store.put('records/rec_1/a', Buffer.from('after'));
    expect((await store.get('records/rec_1/a'))?.toString()).toBe('after');
    await store.delete(['records/rec_1/a']);
    expect(await store.get('records/rec_1/a')).toBeNull();
    await store.ping();
  });

  it('rejects a call to a hung server after requestTimeoutMs, and works again after', async () => {
    const store = new S3BlobStore({ ...server, bucket: bucketName(), requestTimeoutMs: 500 });
    await store.ensureBucket();
    server.setHanging(true);
    try {
      for (const call of [() => store.put('records/rec_1/h', Buffer.from('h')), () => store.get('records/rec_1/h'), () => store.ping()]) {
        const started = Date.now();
        await expect(call()).rejects.toMatchObject({ code: 'ETIMEDOUT' });
        expect(Date.now() - started).toBeGreaterThanOrEqual(450);
        expect(Date.now() - started).toBeLessThan(3_000);
      }
    } finally {
      server.setHanging(false);
    }
    await store.put('records/rec_1/h', Buffer.from('h'));
    expect((await store.get('records/rec_1/h'))?.toString()).toBe('h');
  });
});
