/**
 * Map from 32-bit term ids to dense term numbers (0, 1, 2, …) of one tenant's inverted index, as an
 * open-addressing hash table with linear probing over two typed arrays (Knuth, TAOCP vol. 3, §6.4,
 * algorithm L). Why not a `Map`: a `Map` entry costs about 30-80 bytes of heap (term ids above 2^30 are
 * boxed as heap numbers); this table costs 8 bytes per slot at a load factor of at most 0.7, so about
 * 11-23 bytes per term, and no object per term.
 *
 * No removal: the tenant index drops dead terms by rebuilding the whole dictionary (see `TenantIndex.repack`).
 */
export class TermDictionary {
  private keys: Uint32Array;
  /** Term number + 1; 0 marks an empty slot. */
  private values: Int32Array;
  private mask: number;
  private count = 0;

  /** `expected`: number of terms it will hold; sizes the table so that no growth is needed. */
  constructor(expected = 0) {
    let capacity = 8;
    while (capacity * 0.7 < expected) capacity *= 2;
    this.keys = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  /** Number of terms held. */
  get size(): number {
    return this.count;
  }

  /** Bytes of its typed arrays. */
  get bytes(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  /** Term number of `term`, or -1. */
  get(term: number): number {
    const { keys, values, mask } = this;
    for (let at = hash(term) & mask; ; at = (at + 1) & mask) {
      const value = values[at];
      if (value === 0) return -1;
      if (keys[at] === term) return value - 1;
    }
  }

  /** Adds `term` with number `value` (≥ 0); the term must not be present. */
  add(term: number, value: number): void {
    if ((this.count + 1) > this.values.length * 0.7) this.grow();
    const { keys, values, mask } = this;
    let at = hash(term) & mask;
    while (values[at] !== 0) at = (at + 1) & mask;
    keys[at] = term;
    values[at] = value + 1;
    this.count++;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const capacity = oldValues.length * 2;
    this.keys = new Uint32Array(capacity);
    this.values = new Int32Array(capacity);
    this.mask = capacity - 1;
    this.count = 0;
    for (let i = 0; i < oldValues.length; i++) if (oldValues[i] !== 0) this.add(oldKeys[i], oldValues[i] - 1);
  }
}

/** 32-bit integer mix (the "lowbias32" finaliser), so that nearby term ids spread over the table. */
function hash(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}
