import { promises as fsp } from 'node:fs';
import { COMPACT_SUFFIX, replayLog, upsertLine, type LogRecord } from './point-log';
import { FREE_TYPE, TenantIndex } from './tenant-index';

/**
 * Payload types (memory types) as one-byte codes, shared by all tenants of an index: a point stores its
 * code, a search filter is a 256-entry mask. At most {@link FREE_TYPE} types.
 */
export class PayloadTypes {
  private readonly codes = new Map<string, number>();
  private readonly names: string[] = [];

  /** Code of `type`, assigned on first use; throws beyond {@link FREE_TYPE} types. */
  code(type: string): number {
    let code = this.codes.get(type);
    if (code === undefined) {
      code = this.names.length;
      if (code >= FREE_TYPE) throw new Error(`the embedded vector index supports at most ${FREE_TYPE} payload types`);
      this.codes.set(type, code);
      this.names.push(type);
    }
    return code;
  }

  name(code: number): string {
    return this.names[code];
  }

  /** 256-entry allow mask of type codes, or null for no filter. */
  mask(types: readonly string[] | undefined): Uint8Array | null {
    if (types === undefined) return null;
    const mask = new Uint8Array(256);
    for (const type of types) {
      const code = this.codes.get(type);
      if (code !== undefined) mask[code] = 1;
    }
    return mask;
  }
}

/** A tenant's index rebuilt from its log. */
export interface ReplayedTenant {
  index: TenantIndex;
  /** Byte length of the log after a torn tail was truncated. */
  validBytes: number;
  records: number;
  /** Bytes of a torn tail that was dropped and truncated (0 when the log was clean). */
  tornBytes: number;
}

/**
 * Rebuilds a tenant's index from its log `file` (streaming): removes a leftover compaction file (from a
 * crash before its rename: the log is authoritative), replays the records, truncates a torn tail
 * (fdatasync'ed), and repacks the index to exactly its size. A missing log is an empty tenant.
 * Errors: corruption (see `replayLog`), a malformed record, a record of another tenant.
 * Call only while nothing appends to `file`.
 */
export async function replayTenant(file: string, tenant: string, dim: number, types: PayloadTypes): Promise<ReplayedTenant> {
  await fsp.rm(file + COMPACT_SUFFIX, { force: true });
  const index = new TenantIndex(dim);
  const { validBytes, records, tornBytes } = await replayLog(file, (record) => applyRecord(index, tenant, record, file, types));
  if (tornBytes > 0) {
    const handle = await fsp.open(file, 'r+');
    try {
      await handle.truncate(validBytes);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }
  index.repack();
  return { index, validBytes, records, tornBytes };
}

function applyRecord(index: TenantIndex, tenant: string, record: LogRecord, file: string, types: PayloadTypes): void {
  if (record.t !== tenant) throw new Error(`vector index log ${file} has a record of another tenant`);
  if (record.o === 'u') {
    const dim = index.dim;
    const bytes = Buffer.from(record.v, 'base64');
    if (bytes.length !== dim * 4 || !Array.isArray(record.k) || !Array.isArray(record.f) || record.k.length !== record.f.length) {
      throw new Error(`vector index log ${file} has a malformed upsert of ${record.t}/${record.i}`);
    }
    const dense = new Float32Array(dim);
    new Uint8Array(dense.buffer).set(bytes);
    index.upsert({ tenant, id: record.i, type: types.code(record.y), dense, terms: Uint32Array.from(record.k), tfs: Float32Array.from(record.f) });
  } else if (record.o === 'd') {
    for (const id of record.i) index.delete(id);
  } else {
    throw new Error(`vector index log ${file} has a record of unknown kind ${JSON.stringify((record as { o: unknown }).o)}`);
  }
}

/** The log lines of a tenant's live points, in slot order (what compaction writes). */
export function liveLines(tenant: string, index: TenantIndex, types: PayloadTypes): () => Iterable<Buffer> {
  return function* () {
    for (let slot = 0; slot < index.size; slot++) {
      const { terms, tfs } = index.termsOf(slot);
      const dense = index.matrix.subarray(slot * index.dim, (slot + 1) * index.dim);
      yield upsertLine(tenant, index.ids[slot], types.name(index.types[slot]), dense, terms, tfs);
    }
  };
}
