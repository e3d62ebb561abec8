/**
 * Bounded selection of the `k` best (score, slot) pairs of a stream, with a binary min-heap over typed
 * arrays: O(n log k) time, O(k) memory, no object per candidate (Knuth, TAOCP vol. 3, §5.2.3).
 * Order: higher score first; equal scores by lower slot first, so results are deterministic.
 * Reusable: `reset(k)` keeps the buffers when they are large enough.
 */
export class TopK {
  private scores: Float64Array;
  private slots: Int32Array;
  private size = 0;
  private k = 0;

  constructor(k = 16) {
    this.scores = new Float64Array(Math.max(1, k));
    this.slots = new Int32Array(Math.max(1, k));
    this.reset(k);
  }

  /** Empties the selection and sets its bound `k` (≥ 0). */
  reset(k: number): void {
    if (k > this.scores.length) {
      this.scores = new Float64Array(k);
      this.slots = new Int32Array(k);
    }
    this.k = k;
    this.size = 0;
  }

  /** Number of pairs held (≤ k). */
  get length(): number {
    return this.size;
  }

  /**
   * Score a candidate must beat to enter once the selection is full; -Infinity before. Lets hot loops
   * skip `push` for most candidates.
   */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }

  /** Offers one candidate. */
  push(score: number, slot: number): void {
    if (this.k === 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      // sift up: the root holds the worst pair
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(score, slot, this.scores[parent], this.slots[parent])) break;
        this.scores[i] = this.scores[parent];
        this.slots[i] = this.slots[parent];
        i = parent;
      }
      this.scores[i] = score;
      this.slots[i] = slot;
      return;
    }
    if (!this.worse(this.scores[0], this.slots[0], score, slot)) return;
    this.siftDown(score, slot);
  }

  /** Removes and returns the pairs, best first. */
  drain(): { slots: Int32Array; scores: Float64Array } {
    const n = this.size;
    const slots = new Int32Array(n);
    const scores = new Float64Array(n);
    for (let out = n - 1; out >= 0; out--) {
      slots[out] = this.slots[0];
      scores[out] = this.scores[0];
      this.size--;
      if (this.size > 0) this.siftDown(this.scores[this.size], this.slots[this.size]);
    }
    return { slots, scores };
  }

  /** True when (s1, i1) ranks below (s2, i2). */
  private worse(s1: number, i1: number, s2: number, i2: number): boolean {
    return s1 < s2 || (s1 === s2 && i1 > i2);
  }

  /** Puts (score, slot) at the root and restores the heap order. */
  private siftDown(score: number, slot: number): void {
    const n = this.size;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.worse(this.scores[right], this.slots[right], this.scores[left], this.slots[left])) child = right;
      if (!this.worse(this.scores[child], this.slots[child], score, slot)) break;
      this.scores[i] = this.scores[child];
      this.slots[i] = this.slots[child];
      i = child;
    }
    this.scores[i] = score;
    this.slots[i] = slot;
  }
}
