import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

/** Folder of the per-tenant logs inside the index directory. */
export const TENANTS_DIR = 'tenants';
const LOG_SUFFIX = '.wal.jsonl';
/** Suffix of a log being rewritten by compaction; a leftover one is from a crash before its rename. */
export const COMPACT_SUFFIX = '.compact';
const READ_CHUNK = 8 * 1024 * 1024;
/** Batches of records are written in pieces of at most this many bytes, without one giant buffer. */
export const WRITE_CHUNK = 8 * 1024 * 1024;

/** Log records, one JSON object per line. Short keys: the log holds one per point. */
export type LogRecord =
  /** upsert: tenant, id, type, base64 of the little-endian float32 unit vector, sparse indices, values */
  | { o: 'u'; t: string; i: string; y: string; v: string; k: number[]; f: number[] }
  /** delete ids of a tenant */
  | { o: 'd'; t: string; i: string[] }
  /** delete a tenant (only in the single log of format 1, see `legacy-log.migration.ts`) */
  | { o: 'x'; t: string };

/**
 * Path of a tenant's log: `tenants/<name>.wal.jsonl` where the name is the base64url of the tenant id
 * (`b-` prefix), or its SHA-256 in hex (`h-`) when that would exceed a file name's 255 bytes.
 */
export function tenantLogPath(directory: string, tenant: string): string {
  const encoded = Buffer.from(tenant, 'utf8').toString('base64url');
  const name = encoded.length <= 200 ? `b-${encoded}` : `h-${createHash('sha256').update(tenant, 'utf8').digest('hex')}`;
  return path.join(directory, TENANTS_DIR, name + LOG_SUFFIX);
}

/** One log line (with its newline) of an upsert. */
export function upsertLine(tenant: string, id: string, type: string, dense: Float32Array, terms: ArrayLike<number>, tfs: ArrayLike<number>): Buffer {
  const record: LogRecord = {
    o: 'u',
    t: tenant,
    i: id,
    y: type,
    v: Buffer.from(dense.buffer, dense.byteOffset, dense.byteLength).toString('base64'),
    k: Array.from(terms),
    f: Array.from(tfs),
  };
  return Buffer.from(JSON.stringify(record) + '\n', 'utf8');
}

/** One log line (with its newline) of a delete. */
export function deleteLine(tenant: string, ids: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify({ o: 'd', t: tenant, i: [...ids] } satisfies LogRecord) + '\n', 'utf8');
}

/** What {@link replayLog} found. */
export interface ReplayResult {
  /** Byte length of the valid prefix (complete, parseable records). */
  validBytes: number;
  records: number;
  /** Bytes after the valid prefix: a torn tail left by a crash, to be truncated. */
  tornBytes: number;
}

/**
 * Streams a log (8 MB reads) and calls `onRecord` with each record and its raw line (without newline;
 * valid until `onRecord` returns or its promise settles).
 * A record counts only with its final newline; damaged lines at the end are a torn tail (reported, not
 * an error); damage followed by valid records is corruption and throws ("corrupt at byte N"). A missing
 * file is an empty log. Memory: one read chunk plus the longest line.
 */
export async function replayLog(
  file: string,
  onRecord: (record: LogRecord, line: Buffer) => void | Promise<void>,
): Promise<ReplayResult> {
  let handle: FileHandle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { validBytes: 0, records: 0, tornBytes: 0 };
    throw error;
  }
  let records = 0;
  let validBytes = 0;
  let badAt = -1;
  let position = 0;
  let carry: Buffer = Buffer.alloc(0);
  try {
    const chunk = Buffer.allocUnsafe(READ_CHUNK);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, READ_CHUNK, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const dataStart = position - data.length;
      let lineStart = 0;
      for (let nl = data.indexOf(10, lineStart); nl !== -1; nl = data.indexOf(10, lineStart)) {
        const line = data.subarray(lineStart, nl);
        let record: LogRecord | undefined;
        try {
          record = JSON.parse(line.toString('utf8')) as LogRecord;
        } catch {
          record = undefined;
        }
        if (record === undefined || typeof record !== 'object' || record === null) {
          if (badAt === -1) badAt = dataStart + lineStart;
        } else {
          if (badAt !== -1) {
            throw new Error(`vector index log ${file} is corrupt at byte ${badAt}: a damaged record is followed by valid ones`);
          }
          const applied = onRecord(record, line);
          if (applied) await applied;
          records++;
          validBytes = dataStart + nl + 1;
        }
        lineStart = nl + 1;
      }
      // Copy: `chunk` is reused by the next read.
      carry = Buffer.from(data.subarray(lineStart));
    }
  } finally {
    await handle.close();
  }
  return { validBytes, records, tornBytes: position - validBytes };
}

/** Thrown by {@link rewriteLog} when it failed before its rename: the old log is intact and complete. */
export class RewriteNotStartedError extends Error {}

/**
 * Replaces `file` atomically by the lines `lines()` yields: writes `<file>.compact`, syncs it, renames it
 * over `file`, syncs the directory. A crash at any point leaves either the old or the new complete file.
 * Returns the new size in bytes and its number of records. A failure before the rename (e.g. ENOSPC on
 * the temporary file) throws {@link RewriteNotStartedError} and leaves `file` as it was.
 */
export async function rewriteLog(file: string, lines: () => Iterable<Buffer>): Promise<{ bytes: number; records: number }> {
  const temp = file + COMPACT_SUFFIX;
  let records = 0;
  let size = 0;
  try {
    const out = await fsp.open(temp, 'w', 0o600);
    try {
      let parts: Buffer[] = [];
      let partsBytes = 0;
      for (const line of lines()) {
        parts.push(line);
        partsBytes += line.length;
        records++;
        if (partsBytes >= WRITE_CHUNK) {
          await writeAll(out, Buffer.concat(parts), size);
          size += partsBytes;
          parts = [];
          partsBytes = 0;
        }
      }
      if (partsBytes > 0) await writeAll(out, Buffer.concat(parts), size);
      size += partsBytes;
      await out.datasync();
    } finally {
      await out.close();
    }
  } catch (error) {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw new RewriteNotStartedError(`vector index log ${file} was not rewritten: ${(error as Error).message}`);
  }
  // Until this rename the old log is complete; a failure above leaves it so.
  await fsp.rename(temp, file);
  await fsyncDirectory(path.dirname(file));
  return { bytes: size, records };
}

/** Writes all of `buffer` at `position`. */
export async function writeAll(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, position + written);
    written += bytesWritten;
  }
}

/** Writes a small file so that readers see either the old or the new content, even after a crash. */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const temp = `${file}.tmp`;
  const handle = await fsp.open(temp, 'w', 0o600);
  try {
    await handle.writeFile(content);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fsp.rename(temp, file);
  await fsyncDirectory(path.dirname(file));
}

/** Makes a rename or file creation in `directory` durable (POSIX: the entry lives in the directory). */
export async function fsyncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fsp.open(directory, 'r');
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows) cannot open or sync a directory; the rename is still atomic there.
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/** JSON content of `file`, or undefined when it does not exist; throws when it is not JSON. */
export async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
}

/** Size of `file` in bytes, or undefined when it does not exist. */
export async function fileSize(file: string): Promise<number | undefined> {
  try {
    return (await fsp.stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether `directory` exists and holds at least one entry (reads one entry, not the listing). */
export async function hasEntries(directory: string): Promise<boolean> {
  let dir;
  try {
    dir = await fsp.opendir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    return (await dir.read()) !== null;
  } finally {
    await dir.close();
  }
}
