import type { MemoryType } from '@agent-memory/shared';

/** What an enricher proposes for a memory; an absent field keeps the local classifier's or summariser's value. */
export interface Enrichment {
  type?: MemoryType;
  summary?: string;
}

/**
 * Port: refines a memory's type and summary after remember (enrichment by a configured LLM; docs/configuration.md).
 * Adapter: `openai-compatible.enricher.ts`. Optional: without a configured endpoint the service keeps the
 * local classifier's type and the extractive summary, and queues no enrichment.
 */
export interface Enricher {
  /** Stable identifier of endpoint model, for logs (e.g. `openai-chat:gpt-4o-mini`). */
  readonly id: string;
  /**
   * Proposes a type and summary for `content` (UTF-8 text, up to 50 KB). Returns `{}` when the model's
   * reply is unusable (not JSON, wrong shape): the caller keeps what it has. Throws on transport failure
   * (timeout, connection, non-2xx status), so that a job queue retries.
   */
  enrich(content: string): Promise<Enrichment>;
}
export const ENRICHER = Symbol('Enricher');
