import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { COMPACT_SUFFIX, fsyncDirectory, rewriteLog, RewriteNotStartedError, WRITE_CHUNK, writeAll } from './point-log';
import { writeErasureMarker } from './erasure-markers';
import { LogHandles, type ResidentTenant } from './tenant-cache';

/** Tenant logs synced in parallel within one commit (bounded so that handles stay under their cap). */
const PARALLEL_SYNCS = 16;

type Entry =
  | {
      kind: 'append';
      tenant: ResidentTenant;
      data: Buffer[];
      erases: boolean;
      overwrites: boolean;
      apply: () => void;
      resolve: () => void;
      reject: (e: Error) => void;
    }
  | { kind: 'job'; run: () => Promise<unknown>; resolve: (value: unknown) => void; reject: (e: Error) => void };

/**
 * The only writer of the tenant logs of one index directory: a queue of appends and jobs (compaction,
 * removal) run in order. Consecutive appends form one group commit: each touched log is written at its
 * end and fdatasync'ed (new logs also sync the directory), then every append is applied in memory and
 * resolved. Without `syncAppends`, a group commit of appends that neither erase nor overwrite skips
 * the fdatasync (the records are written, so they survive a crash of the process, not one of the
 * system). A failed write or sync sets `failure`: every later append and job is refused with it (the
 * state of the files is then unknown; reopen the index to recover from the logs).
 */
export class LogWriter {
  private queue: Entry[] = [];
  private draining: Promise<void> | null = null;
  private readonly handles = new LogHandles();
  private failure: Error | null = null;
  private closed = false;
  /** Whether a log was rewritten since {@link reset}. */
  compacted = false;

  /** `committed` runs after each commit for each touched tenant (after its appends were applied). */
  constructor(
    private readonly directory: string,
    private readonly committed: (tenant: ResidentTenant) => void,
    /** Whether appends that neither erase nor overwrite are fdatasync'ed too (EmbeddedVectorIndexOptions.syncWrites). */
    private readonly syncAppends = true,
  ) {}

  /** Clears the failure and counters (on `open`). */
  reset(): void {
    this.failure = null;
    this.closed = false;
    this.compacted = false;
  }

