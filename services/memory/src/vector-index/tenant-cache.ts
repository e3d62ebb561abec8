import { promises as fsp, constants as fsConstants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { TenantIndex } from './tenant-index';

/** A tenant whose index is in memory, with the state of its log file. */
export interface ResidentTenant {
  readonly id: string;
  readonly index: TenantIndex;
  /** Path of its log. */
  readonly file: string;
  /** Byte length of its log (the next append goes there). */
  fileBytes: number;
  /** Records in its log; `records - index.size` of them are dead (replaced or deleted points, deletes). */
  records: number;
  /** Operations using it right now; a pinned tenant is never evicted. */
  pins: number;
  /** Bytes counted for it in the cache's total. */
  accounted: number;
  /** Set when its log was removed by `deleteTenant`: writes queued for it are refused. */
  deleted: boolean;
  /** Whether this instance wrote its erasure marker (a delete since its last rewrite); optional: false. */
  erasureMarked?: boolean;
}

/**
 * The tenant indexes held in memory, least recently used first, and their total size in bytes
 * (`TenantIndex.bytes()`), kept at or under `budgetBytes` by evicting the least recently used unpinned
 * tenants. The most recently used tenant is never evicted, so a tenant larger than the whole budget
 * still loads and serves (alone).
 */
export class TenantCache {
  private readonly tenants = new Map<string, ResidentTenant>();
  private total = 0;

  constructor(readonly budgetBytes: number) {}

  /** The resident tenant, marked as most recently used; undefined when not in memory. */
  get(id: string): ResidentTenant | undefined {
    const tenant = this.tenants.get(id);
    if (tenant) {
      this.tenants.delete(id);
      this.tenants.set(id, tenant);
    }
    return tenant;
  }

  /** Resident tenant without changing the order. */
  peek(id: string): ResidentTenant | undefined {
    return this.tenants.get(id);
  }

  add(tenant: ResidentTenant): void {
    this.tenants.set(tenant.id, tenant);
    this.account(tenant);
  }

  remove(id: string): ResidentTenant | undefined {
    const tenant = this.tenants.get(id);
    if (tenant) {
      this.tenants.delete(id);
      this.total -= tenant.accounted;
      tenant.accounted = 0;
    }
    return tenant;
  }

  /** Updates the total after `tenant` changed size; no-op for a tenant that is not resident. */
  account(tenant: ResidentTenant): void {
    if (this.tenants.get(tenant.id) !== tenant) return;
    const bytes = tenant.index.bytes();
    this.total += bytes - tenant.accounted;
    tenant.accounted = bytes;
  }

  /**
   * Evicts least recently used unpinned tenants until the total plus `reserve` bytes (a tenant about to
   * be loaded) fits the budget; returns them. Without a reserve the most recent tenant is never evicted;
   * with one, it may be (the loaded tenant becomes the most recent).
   */
  evict(reserve = 0): ResidentTenant[] {
    const evicted: ResidentTenant[] = [];
    const limit = this.budgetBytes - reserve;
    if (this.total <= limit) return evicted;
    let remaining = this.tenants.size;
    const keep = reserve > 0 ? 0 : 1;
    for (const tenant of this.tenants.values()) {
      if (this.total <= limit || remaining-- <= keep) break;
      if (tenant.pins > 0) continue;
      this.remove(tenant.id);
      evicted.push(tenant);
    }
    return evicted;
  }

  values(): IterableIterator<ResidentTenant> {
    return this.tenants.values();
  }

  get size(): number {
    return this.tenants.size;
  }

  get bytes(): number {
    return this.total;
  }

  clear(): void {
    this.tenants.clear();
    this.total = 0;
  }
}

/**
 * Open append handles of tenant logs, at most `max` (least recently used closed first), so that many
 * tenants do not exhaust file descriptors. Used only by the index's single writer.
 */
export class LogHandles {
  private readonly handles = new Map<string, FileHandle>();

  constructor(private readonly max = 64) {}

  /** Handle of `file`, opened for writing (created with mode 0600 when missing). */
  async get(file: string): Promise<FileHandle> {
    let handle = this.handles.get(file);
    if (handle) {
      this.handles.delete(file);
      this.handles.set(file, handle);
      return handle;
    }
    handle = await fsp.open(file, fsConstants.O_RDWR | fsConstants.O_CREAT, 0o600);
    this.handles.set(file, handle);
    while (this.handles.size > this.max) {
      const [oldest, old] = this.handles.entries().next().value as [string, FileHandle];
      this.handles.delete(oldest);
      await old.close();
    }
    return handle;
  }

  /** Closes the handle of `file` (after the file was replaced or removed). */
  async drop(file: string): Promise<void> {
    const handle = this.handles.get(file);
    this.handles.delete(file);
    await handle?.close();
  }

  async closeAll(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    for (const handle of handles) await handle.close();
  }
}
