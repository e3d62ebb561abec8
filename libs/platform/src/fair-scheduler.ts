import { AsyncResource } from 'node:async_hooks';
import { RateLimitedError } from '@agent-memory/shared';

/** Settings of a {@link FairScheduler} (docs/configuration.md, "Fairness between agents"). */
export interface FairSchedulerOptions {
  /** Jobs running at once in this process, all agents together (≥ 1). */
  concurrency: number;
  /** Jobs of one agent running at once (≥ 1); the agent's further jobs wait even when slots are free. */
  perAgentConcurrency: number;
  /** Jobs of one agent waiting for a slot (≥ 0); one more is refused with RATE_LIMITED. */
  perAgentQueue: number;
}

/** A snapshot of the scheduler, for tests and metrics. */
export interface FairSchedulerStats {
  running: number;
  queued: number;
  /** Agents with a job running or waiting. */
  agents: number;
}

interface Job {
  start: number;
  finish: number;
  seq: number;
  run(): void;
}

interface AgentState {
  queue: Job[];
  running: number;
  /** Finish tag of the agent's latest job (start + cost). */
  lastFinish: number;
}

/**
 * Admission control for expensive work (embedding, search) with fairness between agents: at most
 * `concurrency` jobs run at once in this process, at most `perAgentConcurrency` of them for one agent,
 * and at most `perAgentQueue` jobs of one agent wait; one more is refused at once with
 * {@link RateLimitedError} (429 with `Retry-After`, docs/api.md "Rate limits"), so a busy tenant can
 * neither hold every slot nor grow an unbounded queue.
 *
 * Waiting jobs are served in weighted fair queuing order (A. Demers, S. Keshav, S. Shenker, "Analysis
 * and Simulation of a Fair Queueing Algorithm", SIGCOMM 1989: smallest virtual finish tag first), with
 * the virtual time of start-time fair queuing (P. Goyal, H. M. Vin, H. Cheng, "Start-time Fair
 * Queueing", SIGCOMM 1996: V is the start tag of the latest job dispatched). A job of cost c gets the
 * start tag S = max(V, the agent's previous finish tag) and the finish tag F = S + c, where c weighs the
 * work (e.g. the number of texts it embeds). Each backlogged agent gets an equal share of cost, and an
 * agent that was idle starts at V, so its light job (a recall, cost 1) finishes before the next job of
 * each busy agent instead of after all their queued work (FIFO across agents was the starvation,
 * docs/configuration.md "Fairness between agents"); its heavy job runs within the current round.
 *
 * A job runs in the async context of its caller (AsyncLocalStorage: request id, principal, deadline).
 * Per process (each replica schedules its own work). Choosing a job scans the agents with waiting jobs:
 * O(agents waiting) per dispatch, and memory grows with the jobs waiting (bounded per agent).
 */
export class FairScheduler {
  private readonly agents = new Map<string, AgentState>();
  private running = 0;
  private queued = 0;
  private virtualTime = 0;
  private seq = 0;
  /**
   * Jobs ended whose slots wait for the next poll phase before they are refilled ({@link dispatchAfterIo});
   * above 0 exactly while the first turn of a refill is scheduled and has not run.
   */
  private endedAwaitingIo = 0;
  /** Exponentially weighted mean run time per unit of cost, ms (for Retry-After). */
  private msPerCost = 50;

  constructor(private readonly options: FairSchedulerOptions) {
    if (!(options.concurrency >= 1 && options.perAgentConcurrency >= 1 && options.perAgentQueue >= 0)) {
      throw new Error(`FairScheduler: bad options ${JSON.stringify(options)}`);
    }
  }

