import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * A small JSON state file written next to an export's output or an import's input, so that a run
 * stopped for any reason (Ctrl-C, a crash, a network failure) continues where it stopped when run again
 * (clients/cli/README.md, "Export and import"). Writes are atomic (temporary file, then rename).
 */
export class Checkpoint<T extends object> {
  constructor(readonly path: string) {}

  /** The saved state, or undefined when there is none (or it cannot be read: then the run starts over). */
  load(): T | undefined {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /** Saves `state` atomically. */
  save(state: T): void {
    // exclusive create of a fresh name: never follows a file or symlink planted at the temporary name
    const temp = `${this.path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temp, this.path);
  }

  /** Removes the checkpoint (a finished export). */
  remove(): void {
    rmSync(this.path, { force: true });
  }
}
