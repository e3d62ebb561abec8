import { FAST_SCAN_MIN_POINTS, FastScanCodes, fastScanAvailable } from './fast-scan';
import { codeBytes, encodeSigns } from './quantised-scan';
import { TermDictionary } from './term-dictionary';
import type { TopK } from './top-k';

/** Type code of a free slot. */
export const FREE_TYPE = 255;

/** A point ready to apply: validated, vector normalised, sparse terms sorted and merged. */
export interface PreparedPoint {
  tenant: string;
  id: string;
  type: number;
  dense: Float32Array;
  terms: Uint32Array;
  tfs: Float32Array;
}

/**
 * Heap estimate of one point id (bytes): the string (header + one byte per character, rounded), its
 * `Map` entry (key, value, chain, and the table's spare room) and its slot in the id array.
 */
const ID_BYTES = 96;
/** Heap estimate of an empty tenant index: the object, its `Map` and arrays. */
const TENANT_BYTES = 512;

/**
 * All points of one tenant, with no object per point and none per term:
 *
 * - Slots 0..size-1 are all live (delete moves the last point into the hole), so the dense scan is one
 *   pass over a contiguous row-major matrix. Its capacity starts at the number of points and grows by
 *   half (no minimum), so a one-point tenant holds one row.
 * - Forward index: the terms of slot s are `fwdTerm/fwdTf[docStart[s] .. docStart[s] + docCount[s])`,
 *   regions of one pooled pair of arrays (term numbers and frequencies).
 * - Inverted index: a {@link TermDictionary} maps term ids to term numbers; the posting list of term t is
 *   `postSlot/postTf[postStart[t] .. postStart[t] + postLen[t])`, a region of capacity `postCap[t]`
 *   in one pooled pair of arrays; a full region moves to the end of the pool with twice the capacity.
 * - Freed regions (deleted points, moved postings, dead terms) are reclaimed by {@link repack}, which
 *   rebuilds both pools and the dictionary when they hold more garbage than live data (amortised O(1)).
 *
 * - Each vector also has a 1-bit-per-dimension sign code in `codes` (slot-aligned like the matrix), the
 *   pre-filter of the quantised dense scan (quantised-scan.ts); delete moves it with the vector.
 * - From {@link FAST_SCAN_MIN_POINTS} points on (and where WebAssembly SIMD runs), the same codes are also
 *   kept in `fastCodes`, the layout of the SIMD fast scan (fast-scan.ts); a repack below half of that
 *   drops them.
 *
 * Memory is {@link bytes}: about 2·4 bytes per (point, term) in each index plus about 30 bytes per
 * distinct term, `dim`·4 + `dim`/8 bytes per point for the vector and its code (+ `dim`/8 + 2 in the
 * fast-scan layout of large tenants), and small constants.
 */
export class TenantIndex {
  size = 0;
  matrix = new Float32Array(0);
  /** Sign code of each slot's vector, {@link codeBytes}(dim) bytes per slot (quantised-scan.ts). */
  codes = new Uint8Array(0);
  /** The codes in the fast-scan layout (fast-scan.ts), from {@link FAST_SCAN_MIN_POINTS} points on; null below, or when disabled or unavailable. */
  fastCodes: FastScanCodes | null = null;
  /** Set when the fast-scan layout could not be built or grown: the tenant keeps the JavaScript pre-filter. */
  private fastScanFailed = false;
  types = new Uint8Array(0);
  docLen = new Float32Array(0);
  ids: string[] = [];
  readonly slotOf = new Map<string, number>();
  totalLen = 0;

  private docStart = new Int32Array(0);
  private docCount = new Int32Array(0);
  private fwdTerm = new Int32Array(0);
  private fwdTf = new Float32Array(0);
  private fwdUsed = 0;
  private fwdLive = 0;

  private dictionary = new TermDictionary();
  private termIds = new Uint32Array(0);
  postStart = new Int32Array(0);
  postLen = new Int32Array(0);
  private postCap = new Int32Array(0);
  private termCount = 0;
  private liveTerms = 0;
  postSlot = new Int32Array(0);
  postTf = new Float32Array(0);
  private postUsed = 0;
  private postLive = 0;
  private idChars = 0;

  /**
   * @param dim the vectors' dimension.
   * @param fastScan whether large tenants keep the fast-scan layout (false: the JavaScript pre-filter
   *   serves them, as where WebAssembly SIMD is unavailable; for tests and benchmarks of that path).
   */
  constructor(
    readonly dim: number,
    private readonly fastScan = true,
  ) {}

