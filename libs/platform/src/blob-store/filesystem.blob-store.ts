import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { assertBlobKey, type BlobStore } from './blob-store.port';

/** Modes of what the store creates: owner only, whatever the process umask (docs/deployment.md, "The data directory"). */
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Standalone {@link BlobStore}: one file per key under `root`. Writes go to a temporary file that is
 * fsynced and renamed into place, so an acknowledged write survives a crash and a torn write is never
 * visible. Directories are created 0700 and files 0600.
 */
export class FilesystemBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertBlobKey(key);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true, mode: DIRECTORY_MODE });
    const tmp = `${target}.${randomUUID()}.tmp`;
    const handle = await open(tmp, 'w', FILE_MODE);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      try {
        await unlink(this.pathOf(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobKey(prefix, true);
    if (!prefix.endsWith('/')) throw new Error('A blob prefix must end with "/"');
    await rm(join(this.root, ...prefix.slice(0, -1).split('/')), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<string[]> {
    assertBlobKey(prefix, true);
    const base = join(this.root, ...prefix.replace(/\/$/, '').split('/'));
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (!e.name.endsWith('.tmp')) out.push(relative(this.root, p).split('\\').join('/'));
      }
    };
    await walk(base);
    return out.sort();
  }
}
