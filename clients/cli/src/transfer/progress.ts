import { formatDuration } from '../output/output';

/** Progress of a long run (export, import) on stderr. */
export interface Progress {
  /** `done` items of `total` are finished; `status` is a short note (e.g. a rate-limit wait). */
  update(done: number, status?: string): void;
  stop(): void;
}

/**
 * Estimates the time left from the pace of the last `window` items (not from the start: an import's
 * first 30 writes go at once, the following ones at the rate limit's pace), or from `floorSeconds`
 * (the pace the rate limit allows) when that is longer.
 */
export class EtaEstimator {
  private readonly times: number[] = [];

  constructor(
    private readonly window = 30,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records that one more item is done. */
  tick(): void {
    this.times.push(this.now());
    if (this.times.length > this.window) this.times.shift();
  }

  /** Seconds left for `remaining` items, or undefined before two items are done. */
  secondsLeft(remaining: number, floorSeconds = 0): number | undefined {
    if (this.times.length < 2) return floorSeconds > 0 ? floorSeconds : undefined;
    const perItemMs = (this.times[this.times.length - 1] - this.times[0]) / (this.times.length - 1);
    return Math.max((perItemMs * remaining) / 1000, floorSeconds);
  }
}

/**
 * A progress bar (cli-progress) when stderr is a terminal, else a plain line at most every
 * `plainEveryMs` (and at the end), so logs of a non-interactive run stay readable. `eta(done)` gives
 * the seconds left.
 */
export function createProgress(options: {
  label: string;
  total: number;
  initial: number;
  eta: (done: number) => number | undefined;
  stream?: NodeJS.WriteStream;
  plainEveryMs?: number;
}): Progress {
  const stream = options.stream ?? process.stderr;
  const etaText = (done: number) => {
    const seconds = options.eta(done);
    return done >= options.total ? 'done' : seconds === undefined ? 'ETA …' : `ETA ${formatDuration(seconds)}`;
  };
  if (stream.isTTY) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { SingleBar } = require('cli-progress') as typeof import('cli-progress');
    const bar = new SingleBar({ format: `${options.label} [{bar}] {value}/{total} | {etaText} {status}`, stream, hideCursor: true, clearOnComplete: false }, undefined);
    bar.start(options.total, options.initial, { etaText: etaText(options.initial), status: '' });
    // Ctrl-C: give the terminal its cursor back (the work done is in the checkpoint), exit 130 as shells do
    const interrupted = () => {
      bar.stop();
      process.exit(130);
    };
    process.once('SIGINT', interrupted);
    return {
      update: (done, status = '') => bar.update(done, { etaText: etaText(done), status }),
      stop: () => {
        process.removeListener('SIGINT', interrupted);
        bar.stop();
      },
    };
  }
  const every = options.plainEveryMs ?? 5000;
  let last = 0;
  let lastDone = -1;
  const line = (done: number, status?: string) => {
    last = Date.now();
    lastDone = done;
    stream.write(`${options.label}: ${done}/${options.total} (${etaText(done)})${status ? ` ${status}` : ''}\n`);
  };
  line(options.initial);
  return {
    update(done, status) {
      if (status || done >= options.total || Date.now() - last >= every) line(done, status);
    },
    stop() {
      if (lastDone !== options.total) line(lastDone);
    },
  };
}