  /**
   * Runs `work` for `agentId` once a slot is free and the agent's turn has come; resolves or rejects as
   * `work` does. `cost` (> 0; e.g. texts to embed) weighs the job in the agent's share. `admitted` marks
   * a later step of a call whose first job was already admitted: it waits its turn but is never refused,
   * so a call is refused before it has done any work or never.
   * @throws RateLimitedError (synchronously) when the agent already has `perAgentQueue` jobs waiting and
   *   the job is not `admitted` (`work` never runs).
   */
  run<T>(agentId: string, cost: number, work: () => Promise<T>, options: { admitted?: boolean } = {}): Promise<T> {
    let agent = this.agents.get(agentId);
    if (agent && !options.admitted && agent.queue.length >= this.options.perAgentQueue) {
      const { perAgentConcurrency, perAgentQueue } = this.options;
      const waitMs = ((agent.queue.length + agent.running) * this.msPerCost * Math.max(1, cost)) / perAgentConcurrency;
      throw new RateLimitedError(
        `Too many requests of this agent in progress: ${agent.running} running and ${agent.queue.length} waiting (at most ${perAgentConcurrency} and ${perAgentQueue}); retry later`,
        Math.min(60, Math.max(1, Math.ceil(waitMs / 1000))),
      );
    }
    if (!agent) {
      agent = { queue: [], running: 0, lastFinish: 0 };
      this.agents.set(agentId, agent);
    }
    const weight = Number.isFinite(cost) && cost > 0 ? cost : 1;
    const start = Math.max(this.virtualTime, agent.lastFinish);
    agent.lastFinish = start + weight;
    const state = agent;
    // The job runs in its caller's async context (request id, principal, deadline), not in that of the
    // job whose end happened to dispatch it.
    const task = AsyncResource.bind(work);
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        start,
        finish: start + weight,
        seq: this.seq++,
        run: () => {
          const began = performance.now();
          Promise.resolve()
            .then(task)
            .then(resolve, reject)
            .finally(() => {
              this.msPerCost = 0.8 * this.msPerCost + 0.2 * ((performance.now() - began) / weight);
              this.running--;
              state.running--;
              if (state.running === 0 && state.queue.length === 0) this.agents.delete(agentId);
              this.dispatchAfterIo();
            });
        },
      };
      state.queue.push(job);
      this.queued++;
      this.dispatch();
    });
  }

  /** Running and waiting jobs now. */
  get stats(): FairSchedulerStats {
    return { running: this.running, queued: this.queued, agents: this.agents.size };
  }

  /**
   * Refills a finished job's slot once the event loop has polled for I/O. A job that ends in a microtask
   * would otherwise start the next one within the same turn: with the model on the event loop's thread
   * (EMBEDDER_RUNTIME=tfjs) and jobs that await no I/O, jobs then ran back to back and requests sent
   * meanwhile were not even read, so their calls could not join the queue the scheduler orders (a request
   * needs a few turns to reach its job). Two check phases (setImmediate twice) put a poll phase between a
   * job's end and the start that refills its slot, wherever the end came from; ends in the same turn share
   * one pair, and an end after its first turn ran waits for a pair of its own. Costs two loop turns per job
   * (microseconds when idle). A call submitted meanwhile may take a free slot at once (`run` dispatches
   * the smallest tag among all waiting jobs, not necessarily its own). Tests that fake `setImmediate`
   * (Jest's fake timers) must leave it real, or the second job never starts.
   */
  private dispatchAfterIo(): void {
    if (this.endedAwaitingIo++ > 0) return; // the scheduled first turn will count this end too
    setImmediate(() => {
      const slots = this.endedAwaitingIo;
      this.endedAwaitingIo = 0;
      setImmediate(() => this.dispatch(slots));
    });
  }

  /**
   * Starts waiting jobs while slots are free, at most `limit`: smallest finish tag first among agents
   * under their cap.
   */
  private dispatch(limit = Number.POSITIVE_INFINITY): void {
    for (let started = 0; started < limit && this.running < this.options.concurrency && this.queued > 0; started++) {
      let best: AgentState | undefined;
      for (const agent of this.agents.values()) {
        if (agent.queue.length === 0 || agent.running >= this.options.perAgentConcurrency) continue;
        const head = agent.queue[0];
        const top = best?.queue[0];
        if (!top || head.finish < top.finish || (head.finish === top.finish && head.seq < top.seq)) best = agent;
      }
      if (!best) return; // every agent with waiting jobs is at its cap
      const job = best.queue.shift()!;
      this.queued--;
      this.running++;
      best.running++;
      this.virtualTime = Math.max(this.virtualTime, job.start);
      job.run();
    }
  }
}
