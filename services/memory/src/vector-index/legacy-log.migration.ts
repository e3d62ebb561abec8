import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { writeErasureMarker } from './erasure-markers';
import { fsyncDirectory, replayLog, TENANTS_DIR, tenantLogPath } from './point-log';

/** The single log of index format 1 (every tenant in one file). */
export const LEGACY_LOG_FILE = 'points.wal.jsonl';
const MIGRATING_DIR = `${TENANTS_DIR}.migrating`;
/** Lines buffered over all tenants before they are appended to their files. */
const FLUSH_BYTES = 8 * 1024 * 1024;

/**
 * Splits the single log of format 1 (`points.wal.jsonl`) into one log per tenant, streaming: memory is
 * one read chunk plus at most {@link FLUSH_BYTES} of buffered lines plus one small entry per tenant.
 * Lines are copied byte for byte; a deleted tenant (`x` record) loses its lines. The torn-tail and
 * corruption rules of {@link replayLog} apply (corruption throws and changes nothing).
 *
 * Crash safety: the logs are written under `tenants.migrating/`, synced, and that folder is renamed to
 * `tenants/` in one step; only then is the old log removed. A crash before the rename restarts the
 * migration; a crash after it finds `tenants/` complete and only removes the old log.
 *
 * Tenants whose lines include deletes get an erasure marker (synced before the rename), so that
 * `compact()` erases their dead vectors even after a crash. Returns those tenants, or null when there
 * was nothing to migrate.
 */
export async function migrateLegacyLog(directory: string): Promise<Set<string> | null> {
  const legacy = path.join(directory, LEGACY_LOG_FILE);
  const target = path.join(directory, TENANTS_DIR);
  try {
    await fsp.access(legacy);
  } catch {
    return null;
  }
  const withDeletes = new Set<string>();
  if (!(await exists(target))) {
    const staging = path.join(directory, MIGRATING_DIR);
    await fsp.rm(staging, { recursive: true, force: true });
    await fsp.mkdir(staging, { recursive: true, mode: 0o700 });
    const pending = new Map<string, Buffer[]>();
    const written = new Set<string>();
    let pendingBytes = 0;
    const flush = async () => {
      for (const [tenant, lines] of pending) {
        await fsp.appendFile(stagedPath(staging, directory, tenant), Buffer.concat(lines), { mode: 0o600 });
        written.add(tenant);
      }
      pending.clear();
      pendingBytes = 0;
    };
    await replayLog(legacy, (record, line) => {
      if (typeof record.t !== 'string' || record.t.length === 0) throw new Error(`vector index log ${legacy} has a record without a tenant`);
      if (record.o === 'x') {
        pending.delete(record.t);
        withDeletes.delete(record.t);
        written.delete(record.t);
        return fsp.rm(stagedPath(staging, directory, record.t), { force: true });
      }
      if (record.o === 'd') withDeletes.add(record.t);
      let lines = pending.get(record.t);
      if (!lines) pending.set(record.t, (lines = []));
      // Copy: the line's buffer is reused by the next read.
      lines.push(Buffer.concat([line, NEWLINE]));
      pendingBytes += line.length + 1;
      return pendingBytes >= FLUSH_BYTES ? flush() : undefined;
    });
    await flush();
    for (const tenant of written) {
      const handle = await fsp.open(stagedPath(staging, directory, tenant), 'r+');
      try {
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    await fsyncDirectory(staging);
    // Before the rename: after it, a crash would restart without the list of logs holding deleted points.
    for (const tenant of withDeletes) await writeErasureMarker(directory, tenant);
    await fsp.rename(staging, target);
    await fsyncDirectory(directory);
  }
  await fsp.rm(legacy);
  await fsyncDirectory(directory);
  return withDeletes;
}

const NEWLINE = Buffer.from('\n');

function stagedPath(staging: string, directory: string, tenant: string): string {
  return path.join(staging, path.basename(tenantLogPath(directory, tenant)));
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.access(file);
    return true;
  } catch {
    return false;
  }
}
