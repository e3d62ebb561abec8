import { z } from 'zod';
import { MemoryIdSchema, RecordIdSchema } from './schemas/common';

/** Job queue names. Do not rename: queued jobs of a running system carry these names. */
export const QUEUES = {
  memoryPurge: 'memory-purge',
  filesPurge: 'files-purge',
} as const;

/** Job `memory.purge-memory`: remove one forgotten memory from blob store, vector index and write log. */
export const PurgeMemoryJobSchema = z.object({ recordId: RecordIdSchema, memoryId: MemoryIdSchema });
export type PurgeMemoryJob = z.infer<typeof PurgeMemoryJobSchema>;

/** Job `*.purge-record`: remove every memory or file of a deleted record from every store. */
export const PurgeRecordJobSchema = z.object({ recordId: RecordIdSchema, eventId: z.string() });
export type PurgeRecordJob = z.infer<typeof PurgeRecordJobSchema>;

/** The typed job union, keyed by job name. */
export const JOBS = {
  'memory.purge-memory': PurgeMemoryJobSchema,
  'memory.purge-record': PurgeRecordJobSchema,
  'files.purge-record': PurgeRecordJobSchema,
} as const;
export type JobName = keyof typeof JOBS;
export type JobData<N extends JobName> = z.infer<(typeof JOBS)[N]>;