  /** Heap bytes held: the typed arrays exactly, ids and object overhead estimated. */
  bytes(): number {
    return (
      TENANT_BYTES +
      this.matrix.byteLength +
      this.codes.byteLength +
      (this.fastCodes?.bytes ?? 0) +
      this.types.byteLength +
      this.docLen.byteLength +
      this.docStart.byteLength +
      this.docCount.byteLength +
      this.fwdTerm.byteLength +
      this.fwdTf.byteLength +
      this.dictionary.bytes +
      this.termIds.byteLength +
      this.postStart.byteLength +
      this.postLen.byteLength +
      this.postCap.byteLength +
      this.postSlot.byteLength +
      this.postTf.byteLength +
      this.size * ID_BYTES +
      this.idChars
    );
  }

  /** Term number of a term id, or -1 when no live point has it. */
  termNumber(term: number): number {
    const t = this.dictionary.get(term);
    return t >= 0 && this.postLen[t] > 0 ? t : -1;
  }

  /** Term ids and frequencies of a slot (copies; for writing the log). */
  termsOf(slot: number): { terms: number[]; tfs: number[] } {
    const start = this.docStart[slot];
    const count = this.docCount[slot];
    const terms = new Array<number>(count);
    const tfs = new Array<number>(count);
    for (let j = 0; j < count; j++) {
      terms[j] = this.termIds[this.fwdTerm[start + j]];
      tfs[j] = this.fwdTf[start + j];
    }
    return { terms, tfs };
  }

  upsert(point: PreparedPoint): void {
    this.maybeRepack();
    let slot = this.slotOf.get(point.id);
    if (slot === undefined) {
      this.ensureSlots(this.size + 1);
      slot = this.size++;
      this.slotOf.set(point.id, slot);
      this.ids[slot] = point.id;
      this.idChars += point.id.length;
      if (this.fastCodes === null && this.size >= FAST_SCAN_MIN_POINTS) this.buildFastCodes(this.types.length);
    } else {
      this.removePostings(slot);
    }
    this.matrix.set(point.dense, slot * this.dim);
    encodeSigns(point.dense, this.codes, slot * codeBytes(this.dim));
    this.fastCodes?.write(slot, this.codes, slot * codeBytes(this.dim));
    this.types[slot] = point.type;
    const n = point.terms.length;
    this.fwdTerm = grown(this.fwdTerm, this.fwdUsed + n);
    this.fwdTf = grown(this.fwdTf, this.fwdUsed + n);
    const start = this.fwdUsed;
    let len = 0;
    for (let j = 0; j < n; j++) {
      const t = this.termFor(point.terms[j]);
      this.fwdTerm[start + j] = t;
      this.fwdTf[start + j] = point.tfs[j];
      len += point.tfs[j];
      this.addPosting(t, slot, point.tfs[j]);
    }
    this.docStart[slot] = start;
    this.docCount[slot] = n;
    this.fwdUsed += n;
    this.fwdLive += n;
    this.docLen[slot] = len;
    this.totalLen += len;
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.maybeRepack();
    this.removePostings(slot);
    this.slotOf.delete(id);
    this.idChars -= id.length;
    const last = this.size - 1;
    if (slot !== last) {
      // Move the last point into the hole so that slots stay contiguous.
      const lastId = this.ids[last];
      this.matrix.copyWithin(slot * this.dim, last * this.dim, (last + 1) * this.dim);
      const bytes = codeBytes(this.dim);
      this.codes.copyWithin(slot * bytes, last * bytes, (last + 1) * bytes);
      this.fastCodes?.write(slot, this.codes, slot * bytes);
      this.types[slot] = this.types[last];
      this.docLen[slot] = this.docLen[last];
      this.docStart[slot] = this.docStart[last];
      this.docCount[slot] = this.docCount[last];
      this.ids[slot] = lastId;
      this.slotOf.set(lastId, slot);
      const start = this.docStart[slot];
      for (let j = 0; j < this.docCount[slot]; j++) {
        const t = this.fwdTerm[start + j];
        let at = this.postStart[t];
        while (this.postSlot[at] !== last) at++;
        this.postSlot[at] = slot;
      }
    }
    this.types[last] = FREE_TYPE;
    this.ids.length = last;
    this.size = last;
    return true;
  }

