import { type HybridCandidates, type HybridHit, reciprocalRankFusion } from './hybrid-ranking';

/** Candidates fetched from each of the dense and keyword searches for a recall of `limit` results. */
export function candidateDepth(limit: number): number {
  return Math.max(50, limit * 5);
}

/** The ranking recall uses: see `hybrid-ranking.ts` for the fusion and its parameters. */
export function fuseRecallCandidates(candidates: HybridCandidates): HybridHit[] {
  return reciprocalRankFusion(candidates);
}
