import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { ZodError } from 'zod';
import { JOBS, type JobName, QUEUES } from '@agent-memory/shared';
import { startRedisServer, freePort } from '@agent-memory/testing';
import { BullMqJobQueue, type BullMqJobQueueOptions, JOB_QUEUE_NAMES } from './bullmq.job-queue';

// Integration: the real Redis on 127.0.0.1:6379. Each test uses its own BullMQ prefix (so no worker of one
// test takes another's jobs); every key under the run's prefix is deleted at the end.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const runPrefix = `am:test:jobs:${randomBytes(6).toString('hex')}`;
let testNo = 0;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('BullMqJobQueue (real Redis)', () => {
  const open: BullMqJobQueue[] = [];
  let prefix = '';
  const queue = (options: Partial<BullMqJobQueueOptions> = {}): BullMqJobQueue => {
    const q = new BullMqJobQueue({ connection: REDIS_URL, prefix, ...options });
    open.push(q);
    return q;
  };

  beforeEach(() => {
    prefix = `${runPrefix}:${++testNo}`;
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((q) => q.close()));
  });

  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${runPrefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('maps every job of the union to a queue named in QUEUES', () => {
    for (const name of Object.keys(JOBS) as JobName[]) expect(Object.values(QUEUES)).toContain(JOB_QUEUE_NAMES[name]);
    expect(JOB_QUEUE_NAMES['memory.purge']).toBe('memory-purge');
    expect(JOB_QUEUE_NAMES['files.purge-record']).toBe('files-purge');
  });

  it('runs a job with its validated data', async () => {
    const jobs = queue();
    const seen: unknown[] = [];
    jobs.process('memory.purge', async (data) => {
      seen.push(data);
    });
    await jobs.enqueue('memory.purge', { taskId: 'prg_1' });
    await jobs.drain();
    expect(seen).toEqual([{ taskId: 'prg_1' }]);
    expect(await jobs.failed()).toEqual([]);
  });

  it('retries a failing handler with capped exponential backoff, then succeeds', async () => {
    const jobs = queue();
    const times: number[] = [];
    // uncapped the waits would be 100, 200, 400, 800 ms; the cap makes each 100 ms
    jobs.process(
      'memory.purge',
      async () => {
        times.push(Date.now());
        if (times.length <= 4) throw new Error(`store down (${times.length})`);
      },
      { attempts: 6, backoffMs: 100, maxBackoffMs: 100 },
    );
    await jobs.enqueue('memory.purge', { taskId: 'prg_retry' });
    await jobs.drain();
    expect(times).toHaveLength(5);
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(90);
    expect(gaps[3]).toBeLessThan(600);
    expect(await jobs.failed()).toEqual([]);
  });

  it('applies the exponential part of the backoff below the cap', async () => {
    const jobs = queue();
    const times: number[] = [];
    jobs.process(
      'memory.purge',
      async () => {
        times.push(Date.now());
        if (times.length <= 2) throw new Error('not yet');
      },
      { attempts: 3, backoffMs: 150, maxBackoffMs: 10_000 },
    );
    await jobs.enqueue('memory.purge', { taskId: 'prg_exp' });
    await jobs.drain();
    expect(times).toHaveLength(3);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(140);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(290); // 150 · 2
  });

  it('puts a job that exhausts its attempts in the dead-letter view', async () => {
    const jobs = queue();
    let runs = 0;
    jobs.process(
      'files.purge-record',
      async () => {
        runs++;
        throw new Error('blob store unreachable');
      },
      { attempts: 3, backoffMs: 20, maxBackoffMs: 50 },
    );
    const data = { recordId: 'rec_dead', eventId: 'evt_1' };
    await jobs.enqueue('files.purge-record', data);
    await jobs.drain();
    expect(runs).toBe(3);
    expect(await jobs.failed()).toEqual([{ name: 'files.purge-record', data, error: 'blob store unreachable', attempts: 3 }]);
    const counts = await jobs.counts();
    expect(counts).toEqual(
      expect.arrayContaining([
        { queue: JOB_QUEUE_NAMES['files.purge-record'], waiting: 0, active: 0, delayed: 0, failed: 1 },
        { queue: JOB_QUEUE_NAMES['memory.purge'], waiting: 0, active: 0, delayed: 0, failed: 0 },
      ]),
    );
  });

  it('de-duplicates on jobId while a job waits, and replaces a dead-lettered one', async () => {
    const producer = queue({ role: 'producer' });
    for (let i = 0; i < 3; i++) await producer.enqueue('memory.purge', { taskId: 'prg_dup' }, { jobId: 'prg_dup' });
    // ids BullMQ would refuse (integer-like, with a colon) are escaped
    await producer.enqueue('memory.purge', { taskId: 'x' }, { jobId: '42' });
    await producer.enqueue('memory.purge', { taskId: 'y' }, { jobId: 'a:b' });
    expect((await producer.counts()).find((c) => c.queue === JOB_QUEUE_NAMES['memory.purge'])?.waiting).toBe(3);

    const worker = queue({ role: 'worker' });
    const seen: string[] = [];
    let fail = true;
    worker.process(
      'memory.purge',
      async ({ taskId }) => {
        seen.push(taskId);
        if (fail && taskId === 'prg_dup') throw new Error('fails for good');
      },
      { attempts: 1, backoffMs: 10, maxBackoffMs: 10 },
    );
    await worker.drain();
    expect(seen.sort()).toEqual(['prg_dup', 'x', 'y']);
    expect(await worker.failed()).toHaveLength(1);

    // the owner re-queues the task (e.g. at start-up): the dead job gives way to a new one
    fail = false;
    await producer.enqueue('memory.purge', { taskId: 'prg_dup' }, { jobId: 'prg_dup' });
    await worker.drain();
    expect(seen.filter((t) => t === 'prg_dup')).toHaveLength(2);
    expect(await worker.failed()).toEqual([]);
  });

  it('rejects invalid data at enqueue, and fails invalid queued data without retries', async () => {
    const jobs = queue();
    const seen: unknown[] = [];
    jobs.process('files.purge-record', async (data) => {
      seen.push(data);
    });
    await expect(jobs.enqueue('memory.purge', { taskId: '' })).rejects.toBeInstanceOf(ZodError);
    await expect(jobs.enqueue('files.purge-record', { recordId: 'not-a-record-id', eventId: 'e' })).rejects.toBeInstanceOf(ZodError);
    expect((await jobs.counts()).every((c) => c.waiting === 0 && c.delayed === 0)).toBe(true);

    // a message written by something else (an older version, a bug) is checked again before handling
    const raw = new Queue(JOB_QUEUE_NAMES['files.purge-record'], { connection: { url: REDIS_URL }, prefix });
    await raw.add('files.purge-record', { recordId: 42 }, { attempts: 5 });
    await raw.close();
    await jobs.drain();
    expect(seen).toEqual([]);
    const [dead] = await jobs.failed();
    expect(dead).toMatchObject({ name: 'files.purge-record', data: { recordId: 42 }, attempts: 1 });
    expect(dead.error).toMatch(/^Invalid files\.purge-record job data/);
  });

  it('a producer-only instance (API process) enqueues without processing; a worker instance (memory-worker) processes', async () => {
    const producer = queue({ role: 'producer' });
    const producerSeen: unknown[] = [];
    // the same module code runs in both processes: on the producer, process() only records the retry policy
    producer.process(
      'memory.purge',
      async (data) => {
        producerSeen.push(data);
      },
      { attempts: 7, backoffMs: 10, maxBackoffMs: 10 },
    );
    await producer.enqueue('memory.purge', { taskId: 'prg_split' }, { jobId: 'prg_split' });
    await sleep(300);
    expect(producerSeen).toEqual([]);
    const raw = new Queue(JOB_QUEUE_NAMES['memory.purge'], { connection: { url: REDIS_URL }, prefix });
    expect((await raw.getJob('id-prg_split'))?.opts.attempts).toBe(7);
    await raw.close();

    const worker = queue({ role: 'worker' });
    const workerSeen: unknown[] = [];
    worker.process('memory.purge', async (data) => {
      workerSeen.push(data);
    });
    await producer.drain(); // the producer sees the shared queue empty once the worker is done
    expect(workerSeen).toEqual([{ taskId: 'prg_split' }]);
    expect(producerSeen).toEqual([]);
  });

  it('close() waits for an in-flight job to finish', async () => {
    const jobs = queue();
    let started = false;
    let finished = false;
    jobs.process('memory.purge', async () => {
      started = true;
      await sleep(500);
      finished = true;
    });
    await jobs.enqueue('memory.purge', { taskId: 'prg_slow' });
    while (!started) await sleep(10);
    await jobs.close();
    expect(finished).toBe(true);
    // finished, hence removed (not failed, not back in waiting)
    const check = new BullMqJobQueue({ connection: REDIS_URL, prefix, role: 'producer' });
    open.push(check);
    expect((await check.counts()).every((c) => c.waiting + c.active + c.delayed + c.failed === 0)).toBe(true);
  });

  it('enqueue fails fast while Redis is down (stopped server, dead port) and works again once it is back', async () => {
    const redis = await startRedisServer();
    try {
      const jobs = queue({ connection: redis.url });
      await jobs.enqueue('memory.purge', { taskId: 'prg_up' }, { jobId: 'prg_up' });
      await redis.stop();
      for (const taskId of ['prg_down_1', 'prg_down_2']) {
        const started = Date.now();
        await expect(jobs.enqueue('memory.purge', { taskId }, { jobId: taskId })).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(3_000);
      }
      await redis.start();
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          await jobs.enqueue('memory.purge', { taskId: 'prg_back' }, { jobId: 'prg_back' });
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await sleep(200);
        }
      }
      const dead = queue({ connection: `redis://127.0.0.1:${await freePort()}` });
      const started = Date.now();
      await expect(dead.enqueue('memory.purge', { taskId: 'prg_never' })).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await Promise.all(open.splice(0).map((q) => q.close()));
      await redis.destroy();
    }
  }, 30_000);
});
