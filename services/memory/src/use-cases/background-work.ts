import { Logger } from '@nestjs/common';

/**
 * Work done after a request has been answered, within one process: at most `concurrency` tasks run at a
 * time and at most `backlog` wait; a task submitted when the backlog is full is skipped (the caller must
 * only submit work whose absence is safe, e.g. a contextual re-index: the memory keeps its own entry;
 * docs/configuration.md, "Recall"). A task's failure is logged, never thrown. Memory: bounded by `backlog`.
 */
export class BackgroundWork {
  private readonly logger: Logger;
  private readonly waiting: Array<() => Promise<void>> = [];
  private running = 0;
  private idle: Array<() => void> = [];
  /** Tasks skipped because the backlog was full (since start). */
  skipped = 0;

  constructor(
    private readonly name: string,
    private readonly concurrency: number,
    private readonly backlog: number,
  ) {
    this.logger = new Logger(`BackgroundWork:${name}`);
  }

  /** Runs `task` when a slot is free; returns false (and runs nothing) when the backlog is full. */
  submit(task: () => Promise<void>): boolean {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.backlog) {
        this.skipped++;
        return false;
      }
      this.waiting.push(task);
      return true;
    }
    this.start(task);
    return true;
  }

  /** Resolves once nothing runs nor waits (tests; shutdown). */
  settled(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private start(task: () => Promise<void>): void {
    this.running++;
    void (async () => {
      try {
        await task();
      } catch (err) {
        this.logger.warn({ err }, `Background ${this.name} task failed`);
      }
      this.running--;
      const next = this.waiting.shift();
      if (next) this.start(next);
      else if (this.running === 0) this.idle.splice(0).forEach((resolve) => resolve());
    })();
  }
}
