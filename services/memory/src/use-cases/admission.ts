import type { FairSchedulerOptions } from '@agent-memory/platform';
import { EMBEDDING_CHUNK_CHARS, EMBEDDING_MAX_CHUNKS } from '../recall/document-embedding';

/**
 * Injection token of the memory service's {@link FairScheduler} (libs/platform): remember's embedding,
 * classification and summary and recall's query embedding and search run through it, so one busy agent
 * cannot starve the others (docs/configuration.md, "Fairness between agents"). One per process.
 */
export const MEMORY_WORK_SCHEDULER = Symbol('MemoryWorkScheduler');

/**
 * Defaults (docs/configuration.md): 1 job at a time per process (the model, the analysis and, in
 * standalone, PGlite all run on the main thread: a second job in flight only made a newcomer wait for two;
 * `npm run bench:fairness` measured a bystander's recall p50 0.7 s at 1 against 3.0 s at 2, with more
 * writes served), 1 per agent, 64 calls waiting per agent (above any burst the per-agent rate limit of 100
 * calls a minute lets through at once).
 */
export const DEFAULT_MEMORY_ADMISSION: FairSchedulerOptions = { concurrency: 1, perAgentConcurrency: 1, perAgentQueue: 64 };

/** Scheduler cost of a recall: one query embedding and one search. */
export const RECALL_COST = 1;

/**
 * Scheduler cost of remembering `content` (embedding up to 8 chunks of 1,000 characters, classification,
 * summary, keywords): about the chunks it embeds plus one per 10,000 characters of analysis, 2 to 13.
 */
export function rememberCost(content: string): number {
  const chunks = Math.min(EMBEDDING_MAX_CHUNKS, Math.max(1, Math.ceil(content.length / EMBEDDING_CHUNK_CHARS)));
  return chunks + Math.max(1, Math.ceil(content.length / 10_000));
}
