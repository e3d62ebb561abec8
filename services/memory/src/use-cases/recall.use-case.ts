import { Inject, Injectable, Optional } from '@nestjs/common';
import { FairScheduler, requestDeadline } from '@agent-memory/platform';
import { DomainError, type RecalledMemory, type RecallResponse } from '@agent-memory/shared';
import { EMBEDDER, type Embedder } from '../embedding/embedder.port';
import type { MemoryRecallMessage } from '../memory.messages';
import { MemoryRepository, type RecallableRow } from '../persistence/memory.repository';
import { hybridSearch } from '../recall/hybrid-search';
import { denseQueryText } from '../recall/query-rewrite';
import { VECTOR_INDEX, type VectorIndex } from '../vector-index/vector-index.port';
import { DEFAULT_MEMORY_ADMISSION, MEMORY_WORK_SCHEDULER, RECALL_COST } from './admission';

/**
 * Recall by meaning (docs/api.md, "Memories"): dense search (cosine of sentence embeddings) and
 * keyword search (BM25) within the record, fused into one ranking (`recall/hybrid-ranking.ts`). The
 * order is the fused relevance and `similarity` is that relevance in 0..1 (`HybridHit.relevance`), so it
 * never increases down the list and a client may cut at a threshold (docs/api.md, "Recall"). Only memories whose metadata row exists and
 * is not stale take part in the fusion and are returned, so nothing forgotten or half-written ever shows or moves a score.
 */
@Injectable()
export class RecallUseCase {
  constructor(
    private readonly repository: MemoryRepository,
    @Inject(EMBEDDER) private readonly embedder: Embedder,
    @Inject(VECTOR_INDEX) private readonly index: VectorIndex,
    @Optional() @Inject(MEMORY_WORK_SCHEDULER) private readonly scheduler: FairScheduler = new FairScheduler(DEFAULT_MEMORY_ADMISSION),
  ) {}

  /**
   * Recall for `agentId` (whose fair turn the query embedding and search wait for, docs/configuration.md
   * "Fairness between agents") in `recordId`. Errors: RATE_LIMITED when too many of the agent's calls wait.
   */
  async execute({ agentId, recordId, body }: MemoryRecallMessage): Promise<RecallResponse> {
    const rows = new Map<string, RecallableRow>();
    const ranked = await this.scheduler.run(agentId, RECALL_COST, async () => {
      // A call that waited past its deadline is answered 500 by the gateway already: skip its work.
      const deadline = requestDeadline();
      if (deadline !== undefined && Date.now() > deadline) throw new DomainError('INTERNAL_ERROR', 'The recall waited past its deadline and was not run');
      // The sentence model matches statements better than questions: embed the question as a statement.
      // Scoped to the record: the embedder's cache never answers one tenant with another's text.
      const [vector] = await this.embedder.embed([denseQueryText(body.query)], { scope: recordId });
      if (!vector) throw new Error('The embedder returned no vector');
      // Candidates without a visible row (half-written, being forgotten, stale while re-indexed) are dropped
      // before fusion: they neither show nor set the scale of the scores (docs/api.md, "Recall").
      const visible = async (ids: readonly string[]) => {
        const found = await this.repository.findMany(recordId, ids);
        for (const row of found) rows.set(row.id, row);
        return new Set(found.map((r) => r.id));
      };
      return hybridSearch(this.index, { tenant: recordId, vector, query: body.query, limit: body.limit, types: body.types, visible });
    });
    const memories: RecalledMemory[] = ranked
      .filter((h) => rows.has(h.id))
      .slice(0, body.limit)
      .map((h) => {
        const row = rows.get(h.id)!;
        return { id: h.id, path: row.path, type: row.type as RecalledMemory['type'], summary: row.summary, similarity: Math.round(h.relevance * 1e6) / 1e6 };
      });
    return { memories, count: memories.length };
  }
}
