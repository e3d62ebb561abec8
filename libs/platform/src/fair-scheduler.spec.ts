import { AsyncLocalStorage } from 'node:async_hooks';
import { once } from 'node:events';
import { type AddressInfo, createServer, connect, type Socket } from 'node:net';
import { RateLimitedError } from '@agent-memory/shared';
import { FairScheduler } from './fair-scheduler';

/** Fake work that finishes when the test says so, recording when it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('FairScheduler', () => {
  it('runs a bystander’s job submitted after ten busy agents’ 50 queued jobs each within the first round', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 100 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const submit = (agent: string, cost: number, label: string) => {
      const g = gate();
      gates.set(label, g);
      return scheduler.run(agent, cost, async () => {
        started.push(label);
        await g.opened;
      });
    };
    const done: Promise<void>[] = [];
    for (let k = 0; k < 50; k++) for (let a = 0; a < 10; a++) done.push(submit(`busy-${a}`, 8, `busy-${a}#${k}`));
    await flush();
    // One busy job runs; 499 wait. Now the bystander asks for a recall (cost 1).
    done.push(submit('bystander', 1, 'bystander'));
    // Serve jobs one at a time, in the scheduler's order, until the bystander has run.
    while (!started.includes('bystander')) {
      gates.get(started[started.length - 1])!.open();
      await flush();
    }
    // It ran before the next job of each busy agent: right after the one running when it arrived.
    expect(started.indexOf('bystander')).toBeLessThanOrEqual(10);
    expect(started.indexOf('bystander')).toBe(1);
    // The busy agents were served round-robin meanwhile, and every job still completes.
    for (const g of gates.values()) g.open();
    await Promise.all(done);
    expect(started).toHaveLength(501);
    const firstRound = started.slice(0, 11).filter((l) => l !== 'bystander').map((l) => l.split('#')[0]);
    expect(new Set(firstRound).size).toBe(10);
  });

  it('puts a heavy job of an idle agent within the current round, not behind the busy agents’ backlog', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 100 });
    const order: string[] = [];
    const done: Promise<void>[] = [];
    const blocker = gate();
    done.push(scheduler.run('x', 1, () => blocker.opened));
    for (let k = 0; k < 50; k++) for (let a = 0; a < 10; a++) done.push(scheduler.run(`busy-${a}`, 8, async () => void order.push(`busy-${a}#${k}`)));
    done.push(scheduler.run('late', 8, async () => void order.push('late')));
    blocker.open();
    await Promise.all(done);
    // Ten busy jobs (one of each agent) may run first: the round in progress; then the late agent's job.
    expect(order.indexOf('late')).toBeLessThanOrEqual(10);
    expect(new Set(order.slice(0, order.indexOf('late')).map((l) => l.split('#')[0])).size).toBe(order.indexOf('late'));
  });

  it('shares the slots equally by cost between backlogged agents', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 1000 });
    const order: string[] = [];
    const done: Promise<void>[] = [];
    const blocker = gate();
    done.push(scheduler.run('x', 1, () => blocker.opened));
    for (let k = 0; k < 100; k++) done.push(scheduler.run('heavy', 4, async () => void order.push('heavy')));
    for (let k = 0; k < 400; k++) done.push(scheduler.run('light', 1, async () => void order.push('light')));
    blocker.open();
    await Promise.all(done);
    // In the first 100 jobs, the light agent (cost 1) runs about four times as many jobs as the heavy one (cost 4).
    const head = order.slice(0, 100);
    const heavy = head.filter((l) => l === 'heavy').length;
    expect(heavy).toBeGreaterThanOrEqual(18);
    expect(heavy).toBeLessThanOrEqual(22);
  });

  it('never runs more than perAgentConcurrency jobs of one agent, nor more than concurrency in all', async () => {
    const scheduler = new FairScheduler({ concurrency: 4, perAgentConcurrency: 2, perAgentQueue: 100 });
    const running = new Map<string, number>();
    let total = 0;
    let maxTotal = 0;
    const maxPerAgent = new Map<string, number>();
    const job = (agent: string) =>
      scheduler.run(agent, 1, async () => {
        running.set(agent, (running.get(agent) ?? 0) + 1);
        total++;
        maxTotal = Math.max(maxTotal, total);
        maxPerAgent.set(agent, Math.max(maxPerAgent.get(agent) ?? 0, running.get(agent)!));
        await flush();
        await flush();
        running.set(agent, running.get(agent)! - 1);
        total--;
      });
    const jobs = [...Array.from({ length: 20 }, () => job('a')), ...Array.from({ length: 20 }, () => job('b')), ...Array.from({ length: 20 }, () => job('c'))];
    expect(scheduler.stats).toEqual({ running: 4, queued: 56, agents: 3 });
    await Promise.all(jobs);
    expect(maxTotal).toBe(4);
    expect(Math.max(...maxPerAgent.values())).toBe(2);
    expect(scheduler.stats).toEqual({ running: 0, queued: 0, agents: 0 });
  });

  it('refuses the job beyond perAgentQueue with RATE_LIMITED and Retry-After, without running it, other agents unaffected', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 3 });
    const blocker = gate();
    const ran: string[] = [];
    const accepted = [scheduler.run('a', 1, () => blocker.opened)];
    for (let i = 0; i < 3; i++) accepted.push(scheduler.run('a', 1, async () => void ran.push(`a${i}`)));
    let refused: unknown;
    try {
      await scheduler.run('a', 1, async () => void ran.push('overflow'));
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).code).toBe('RATE_LIMITED');
    expect((refused as RateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((refused as Error).message).toMatch(/1 running and 3 waiting/);
    // A later step of an admitted call waits its turn but is not refused.
    const step = scheduler.run('a', 1, async () => void ran.push('a-step'), { admitted: true });
    const other = scheduler.run('b', 1, async () => void ran.push('b'));
    blocker.open();
    await Promise.all([...accepted, step, other]);
    expect(ran.sort()).toEqual(['a-step', 'a0', 'a1', 'a2', 'b']);
  });

  it('runs each job in its caller’s async context, not in that of the job that dispatched it', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 10 });
    const context = new AsyncLocalStorage<string>();
    const blocker = gate();
    const first = context.run('caller-1', () => scheduler.run('a', 1, async () => { await blocker.opened; return context.getStore(); }));
    const second = context.run('caller-2', () => scheduler.run('b', 1, async () => context.getStore()));
    blocker.open();
    expect(await Promise.all([first, second])).toEqual(['caller-1', 'caller-2']);
  });

  it('passes a job’s failure to its caller and frees its slot', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 10 });
    await expect(scheduler.run('a', 1, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(scheduler.run('a', 1, () => { throw new Error('sync boom'); })).rejects.toThrow('sync boom');
    await expect(scheduler.run('a', 1, async () => 42)).resolves.toBe(42);
    expect(scheduler.stats).toEqual({ running: 0, queued: 0, agents: 0 });
  });

  it('reads a request that arrived during a job before it starts the next, when the jobs never yield (the model on the event loop)', async () => {
    // A loopback connection stands for a client's HTTP request: its bytes arrive while job 1 computes.
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await once(client, 'connect');
    const [socket] = await accepted;
    const events: string[] = [];
    socket.on('data', () => events.push('request read'));
    try {
      const scheduler = new FairScheduler({ concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 10 });
      // Each job computes without awaiting anything, as a tfjs embedding does: the first for 40 ms (ample
      // time for the loopback bytes to be readable), the others for 5 ms.
      const job = (n: number) => async () => {
        events.push(`job ${n}`);
        if (n === 1) client.write('POST /remember');
        const until = performance.now() + (n === 1 ? 40 : 5);
        while (performance.now() < until);
      };
      await Promise.all([1, 2, 3, 4].map((n) => scheduler.run('busy', 1, job(n))));
      // Back to back in one turn, all four jobs would run before the request is read; it is read before job 2.
      expect(events).toEqual(['job 1', 'request read', 'job 2', 'job 3', 'job 4']);
    } finally {
      client.destroy();
      socket.destroy();
      await new Promise((closed) => server.close(closed));
    }
  });
});
