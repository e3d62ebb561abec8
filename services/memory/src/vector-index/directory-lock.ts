import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

const LOCK_FILE = 'LOCK';

/** Directories opened by an index of this process: a second instance on the same files would corrupt them. */
const openDirectories = new Set<string>();

/**
 * Advisory lock of an index directory: one instance per directory in this process (a set), one process
 * per directory (a `LOCK` file with the pid; taken over when that process is gone, e.g. after a crash).
 *
 * Errors: "already open in this process", "in use by process <pid>", or the file system's error.
 */
export async function lockDirectory(directory: string): Promise<void> {
  if (openDirectories.has(directory)) throw new Error(`vector index in ${directory} is already open in this process`);
  const lockPath = path.join(directory, LOCK_FILE);
  try {
    // Exclusive create: of two processes starting together, only one gets the lock.
    await fsp.writeFile(lockPath, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number.parseInt(await fsp.readFile(lockPath, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) {
      throw new Error(`vector index in ${directory} is in use by process ${holder}`);
    }
    // Stale: its process is gone (crash), or it is this process after an instance was never closed.
    await fsp.writeFile(lockPath, `${process.pid}\n`, { mode: 0o600 });
  }
  openDirectories.add(directory);
}

/** Releases {@link lockDirectory}. */
export async function unlockDirectory(directory: string): Promise<void> {
  openDirectories.delete(directory);
  await fsp.rm(path.join(directory, LOCK_FILE), { force: true });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
