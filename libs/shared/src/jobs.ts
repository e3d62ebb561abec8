import { z } from 'zod';
import { RecordIdSchema } from './schemas/common';

/** Job queue names. Do not rename: queued jobs of a running system carry these names. */
export const QUEUES = {
  memoryPurge: 'memory-purge',
  filesPurge: 'files-purge',
} as const;

/** Job `memory.purge`: run one durable purge task (a forgotten memory, or a deleted record) against the vector index and blob store. */
export const MemoryPurgeJobSchema = z.object({ taskId: z.string().min(1) });
export type MemoryPurgeJob = z.infer<typeof MemoryPurgeJobSchema>;

/** Job `files.purge-record`: remove every file and raw blob of a deleted record from the blob store. */
export const PurgeRecordJobSchema = z.object({ recordId: RecordIdSchema, eventId: z.string() });
export type PurgeRecordJob = z.infer<typeof PurgeRecordJobSchema>;

/** The typed job union, keyed by job name. */
export const JOBS = {
  'memory.purge': MemoryPurgeJobSchema,
  'files.purge-record': PurgeRecordJobSchema,
} as const;
export type JobName = keyof typeof JOBS;
export type JobData<N extends JobName> = z.infer<(typeof JOBS)[N]>;