  /** Exact dense scan (quantised-scan.ts picks it or the quantised one): pushes (cosine, slot) of every allowed slot into `top`. */
  scanDense(query: Float32Array, allowed: Uint8Array | null, top: TopK): void {
    const { matrix, types, size, dim } = this;
    const dim4 = dim - (dim % 4);
    for (let slot = 0, offset = 0; slot < size; slot++, offset += dim) {
      if (allowed !== null && allowed[types[slot]] === 0) continue;
      // Four accumulators: breaks the dependency chain of one running sum (about 2x faster in V8).
      let a0 = 0;
      let a1 = 0;
      let a2 = 0;
      let a3 = 0;
      let d = 0;
      for (; d < dim4; d += 4) {
        a0 += query[d] * matrix[offset + d];
        a1 += query[d + 1] * matrix[offset + d + 1];
        a2 += query[d + 2] * matrix[offset + d + 2];
        a3 += query[d + 3] * matrix[offset + d + 3];
      }
      for (; d < dim; d++) a0 += query[d] * matrix[offset + d];
      const score = a0 + a1 + a2 + a3;
      if (score >= top.threshold) top.push(score, slot);
    }
  }

  /** Cosine of `query` with the point in `slot`. */
  dot(query: Float32Array, slot: number): number {
    const { matrix, dim } = this;
    const offset = slot * dim;
    const dim4 = dim - (dim % 4);
    // Four accumulators, as in scanDense (re-scoring calls this for hundreds of candidates per search).
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let a3 = 0;
    let d = 0;
    for (; d < dim4; d += 4) {
      a0 += query[d] * matrix[offset + d];
      a1 += query[d + 1] * matrix[offset + d + 1];
      a2 += query[d + 2] * matrix[offset + d + 2];
      a3 += query[d + 3] * matrix[offset + d + 3];
    }
    for (; d < dim; d++) a0 += query[d] * matrix[offset + d];
    return a0 + a1 + a2 + a3;
  }

  /**
   * Rebuilds the pools and the dictionary with no garbage and no spare capacity, and shrinks the per-slot
   * arrays to `size`. Called after loading a tenant (so it holds exactly what it needs) and whenever
   * garbage outgrows live data. O(points + postings).
   */
  repack(): void {
    const { postLen: oldLen, postStart: oldStart, postSlot: oldSlot, postTf: oldTf, termIds: oldTermIds } = this;
    // No dead term: numbers and dictionary stay; otherwise live terms are renumbered in order.
    const renumber = this.liveTerms !== this.termCount;
    const remap = renumber ? new Int32Array(this.termCount).fill(-1) : null;
    const dictionary = renumber ? new TermDictionary(this.liveTerms) : this.dictionary;
    const termIds = new Uint32Array(this.liveTerms);
    const postStart = new Int32Array(this.liveTerms);
    const postLen = new Int32Array(this.liveTerms);
    const postSlot = new Int32Array(this.postLive);
    const postTf = new Float32Array(this.postLive);
    let next = 0;
    let used = 0;
    for (let t = 0; t < this.termCount; t++) {
      const len = oldLen[t];
      if (len === 0) continue;
      const from = oldStart[t];
      for (let j = 0; j < len; j++) {
        postSlot[used + j] = oldSlot[from + j];
        postTf[used + j] = oldTf[from + j];
      }
      termIds[next] = oldTermIds[t];
      if (remap) {
        remap[t] = next;
        dictionary.add(oldTermIds[t], next);
      }
      postStart[next] = used;
      postLen[next] = len;
      used += len;
      next++;
    }
    const fwdTerm = new Int32Array(this.fwdLive);
    const fwdTf = new Float32Array(this.fwdLive);
    let at = 0;
    const docStart = new Int32Array(this.size);
    const docCount = new Int32Array(this.size);
    for (let slot = 0; slot < this.size; slot++) {
      const start = this.docStart[slot];
      const count = this.docCount[slot];
      for (let j = 0; j < count; j++) {
        const t = this.fwdTerm[start + j];
        fwdTerm[at + j] = remap ? remap[t] : t;
        fwdTf[at + j] = this.fwdTf[start + j];
      }
      docStart[slot] = at;
      docCount[slot] = count;
      at += count;
    }
    Object.assign(this, { dictionary, termIds, postStart, postLen, postSlot, postTf, fwdTerm, fwdTf, docStart, docCount });
    this.postCap = postLen.slice();
    this.termCount = this.liveTerms = next;
    this.postUsed = this.postLive = used;
    this.fwdUsed = this.fwdLive = at;
    this.matrix = this.matrix.slice(0, this.size * this.dim);
    this.codes = this.codes.slice(0, this.size * codeBytes(this.dim));
    this.types = this.types.slice(0, this.size);
    this.docLen = this.docLen.slice(0, this.size);
    // A WebAssembly memory never shrinks: a layout with much more room than points is built again.
    const fast = this.fastCodes;
    if (this.size < FAST_SCAN_MIN_POINTS / 2) this.fastCodes = null;
    else if (fast ? fast.capacity > 2 * this.size + 64 : this.size >= FAST_SCAN_MIN_POINTS) this.buildFastCodes(this.size);
  }

