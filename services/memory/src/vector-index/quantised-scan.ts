import type { FastScanCodes } from './fast-scan';
import type { NativeDenseScorer } from './native-dense-scorer';
import type { TenantIndex } from './tenant-index';
import { TopK } from './top-k';

/**
 * Below this many points a tenant is scanned exactly: the quantised pass and its re-scoring would cost
 * about as much as the exact scan and save nothing measurable.
 */
export const QUANTISED_MIN_POINTS = 4096;

/**
 * With the native scorer (native-dense-scorer.ts) but without the fast-scan layout (WebAssembly SIMD
 * unavailable, or its memory could not be had), tenants of up to this many points are scanned exactly: a
 * native pass over every row costs about what the JavaScript pre-filter and re-scoring cost at this size,
 * and is exact. With the layout (from `FAST_SCAN_MIN_POINTS`, fast-scan.ts, the same number as
 * {@link QUANTISED_MIN_POINTS}) the fast scan is cheaper from that size on.
 */
export const NATIVE_EXACT_MAX_POINTS = 16_384;
/** Below this many points the exact scan stays in JavaScript: the native call's fixed cost would exceed the scan. */
export const NATIVE_MIN_ROWS = 64;

/** Candidates re-scored exactly per result wanted: {@link QUANTISED_OVERSAMPLING}·k, at least {@link QUANTISED_MIN_CANDIDATES}. */
export const QUANTISED_OVERSAMPLING = 20;
export const QUANTISED_MIN_CANDIDATES = 256;
/**
 * The oversampling of tenants below {@link QUANTISED_SMALL_TENANT_POINTS} points searched with the fast
 * scan (fast-scan.ts), where the candidates are a larger share of the tenant. On 10,000 embedded
 * synthetic memories and 300 of their questions, k = 50, 500 candidates held 99.99 % of the exact top 50
 * (1,000: 100 %) and the search took 0.36 ms instead of 0.56 ms; in the service, whose recall asks the
 * dense search for 50 candidates, re-scoring 1,000 of them took ~0.6 ms of a ~4.8 ms recall. The
 * JavaScript pre-filter keeps {@link QUANTISED_OVERSAMPLING}, and so do larger tenants (at 100,000 points
 * 20·k candidates held 98.6 % of the exact top 50, docs/configuration.md "The fast scan").
 */
export const QUANTISED_OVERSAMPLING_SMALL = 10;
/** Tenants below this many points searched with the fast scan re-score {@link QUANTISED_OVERSAMPLING_SMALL}·k candidates. */
export const QUANTISED_SMALL_TENANT_POINTS = 16_384;

/** From this many points on, the pre-filter first reads only part of each code ({@link DenseScan}, staged). */
export const STAGED_MIN_POINTS = 32_768;
/** Code bytes (of 64 for 512 dimensions) the first step of the staged pre-filter reads per point. */
export const STAGE_ONE_BYTES = 16;
/** Points the first step keeps per candidate wanted (and at least 1/32 of the tenant). */
export const STAGE_ONE_OVERSAMPLING = 4;
/** Bins of the histogram that picks the first step's threshold. */
const STAGE_ONE_BINS = 4096;
/** At most this many bins in the histogram of the fast scan's 16-bit estimates (one per value for 512 dimensions). */
const FAST_SCAN_BINS = 1 << 15;

/** Bytes of the sign code of one vector of `dim` floats (one bit per dimension). */
export function codeBytes(dim: number): number {
  return Math.ceil(dim / 8);
}

/**
 * Writes the sign code of `vector` (bit d of the code = `vector[d] > 0`, little-endian bit order inside
 * each byte) into `codes` at byte `offset`.
 */
export function encodeSigns(vector: Float32Array, codes: Uint8Array, offset: number): void {
  const bytes = codeBytes(vector.length);
  codes.fill(0, offset, offset + bytes);
  for (let d = 0; d < vector.length; d++) if (vector[d] > 0) codes[offset + (d >> 3)] |= 1 << (d & 7);
}

