import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { BlobFileWriter, WRITER_THREAD_MAX_BYTES } from './blob-file-writer';
import { assertBlobKey, type BlobStore } from './blob-store.port';

/** Modes of what the store creates: owner only, whatever the process umask (docs/deployment.md, "The data directory"). */
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/** The process's one writer thread for small blobs ({@link BlobFileWriter}), shared by every store. */
const sharedWriter = new BlobFileWriter();

/**
 * Standalone {@link BlobStore}: one file per key under `root`. Writes go to a temporary file that is
 * fsynced and renamed into place, so an acknowledged write survives a crash and a torn write is never
 * visible. Directories are created 0700 and files 0600. A blob of at most 64 KiB (every memory's
 * content) is written by a writer thread ({@link BlobFileWriter}: one message instead of six trips
 * through the pool, each waiting for the busy event loop); a larger one on the event loop's pool.
 */
export class FilesystemBlobStore implements BlobStore {
  /** @param writer the thread that writes small blobs (tests pass their own). */
  constructor(
    private readonly root: string,
    private readonly writer: BlobFileWriter = sharedWriter,
  ) {}

  private pathOf(key: string): string {
    assertBlobKey(key);
    return join(this.root, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    if (data.length > WRITER_THREAD_MAX_BYTES) return this.putOnPool(target, data);
    const write = { target, tmp: `${target}.${randomUUID()}.tmp`, data, fileMode: FILE_MODE, directoryMode: DIRECTORY_MODE };
    return this.writer.write(write, () => this.putOnPool(target, data));
  }

  /** `put` with fs/promises on libuv's pool: a fresh temporary file, fsync, rename. */
  private async putOnPool(target: string, data: Buffer): Promise<void> {
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
