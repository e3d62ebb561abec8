import { Logger } from '@nestjs/common';

/** A started {@link startPeriodicTask}; `stop` clears the timer and waits for a run in progress. */
export interface PeriodicTask {
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` ms (first run after one interval) for background upkeep: purge sweeps,
 * table clean-ups. A run still in progress when the next one is due makes that one skip; a thrown error
 * is logged (warn) under `name` and the next run happens as scheduled. The timer is unref'd, so it never
 * keeps a process alive.
 */
export function startPeriodicTask(name: string, intervalMs: number, run: () => Promise<unknown>, logger = new Logger('PeriodicTask')): PeriodicTask {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = run()
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ task: name, err }, 'Periodic task failed; will run again'))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