  /**
   * Appends `data` (whole lines) to the tenant's log durably, then runs `apply`, then resolves. With
   * `erases` (a delete), the tenant's erasure marker is written and synced first (see erasure-markers.ts).
   * `erases` and `overwrites` (an upsert of a point the tenant holds: a replace, a contextual re-index)
   * make the commit fdatasync'ed even without `syncAppends`: losing such a record would bring back
   * content that a forget or a replace removed.
   */
  append(tenant: ResidentTenant, data: Buffer[], apply: () => void, { erases = false, overwrites = false }: { erases?: boolean; overwrites?: boolean } = {}): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ kind: 'append', tenant, data, erases, overwrites, apply, resolve, reject });
      this.kick();
    });
  }

  /** Runs `run` in the writer, after the entries queued before it. */
  job<T>(run: () => Promise<T>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ kind: 'job', run, resolve: resolve as (value: unknown) => void, reject });
      this.kick();
    });
  }

  /** Runs `run` next, before queued entries; nobody waits for it and its failure is ignored (retried later). */
  urgent(run: () => Promise<void>): void {
    this.queue.unshift({ kind: 'job', run, resolve: () => undefined, reject: () => undefined });
    this.kick();
  }

  /** Removes a log (and a leftover compaction file) and syncs the directory; call inside a job. */
  async remove(file: string): Promise<void> {
    await this.handles.drop(file);
    await fsp.rm(file, { force: true });
    await fsp.rm(file + COMPACT_SUFFIX, { force: true });
    await fsyncDirectory(path.dirname(file));
  }

  /**
   * Replaces the tenant's log by `lines` (atomic rename); call inside a job. A failure before the rename
   * (the old log intact) only throws, to be retried later; a failure at or after it sets `failure`.
   */
  async rewrite(tenant: ResidentTenant, lines: () => Iterable<Buffer>): Promise<void> {
    if (tenant.deleted) return;
    try {
      await this.handles.drop(tenant.file);
      const { bytes, records } = await rewriteLog(tenant.file, lines);
      tenant.fileBytes = bytes;
      tenant.records = records;
      this.compacted = true;
    } catch (error) {
      if (error instanceof RewriteNotStartedError) throw error;
      // The rename may have happened: the log's size is then unknown to us.
      this.failure = new Error(`vector index log ${tenant.file} could not be rewritten; reopen the index: ${(error as Error).message}`);
      throw this.failure;
    }
  }

  /** Waits for queued work, then closes the handles; later calls are refused. */
  async close(): Promise<void> {
    while (this.draining) await this.draining;
    this.closed = true;
    try {
      await this.handles.closeAll();
    } finally {
      this.queue = [];
    }
  }

  private kick(): void {
    if (this.draining) return;
    // Started in a microtask: `drain` may finish without awaiting, and must clear `draining` after this assignment.
    this.draining = Promise.resolve().then(() => this.drain());
  }

  /**
   * Runs until the queue is empty; clears `draining` synchronously then, so a later push always kicks a
   * new drain. Anything unexpected thrown here sets `failure` and refuses the queue (never leaves
   * `draining` set, which would hang every later write).
   */
  private async drain(): Promise<void> {
    let batch: Extract<Entry, { kind: 'append' }>[] = [];
    try {
      for (;;) {
        if (this.queue.length === 0) {
          this.draining = null;
          return;
        }
        const refusal = this.failure ?? (this.closed ? new Error('vector index is closed') : null);
        const first = this.queue[0];
        if (first.kind === 'job') {
          this.queue.shift();
          try {
            if (refusal) throw refusal;
            first.resolve(await first.run());
          } catch (error) {
            first.reject(error as Error);
          }
          continue;
        }
        let end = 0;
        while (end < this.queue.length && this.queue[end].kind === 'append') end++;
        batch = this.queue.splice(0, end) as Extract<Entry, { kind: 'append' }>[];
        if (refusal) {
          for (const entry of batch) entry.reject(refusal);
          continue;
        }
        await this.commit(batch);
        batch = [];
      }
    } catch (error) {
      this.failure ??= new Error(`vector index writer failed; reopen the index: ${(error as Error).message}`);
      // Settled promises ignore a second reject: only the entries not yet resolved see it.
      for (const entry of [...batch, ...this.queue.splice(0)]) entry.reject(this.failure);
      this.draining = null;
    }
  }

  /** One group commit: write and sync every touched log, then apply and resolve. */
  private async commit(batch: Extract<Entry, { kind: 'append' }>[]): Promise<void> {
    const live = batch.filter((entry) => {
      if (!entry.tenant.deleted) return true;
      entry.reject(new Error(`vector index tenant ${entry.tenant.id} was deleted while this write was queued`));
      return false;
    });
    const byTenant = new Map<ResidentTenant, Buffer[]>();
    for (const entry of live) {
      const data = byTenant.get(entry.tenant);
      // A loop, not push(...data): spreading a huge batch overflows the argument limit (RangeError).
      if (data) for (const line of entry.data) data.push(line);
      else byTenant.set(entry.tenant, entry.data.slice());
    }
    const tenants = [...byTenant.keys()];
    const sizes = new Map<ResidentTenant, number>();
    try {
      for (const entry of live) {
        if (entry.erases && !entry.tenant.erasureMarked) {
          await writeErasureMarker(this.directory, entry.tenant.id);
          entry.tenant.erasureMarked = true;
        }
      }
      let created = false;
      // A delete or an overwrite is synced whatever the setting: losing it would bring back removed content.
      const sync = this.syncAppends || live.some((entry) => entry.erases || entry.overwrites);
      for (let i = 0; i < tenants.length; i += PARALLEL_SYNCS) {
        await Promise.all(
          tenants.slice(i, i + PARALLEL_SYNCS).map(async (tenant) => {
            if (tenant.fileBytes === 0) created = true;
            sizes.set(tenant, await this.appendLines(tenant, byTenant.get(tenant)!, sync));
          }),
        );
      }
      if (created) await fsyncDirectory(path.dirname(tenants[0].file));
    } catch (error) {
      // A log may now end in a partial record: stop writing; loading drops the torn tail.
      this.failure = new Error(`vector index log write failed; reopen the index: ${(error as Error).message}`);
      for (const entry of live) entry.reject(this.failure);
      return;
    }
    for (const [tenant, size] of sizes) tenant.fileBytes = size;
    for (let i = 0; i < live.length; i++) {
      const entry = live[i];
      try {
        entry.tenant.records += entry.data.length;
        entry.apply();
      } catch (error) {
        // Memory no longer matches the logs: refuse this and every later write until reopened.
        this.failure = new Error(`vector index could not apply a durable write; reopen the index: ${(error as Error).message}`);
        entry.reject(error as Error);
        for (const rest of live.slice(i + 1)) rest.reject(this.failure);
        return;
      }
      entry.resolve();
    }
    for (const tenant of tenants) this.committed(tenant);
  }

  /** Writes lines at the end of the tenant's log in pieces of at most WRITE_CHUNK bytes and (`sync`) fdatasyncs; returns the new size. */
  private async appendLines(tenant: ResidentTenant, lines: Buffer[], sync: boolean): Promise<number> {
    const handle = await this.handles.get(tenant.file);
    let offset = tenant.fileBytes;
    let parts: Buffer[] = [];
    let partsBytes = 0;
    for (const line of lines) {
      parts.push(line);
      partsBytes += line.length;
      if (partsBytes >= WRITE_CHUNK) {
        await writeAll(handle, Buffer.concat(parts), offset);
        offset += partsBytes;
        parts = [];
        partsBytes = 0;
      }
    }
    if (partsBytes > 0) await writeAll(handle, parts.length === 1 ? parts[0] : Buffer.concat(parts), offset);
    offset += partsBytes;
    if (sync) await handle.datasync();
    return offset;
  }
}