  /**
   * Builds {@link fastCodes} from the row codes with room for `capacity` points (no-op when disabled or
   * unavailable). A failure (no WebAssembly memory to be had) costs only speed: the tenant goes on with
   * the JavaScript pre-filter and does not try again.
   */
  private buildFastCodes(capacity: number): void {
    if (!this.fastScan || this.fastScanFailed || !fastScanAvailable()) return;
    try {
      this.fastCodes = FastScanCodes.from(this.dim, this.codes, this.size, capacity);
    } catch {
      this.dropFastCodes();
    }
  }

  /** Gives up the fast-scan layout for good (a failed build or growth). */
  private dropFastCodes(): void {
    this.fastCodes = null;
    this.fastScanFailed = true;
  }

  /** Repacks when the pools hold more garbage than live data (plus slack, so small tenants never do). */
  private maybeRepack(): void {
    if (this.postUsed > 3 * this.postLive + 4096 || this.fwdUsed > 2 * this.fwdLive + 4096 || this.termCount > 2 * this.liveTerms + 1024) {
      this.repack();
    }
  }

  private ensureSlots(slots: number): void {
    const capacity = this.types.length;
    if (slots <= capacity) return;
    const next = Math.max(slots, Math.ceil(capacity * 1.5));
    // First, so that a layout that cannot grow is dropped before any slot beyond its room is written.
    try {
      this.fastCodes?.ensureCapacity(next);
    } catch {
      this.dropFastCodes();
    }
    const matrix = new Float32Array(next * this.dim);
    matrix.set(this.matrix.subarray(0, this.size * this.dim));
    this.matrix = matrix;
    const codes = new Uint8Array(next * codeBytes(this.dim));
    codes.set(this.codes.subarray(0, this.size * codeBytes(this.dim)));
    this.codes = codes;
    const types = new Uint8Array(next).fill(FREE_TYPE);
    types.set(this.types.subarray(0, this.size));
    this.types = types;
    this.docLen = grown(this.docLen, next, true);
    this.docStart = grown(this.docStart, next, true);
    this.docCount = grown(this.docCount, next, true);
  }

  /** Term number of a term id, adding the term when new. */
  private termFor(term: number): number {
    const known = this.dictionary.get(term);
    if (known >= 0) return known;
    const t = this.termCount++;
    this.termIds = grown(this.termIds, this.termCount);
    this.postStart = grown(this.postStart, this.termCount);
    this.postLen = grown(this.postLen, this.termCount);
    this.postCap = grown(this.postCap, this.termCount);
    this.termIds[t] = term;
    this.dictionary.add(term, t);
    return t;
  }

  private addPosting(t: number, slot: number, tf: number): void {
    const len = this.postLen[t];
    if (len === 0) this.liveTerms++;
    if (len === this.postCap[t]) {
      // Full (or new): move the region to the end of the pool with twice the capacity.
      const capacity = len === 0 ? 1 : len * 2;
      this.postSlot = grown(this.postSlot, this.postUsed + capacity);
      this.postTf = grown(this.postTf, this.postUsed + capacity);
      const from = this.postStart[t];
      this.postSlot.copyWithin(this.postUsed, from, from + len);
      this.postTf.copyWithin(this.postUsed, from, from + len);
      this.postStart[t] = this.postUsed;
      this.postCap[t] = capacity;
      this.postUsed += capacity;
    }
    this.postSlot[this.postStart[t] + len] = slot;
    this.postTf[this.postStart[t] + len] = tf;
    this.postLen[t] = len + 1;
    this.postLive++;
  }

  /** Removes a slot from the posting lists of its terms (order inside a list does not matter). */
  private removePostings(slot: number): void {
    const start = this.docStart[slot];
    const count = this.docCount[slot];
    for (let j = 0; j < count; j++) {
      const t = this.fwdTerm[start + j];
      const from = this.postStart[t];
      const last = from + --this.postLen[t];
      let at = from;
      while (this.postSlot[at] !== slot) at++;
      this.postSlot[at] = this.postSlot[last];
      this.postTf[at] = this.postTf[last];
      this.postLive--;
      if (this.postLen[t] === 0) this.liveTerms--;
    }
    this.fwdLive -= count;
    this.docCount[slot] = 0;
    this.totalLen -= this.docLen[slot];
  }
}

/** `array` if it holds `length` elements, else a copy with room for `length` (at least half more, or exactly when `exact`). */
function grown<T extends Int32Array | Uint32Array | Float32Array>(array: T, length: number, exact = false): T {
  if (length <= array.length) return array;
  const next = exact ? length : Math.max(length, Math.ceil(array.length * 1.5), 4);
  const out = new (array.constructor as new (n: number) => T)(next);
  out.set(array);
  return out;
}
