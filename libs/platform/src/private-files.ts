import { chmod, lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

/** Mode of every directory of a standalone data directory: owner only (docs/deployment.md, "The data directory"). */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** Mode of every file of a standalone data directory: owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Removes group and other access from `dir` and everything below it: directories become
 * {@link PRIVATE_DIRECTORY_MODE}, regular files {@link PRIVATE_FILE_MODE}. Symbolic links are neither followed
 * nor changed. Linear in the number of entries, iterative (no recursion depth), one `lstat` per entry and a
 * `chmod` only where a mode differs. Returns how many entries changed; a missing `dir` changes nothing.
 */
export async function tightenPrivateTree(dir: string): Promise<number> {
  let changed = 0;
  const fix = async (path: string, wanted: number) => {
    const st = await lstat(path).catch(() => null); // gone meanwhile (a temporary file): nothing to protect
    if (st && (st.mode & 0o777) !== wanted) {
      await chmod(path, wanted).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      changed++;
    }
  };
  if (!(await lstat(dir).catch(() => null))?.isDirectory()) return 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    await fix(current, PRIVATE_DIRECTORY_MODE);
    for await (const entry of await opendir(current)) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) stack.push(path);
      else if (entry.isFile()) await fix(path, PRIVATE_FILE_MODE);
    }
  }
  return changed;
}
