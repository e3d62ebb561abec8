import type { FairSchedulerOptions } from '@agent-memory/platform';
import { EMBEDDING_CHUNK_CHARS, EMBEDDING_MAX_CHUNKS } from '../recall/document-embedding';

/**
 * Injection token of the memory service's {@link FairScheduler} (libs/platform): remember's embedding,
 * classification and summary and recall's query embedding and search run through it, so one busy agent
 * cannot starve the others (docs/configuration.md, "Fairness between agents"). One per process.
 */
export const MEMORY_WORK_SCHEDULER = Symbol('MemoryWorkScheduler');

/**
 * Defaults (docs/configuration.md): 4 jobs at once per process (the model runs one batch at a time on the
 * main thread; a few jobs in flight keep its micro-batches full), 2 per agent, 64 waiting per agent (above
 * any burst the per-agent rate limit of 100 calls a minute lets through at once).
 */
export const DEFAULT_MEMORY_ADMISSION: FairSchedulerOptions = { concurrency: 4, perAgentConcurrency: 2, perAgentQueue: 64 };

/** Scheduler cost of a recall: one query embedding and one search. */
export const RECALL_COST = 1;

/** Scheduler cost of remembering `content`: about the chunks it embeds (1-8), plus one for classification and summary. */
export function rememberCost(content: string): number {
  return Math.min(EMBEDDING_MAX_CHUNKS, Math.max(1, Math.ceil(content.length / EMBEDDING_CHUNK_CHARS))) + 1;
}