/**
 * Dense top-k over a {@link TenantIndex}: exact below {@link QUANTISED_MIN_POINTS} points (up to
 * {@link NATIVE_EXACT_MAX_POINTS} with native products and no fast-scan layout) or when the candidates
 * would be half the tenant, otherwise two passes over contiguous arrays:
 *
 * 1. Pre-filter: the float query against every point's 1-bit sign code (asymmetric scoring: the query
 *    is not quantised), Σ_d q_d·sign(v_d), computed as 64 lookups per 512-d point in a table of the
 *    query's partial sums per code byte (256 entries per byte), so 64 bytes are read per point instead
 *    of 2 KB. The best `max(20·k, 256)` points by this estimate are kept (`max(10·k, 256)` in the fast
 *    scan below {@link QUANTISED_SMALL_TENANT_POINTS} points). A tenant that keeps the
 *    fast-scan layout (`TenantIndex.fastCodes`, from 4,096 points) is estimated in WebAssembly SIMD
 *    instead (`fastPrefilter`, fast-scan.ts: the same estimate with the query quantised to one byte per
 *    nibble value, 16 points per lookup instruction). Without it, from {@link STAGED_MIN_POINTS} points on,
 *    the JavaScript pass is itself staged (`stagedPrefilter`: part of each code first, all of it for the
 *    best few thousand).
 * 2. Re-scoring: the exact cosine (float dot product) of each candidate; the k best are returned.
 *
 * The result equals the exact top-k whenever the exact top-k are among the candidates. On 20,000
 * embedded synthetic memories (bench/synthetic-memories.ts) and 100 of their questions that held for
 * every query at k = 10 and at k = 50 (recall of the exact top-k 1.0000); at 100,000 with the staged
 * pass, 99.5 % of the exact top 10 and 99.0 % of the exact top 50 (docs/configuration.md, "Vector index
 * (embedded)"); the fast scan found 100 % and 98.6 % on embedding-like points where the staged pass found
 * 97.2 % and 91.4 %. The scores are always exact cosines. Cost at 100,000 points of 512 dimensions, with
 * native re-scoring: ~1.1 ms with the fast scan, ~2.8-3.8 ms staged, ~7.7 ms unstaged, ~50-80 ms for the
 * exact scan in JavaScript.
 *
 * Holds per-query scratch (the lookup table and the candidate heap): one instance per index, used by
 * one search at a time (searches run synchronously).
 */
export class DenseScan {
  /**
   * Native products (native-dense-scorer.ts) for the exact scan and the re-scoring, when loaded; absent,
   * they run in JavaScript. Same results up to float32 rounding of the sums (~1e-7).
   */
  native: NativeDenseScorer | undefined;
  /** Scores of the native passes (one per row scanned or candidate re-scored). */
  private nativeScores = new Float32Array(0);
  private table = new Float32Array(0);
  private readonly candidates = new TopK(QUANTISED_MIN_CANDIDATES);
  /** Stage-one scratch of large tenants: an estimate per slot, the slots kept, the chosen code bytes, a histogram. */
  private estimates = new Float64Array(0);
  private kept = new Int32Array(0);
  private readonly chosen = new Int32Array(STAGE_ONE_BYTES);
  private readonly histogram = new Int32Array(STAGE_ONE_BINS);
  private fastHistogram = new Int32Array(0);

  /**
   * Offers the best (exact cosine, slot) pairs of the allowed slots of `index` to `top`, which the caller
   * has reset to `k`; `query` is unit length and of the index's dimension.
   */
  search(index: TenantIndex, query: Float32Array, allowed: Uint8Array | null, k: number, top: TopK): void {
    const oversampling = index.fastCodes && index.size < QUANTISED_SMALL_TENANT_POINTS ? QUANTISED_OVERSAMPLING_SMALL : QUANTISED_OVERSAMPLING;
    const wanted = Math.max(oversampling * k, QUANTISED_MIN_CANDIDATES);
    const exactUpTo = this.native && !index.fastCodes ? NATIVE_EXACT_MAX_POINTS : QUANTISED_MIN_POINTS - 1;
    if (index.size <= exactUpTo || 2 * wanted >= index.size) {
      this.scanExact(index, query, allowed, top);
      return;
    }
    this.candidates.reset(wanted);
    if (index.fastCodes) {
      this.fastPrefilter(index, index.fastCodes, allowed, query, wanted);
    } else {
      this.fillTable(query);
      if (index.size >= STAGED_MIN_POINTS && codeBytes(index.dim) > 2 * STAGE_ONE_BYTES) this.stagedPrefilter(index, allowed, query, wanted);
      else this.prefilter(index, allowed);
    }
    const { slots } = this.candidates.drain();
    if (this.native) {
      const scores = this.scratchScores(slots.length);
      this.native.scoreSlots(query, index.matrix, index.size, index.dim, slots, slots.length, scores);
      for (let i = 0; i < slots.length; i++) top.push(scores[i], slots[i]);
    } else {
      for (let i = 0; i < slots.length; i++) top.push(index.dot(query, slots[i]), slots[i]);
    }
  }

