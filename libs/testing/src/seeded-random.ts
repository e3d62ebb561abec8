/**
 * Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed gives the same sequence, so a
 * test built on generated vectors or texts fails the same way every run.
 */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
