/**
 * Small statistics helpers for the benchmarks.
 */

/** Latency summary in milliseconds. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The p-th percentile (0 < p ≤ 100) of `values` by the nearest-rank method: the smallest value such
 * that at least p % of the values are ≤ it. Returns NaN for an empty list. Does not modify `values`.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/** Count, mean, p50, p95, p99 and max of a list of latencies (ms). */
export function summarise(values: readonly number[]): LatencySummary {
  const mean = values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
  return {
    count: values.length,
    mean,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length === 0 ? NaN : Math.max(...values),
  };
}

/** Milliseconds elapsed since `start` (a `performance.now()` reading). */
export function since(start: number): number {
  return performance.now() - start;
}

/** Peak resident set size of this process so far, in MiB (`maxRSS` is reported in KiB). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/**
 * Runs `task(item, index)` over `items` with at most `concurrency` calls in flight, preserving nothing
 * but completion; rejects on the first failure (remaining workers stop picking up new items).
 */
export async function runPool<T>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        await task(items[i], i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

/**
 * Deterministic pseudo-random generator (mulberry32) returning floats in [0, 1): same seed, same
 * sequence, so generated benchmark data is identical from run to run.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