  /** Every allowed slot's exact cosine offered to `top`: natively from {@link NATIVE_MIN_ROWS} points on, else in JavaScript. */
  private scanExact(index: TenantIndex, query: Float32Array, allowed: Uint8Array | null, top: TopK): void {
    if (!this.native || index.size < NATIVE_MIN_ROWS) {
      index.scanDense(query, allowed, top);
      return;
    }
    const { size, types } = index;
    const scores = this.scratchScores(size);
    this.native.scoreRows(query, index.matrix, size, index.dim, scores);
    for (let slot = 0; slot < size; slot++) {
      if (allowed !== null && allowed[types[slot]] === 0) continue;
      if (scores[slot] >= top.threshold) top.push(scores[slot], slot);
    }
  }

  /** The native scores' scratch, at least `n` long (grown by half; one per index, like the rest of this scratch). */
  private scratchScores(n: number): Float32Array {
    if (this.nativeScores.length < n) this.nativeScores = new Float32Array(Math.max(n, Math.ceil(1.5 * this.nativeScores.length)));
    return this.nativeScores;
  }

  /** table[b·256 + c] = Σ of 2·query[8b + j] over the bits j set in byte value c (the constant -Σq is left out: same order). */
  private fillTable(query: Float32Array): void {
    const bytes = codeBytes(query.length);
    if (this.table.length < bytes * 256) this.table = new Float32Array(bytes * 256);
    const table = this.table;
    for (let b = 0; b < bytes; b++) {
      const base = b * 256;
      table[base] = 0;
      for (let bit = 0; bit < 8; bit++) {
        const d = 8 * b + bit;
        const weight = d < query.length ? 2 * query[d] : 0;
        const step = 1 << bit;
        for (let c = 0; c < step; c++) table[base + step + c] = table[base + c] + weight;
      }
    }
  }

  /**
   * The pre-filter of a large tenant in two steps: first every allowed point is estimated on only the
   * {@link STAGE_ONE_BYTES} code bytes whose dimensions weigh most in this query (the largest Σ|q_d| over
   * their 8 dimensions), and the best ~{@link STAGE_ONE_OVERSAMPLING}·`wanted` (at least size / 32) are
   * kept, by a histogram of the estimates (no heap over every point); then those are estimated on all
   * code bytes and the best `wanted` offered to the candidates. Reads a quarter of the codes for most
   * points: at 100,000 embedded memories, ~3.8 ms instead of ~7.7 ms, with 99.5 % of the exact top 10 and
   * 99.0 % of the exact top 50 kept (docs/configuration.md, "Vector index (embedded)"; quantised-scan.spec.ts
   * holds a floor on a seeded set).
   */
  private stagedPrefilter(index: TenantIndex, allowed: Uint8Array | null, query: Float32Array, wanted: number): void {
    const { codes, types, size } = index;
    const table = this.table;
    const bytes = codeBytes(index.dim);
    // The code bytes that carry the most query weight.
    const weights = new Float32Array(bytes);
    for (let d = 0; d < query.length; d++) weights[d >> 3] += Math.abs(query[d]);
    const order = Array.from({ length: bytes }, (_, b) => b).sort((a, b) => weights[b] - weights[a] || a - b);
    const chosen = this.chosen;
    for (let i = 0; i < STAGE_ONE_BYTES; i++) chosen[i] = order[i];
    if (this.estimates.length < size) {
      // Float64 as the sums: a rounded copy of the lowest estimate could fall below the threshold `low`.
      this.estimates = new Float64Array(size);
      this.kept = new Int32Array(size);
    }
    const estimates = this.estimates;
    let low = Infinity;
    let high = -Infinity;
    for (let slot = 0, offset = 0; slot < size; slot++, offset += bytes) {
      if (allowed !== null && allowed[types[slot]] === 0) {
        estimates[slot] = NaN;
        continue;
      }
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      for (let i = 0; i < STAGE_ONE_BYTES; i += 4) {
        const b0 = chosen[i];
        const b1 = chosen[i + 1];
        const b2 = chosen[i + 2];
        const b3 = chosen[i + 3];
        a0 += table[(b0 << 8) | codes[offset + b0]];
        a1 += table[(b1 << 8) | codes[offset + b1]];
        a2 += table[(b2 << 8) | codes[offset + b2]];
        a3 += table[(b3 << 8) | codes[offset + b3]];
      }
      const estimate = a0 + a1 + a2 + a3;
      estimates[slot] = estimate;
      if (estimate < low) low = estimate;
      if (estimate > high) high = estimate;
    }
    if (!(high >= low)) return; // nothing allowed
    // The threshold keeping about `keep` points: the lower edge of the bin where the count from the top reaches it.
    const keep = Math.max(STAGE_ONE_OVERSAMPLING * wanted, Math.ceil(size / 32));
    const histogram = this.histogram;
    histogram.fill(0);
    const width = (high - low) / STAGE_ONE_BINS || 1;
    for (let slot = 0; slot < size; slot++) {
      const e = estimates[slot];
      if (e === e) histogram[Math.min(STAGE_ONE_BINS - 1, ((e - low) / width) | 0)]++;
    }
    let bin = STAGE_ONE_BINS - 1;
    for (let count = histogram[bin]; bin > 0 && count < keep; ) count += histogram[--bin];
    const threshold = low + bin * width;
    const kept = this.kept;
    let n = 0;
    for (let slot = 0; slot < size; slot++) if (estimates[slot] >= threshold) kept[n++] = slot;
    const candidates = this.candidates;
    for (let i = 0; i < n; i++) {
      const slot = kept[i];
      const estimate = codeEstimate(table, codes, slot * bytes, bytes);
      if (estimate >= candidates.threshold) candidates.push(estimate, slot);
    }
  }

