import { z } from 'zod';
import { RecordIdSchema } from './schemas/common';

/** Job queue names. Do not rename: queued jobs of a running system carry these names. */
export const QUEUES = {
  memoryPurge: 'memory-purge',
  filesPurge: 'files-purge',
  memoryEnrich: 'memory-enrich',
  memoryReembed: 'memory-reembed',
} as const;

/** Job `memory.purge`: run one durable purge task (a forgotten memory, or a deleted record) against the vector index and blob store. */
export const MemoryPurgeJobSchema = z.object({ taskId: z.string().min(1) });
export type MemoryPurgeJob = z.infer<typeof MemoryPurgeJobSchema>;

/** Job `files.purge-record`: remove every file and raw blob of a deleted record from the blob store. */
export const PurgeRecordJobSchema = z.object({ recordId: RecordIdSchema, eventId: z.string() });
export type PurgeRecordJob = z.infer<typeof PurgeRecordJobSchema>;

/**
 * Job `memory.enrich`: refine a memory's type and summary with the configured OpenAI-compatible LLM
 * (docs/architecture.md, "Background work"). `contentHash` pins the remembered version (a job for an older version does
 * nothing: the newer remember queued its own); `reclassify` is false when the agent gave the type itself,
 * which enrichment never overrides.
 */
export const MemoryEnrichJobSchema = z.object({
  memoryId: z.string().min(1),
  contentHash: z.string().min(1).optional(),
  reclassify: z.boolean(),
});
export type MemoryEnrichJob = z.infer<typeof MemoryEnrichJobSchema>;

/**
 * Job `memory.reembed`: re-embed with embedder `embedderId` one batch of the memories whose vectors another
 * embedder made, in id order after `cursor`, then queue the next batch (docs/architecture.md, "Background work": re-embedding after an
 * embedder change). The progress is durable in each memory's `embedder_id`; a worker configured with
 * another embedder drops the job.
 */
export const MemoryReembedJobSchema = z.object({
  embedderId: z.string().min(1),
  cursor: z.string().min(1).optional(),
});
export type MemoryReembedJob = z.infer<typeof MemoryReembedJobSchema>;

/** The typed job union, keyed by job name. */
export const JOBS = {
  'memory.purge': MemoryPurgeJobSchema,
  'files.purge-record': PurgeRecordJobSchema,
  'memory.enrich': MemoryEnrichJobSchema,
  'memory.reembed': MemoryReembedJobSchema,
} as const;
export type JobName = keyof typeof JOBS;
export type JobData<N extends JobName> = z.infer<(typeof JOBS)[N]>;
