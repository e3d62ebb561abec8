/** Injection token of the files service's `ReclaimScheduler` (see {@link FILES_RECLAIM_TABLES}). */
export const FILES_RECLAIM = Symbol('FilesReclaim');

/**
 * The files tables that hold a deleted record's paths (files, raw blobs, write log, idempotency results):
 * rewritten after a record's purge (`Database.reclaim`; docs/deployment.md, "Forgotten content and the
 * database files"). File content itself lives only in the blob store.
 */
export const FILES_RECLAIM_TABLES = ['files.files', 'files.raw_blobs', 'files.write_log', 'files.idempotency_keys', 'files.purge_tasks'] as const;
