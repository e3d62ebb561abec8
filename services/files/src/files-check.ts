import type { Logger } from '@nestjs/common';
import { type BlobStore, verifyBlob } from '@agent-memory/platform';
import type { FileUsageDrift } from './persistence/file-usage-check';
import type { FilesRepository } from './persistence/files.repository';

/** Rows read per batch of {@link checkFiles}. */
const CHECK_BATCH = 256;

/** What {@link checkFiles} found, as `<recordId>/<path>` (files) and `raw:<recordId>/<path>` (raw blobs). */
export interface FileCheckReport {
  /** File and raw-blob rows checked. */
  checked: number;
  /** Rows whose blob is gone (reads answer 500 INTERNAL_ERROR). */
  missingBlob: string[];
  /** Rows whose blob does not hash to the row's `contentHash` (never served). */
  hashMismatch: string[];
  /** Agents whose storage quota counters differ from their rows (drift after a rolling upgrade). */
  usageDrift: FileUsageDrift[];
  /** Of those, counters recomputed from the rows with `repair`. */
  repairedUsage: number;
}

/**
 * Checks every file and raw blob: row -> blob exists and hashes to `contentHash` (docs/deployment.md,
 * "Checking and repairing a data directory"). Nothing here can be rebuilt: content lives only in the blob
 * store, so damage is reported (and logged, error level). The agents' storage quota counters are compared
 * with the rows and, with `repair`, recomputed from them. Linear in the rows and their bytes. `repository`:
 * the files repository port (the caller builds the adapter).
 */
export async function checkFiles(repository: Pick<FilesRepository, 'listContent' | 'checkUsage'>, blobs: BlobStore, logger?: Logger, options: { repair: boolean } = { repair: false }): Promise<FileCheckReport> {
  const report: FileCheckReport = { checked: 0, missingBlob: [], hashMismatch: [], usageDrift: [], repairedUsage: 0 };
  const inspect = async (name: string, row: { blobKey: string; contentHash: string }) => {
    report.checked++;
    const bytes = await blobs.get(row.blobKey);
    const damage = bytes === null ? 'missing' : verifyBlob(row.blobKey, bytes, row.contentHash) ? 'mismatch' : null;
    if (damage === 'missing') report.missingBlob.push(name);
    if (damage === 'mismatch') report.hashMismatch.push(name);
    if (damage) logger?.error({ file: name, blobKey: row.blobKey, damage }, 'File blob lost or altered');
  };
  for (const kind of ['file', 'raw'] as const) {
    let after: { recordId: string; path: string } | undefined;
    for (;;) {
      const rows = await repository.listContent(kind, after, CHECK_BATCH);
      for (const row of rows) await inspect(`${kind === 'raw' ? 'raw:' : ''}${row.recordId}/${row.path}`, row);
      if (rows.length < CHECK_BATCH) break;
      after = { recordId: rows[rows.length - 1].recordId, path: rows[rows.length - 1].path };
    }
  }
  report.usageDrift = await repository.checkUsage(options);
  if (report.usageDrift.length > 0) logger?.warn({ agents: report.usageDrift.length, repaired: options.repair }, 'Files storage quota counters differ from the rows');
  if (options.repair) report.repairedUsage = report.usageDrift.length;
  return report;
}