  /**
   * The pre-filter of a tenant that keeps the fast-scan layout (fast-scan.ts): every point estimated on its
   * whole code in WebAssembly SIMD (16-bit sums; ~0.45 ms for 100,000 points of 512 dimensions, where the
   * whole staged JavaScript search takes ~2.7-3.8 ms), then the allowed points from the
   * histogram bin where the count from the top reaches `wanted` offered to the candidates.
   */
  private fastPrefilter(index: TenantIndex, fast: FastScanCodes, allowed: Uint8Array | null, query: Float32Array, wanted: number): void {
    const { types, size } = index;
    const estimates = fast.scan(query, size);
    let shift = 0;
    while (fast.maxEstimate >> shift >= FAST_SCAN_BINS) shift++;
    const bins = (fast.maxEstimate >> shift) + 1;
    if (this.fastHistogram.length < bins) this.fastHistogram = new Int32Array(bins);
    const histogram = this.fastHistogram;
    histogram.fill(0, 0, bins);
    for (let slot = 0; slot < size; slot++) {
      if (allowed !== null && allowed[types[slot]] === 0) continue;
      histogram[estimates[slot] >> shift]++;
    }
    let bin = bins - 1;
    for (let count = histogram[bin]; bin > 0 && count < wanted; ) count += histogram[--bin];
    const candidates = this.candidates;
    for (let slot = 0; slot < size; slot++) {
      const estimate = estimates[slot];
      if (estimate >> shift < bin || (allowed !== null && allowed[types[slot]] === 0)) continue;
      if (estimate >= candidates.threshold) candidates.push(estimate, slot);
    }
  }

  private prefilter(index: TenantIndex, allowed: Uint8Array | null): void {
    const { codes, types, size } = index;
    const table = this.table;
    const candidates = this.candidates;
    const bytes = codeBytes(index.dim);
    for (let slot = 0, offset = 0; slot < size; slot++, offset += bytes) {
      if (allowed !== null && allowed[types[slot]] === 0) continue;
      const estimate = codeEstimate(table, codes, offset, bytes);
      if (estimate >= candidates.threshold) candidates.push(estimate, slot);
    }
  }
}

/**
 * The pre-filter's estimate of one point from all its code bytes: Σ_b table[b·256 + code_b] over the
 * `bytes` bytes of the code at `offset` in `codes` (`table`: the query's partial sums per code byte, see
 * {@link DenseScan}). Four accumulators, as in the exact scan: independent chains of lookups.
 */
function codeEstimate(table: Float32Array, codes: Uint8Array, offset: number, bytes: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  let b = 0;
  for (; b + 3 < bytes; b += 4) {
    a0 += table[(b << 8) | codes[offset + b]];
    a1 += table[((b + 1) << 8) | codes[offset + b + 1]];
    a2 += table[((b + 2) << 8) | codes[offset + b + 2]];
    a3 += table[((b + 3) << 8) | codes[offset + b + 3]];
  }
  for (; b < bytes; b++) a0 += table[(b << 8) | codes[offset + b]];
  return a0 + a1 + a2 + a3;
}
