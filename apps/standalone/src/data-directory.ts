import { lstat, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_DIRECTORY_MODE, tightenPrivateTree } from '@agent-memory/platform';

/** The process's file mode creation mask in standalone mode: new files and directories get no group or other bits. */
export const PRIVATE_UMASK = 0o077;

/** The sub-directories the standalone platform creates (PGlite, blob store, embedded vector index). */
const KNOWN_ENTRIES = ['postgres', 'blobs', 'vectors'];

/**
 * Makes the standalone data directory private before anything opens it (docs/deployment.md, "The data
 * directory"):
 * 1. sets the process umask to {@link PRIVATE_UMASK}, so every file the blob store, the vector index and
 *    PostgreSQL create from now on is 0600 and every directory 0700; in a worker thread, where
 *    `process.umask` cannot be set, the blob store's explicit modes and the tightening below still apply
 *    (PGlite's own initial files are tightened when the database opens, `PgliteDatabase.open`);
 * 2. creates `dataDir` with mode 0700 if missing;
 * 3. tightens an existing directory: when `dataDir` or one of its known sub-directories has group or other
 *    bits (made by an older version, or copied in), walks the whole tree ({@link tightenPrivateTree}).
 *    Otherwise nothing is walked: what this process creates is already private, so start-up stays O(1)
 *    in the number of files.
 * Returns how many entries were tightened.
 */
export async function preparePrivateDataDirectory(dataDir: string): Promise<number> {
  try {
    process.umask(PRIVATE_UMASK);
  } catch {
    // worker threads cannot change the umask (ERR_WORKER_UNSUPPORTED_OPERATION); see above
  }
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  let loose = false;
  for (const path of [dataDir, ...KNOWN_ENTRIES.map((name) => join(dataDir, name))]) {
    const st = await lstat(path).catch(() => null);
    if (st && (st.mode & 0o077) !== 0) loose = true;
  }
  return loose ? tightenPrivateTree(dataDir) : 0;
}
