import { codeBytes } from './quantised-scan';
import { FAST_SCAN_WASM } from './fast-scan.wasm';

/**
 * From this many points on, a tenant keeps its sign codes a second time in the fast-scan layout
 * ({@link FastScanCodes}), and its dense search is the fast-scan pre-filter with exact re-scoring
 * (quantised-scan.ts); below half of it a repack drops them (searches stay exact below this size). The
 * same number as `QUANTISED_MIN_POINTS` (a test checks it). Measured by bench/dense-scan.bench.ts (16,384
 * synthetic memories, 300 questions, k = 10, the fast scan with native re-scoring against the native exact
 * scan): 0.15-0.19 against 0.14 ms at 4,096 points, 0.21 against 0.33-0.74 ms at 8,192, 0.23-0.25 against
 * 0.87-1.4 ms at 10,000, finding 99.97-100 % of the exact top 10 (docs/configuration.md, "Which search").
 * The exact scan leaves the caches between 4,096 and 8,192 points; in the service, where other work
 * shares them, it costs more than alone.
 */
export const FAST_SCAN_MIN_POINTS = 4096;

/** Points per block of the layout: one 16-byte row per code nibble holds the nibble of 32 points. */
const BLOCK_POINTS = 32;
const PAGE_BYTES = 65_536;
/** Largest table entry: one byte, and small enough that `nibbles` entries sum within 16 bits (fast-scan.wat). */
function maxEntryFor(nibbles: number): number {
  return Math.min(255, Math.floor(65_535 / nibbles));
}

/** The kernel's one export (fast-scan.wat): byte offsets in its memory, `count` blocks of `nibbles` rows. */
type ScanKernel = (lut: number, blocks: number, count: number, nibbles: number, out: number) => void;

/** The parts of the WebAssembly JavaScript API used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: object | null | undefined;
let unavailableReason = '';

/**
 * The compiled kernel (fast-scan.wat), or null when this runtime has no WebAssembly SIMD (Node with
 * `--jitless`, say); compiled once per process. The reason is {@link fastScanUnavailableReason}.
 */
function kernel(): object | null {
  if (compiled !== undefined) return compiled;
  if (!wasm) {
    unavailableReason = 'this runtime has no WebAssembly';
    return (compiled = null);
  }
  try {
    compiled = new wasm.Module(Buffer.from(FAST_SCAN_WASM, 'base64'));
  } catch (error) {
    compiled = null;
    unavailableReason = `WebAssembly SIMD is unavailable (${(error as Error).message})`;
  }
  return compiled;
}

/** Whether the fast scan runs in this process; when not, large tenants use the JavaScript pre-filter. */
export function fastScanAvailable(): boolean {
  return kernel() !== null;
}

/** Why {@link fastScanAvailable} is false ('' when it is true). */
export function fastScanUnavailableReason(): string {
  kernel();
  return unavailableReason;
}

/**
 * A tenant's 1-bit sign codes (quantised-scan.ts, `encodeSigns`) in the layout of the 4-bit "fast scan"
 * (André et al., VLDB 2015; fast-scan.wat): each code read as `ceil(dim / 4)` nibbles (nibble j = the signs
 * of dimensions 4j..4j+3), stored per block of 32 points, nibble-major, in a WebAssembly memory of its
 * own. A query's estimate of every point, Σ over dimensions with a set sign bit of query[d] (the order of
 * the pre-filter's asymmetric estimate), is then 16 table lookups per SIMD instruction.
 *
 * The query's partial sums are quantised to one byte per (nibble, value): per nibble, minus its smallest
 * entry, times one scale for all nibbles (M / the largest range, M = 255 up to 1,028 dimensions, else
 * ⌊65,535 / nibbles⌋ so that the 16-bit sums never overflow: 85 for 3,072), rounded. The 16-bit sums therefore
 * order points like the float estimate up to ±0.5 of a step per nibble; the exact re-scoring that follows
 * the pre-filter makes the scores exact again.
 *
 * Memory: `ceil(dim / 4) · 16 / 32` bytes per point for the codes (64 for 512 dimensions) and 2 for the
 * sums, rounded up to 64 KiB pages; it grows with the tenant's capacity and never shrinks (the tenant drops
 * it and builds a smaller one instead, `TenantIndex.repack`).
 *
 * Slot-aligned with the tenant's other arrays: {@link write} after the row code of a slot changed.
 * Not thread-safe; one search at a time, like the rest of the index.
 */
export class FastScanCodes {
  readonly nibbles: number;
  /** The largest table entry (255 up to 1,028 dimensions). */
  private readonly maxEntry: number;
  private readonly blockBytes: number;
  /** Bytes of the query's table (the first region of the memory), padded to 64. */
  private readonly lutBytes: number;
  private readonly memory: WasmMemory;
  private readonly run: ScanKernel;
  private bytesView: Uint8Array;
  private capacityBlocks = 0;
  /** The float partial sums of one nibble (scratch of {@link scan}). */
  private readonly partial = new Float64Array(16);

  /**
   * @param dim the dimension of the vectors.
   * @param capacity points to make room for.
   * @throws Error when the kernel is unavailable ({@link fastScanAvailable}); RangeError when the
   *   WebAssembly memory cannot be had.
   */
  constructor(
    readonly dim: number,
    capacity: number,
  ) {
    const module = kernel();
    if (!module || !wasm) throw new Error(`fast scan unavailable: ${unavailableReason}`);
    this.nibbles = Math.ceil(dim / 4);
    this.maxEntry = maxEntryFor(this.nibbles);
    this.blockBytes = this.nibbles * 16;
    this.lutBytes = Math.ceil(this.blockBytes / 64) * 64;
    this.memory = new wasm.Memory({ initial: 1 });
    const instance = new wasm.Instance(module, { env: { memory: this.memory } });
    this.run = instance.exports.scan as ScanKernel;
    this.bytesView = new Uint8Array(this.memory.buffer);
    this.ensureCapacity(capacity);
  }

  /** Builds the layout of the first `size` row codes in `codes` (`codeBytes(dim)` bytes per slot), with room for `capacity` points. */
  static from(dim: number, codes: Uint8Array, size: number, capacity: number): FastScanCodes {
    const fast = new FastScanCodes(dim, Math.max(size, capacity));
    const bytes = codeBytes(dim);
    for (let slot = 0; slot < size; slot++) fast.write(slot, codes, slot * bytes);
    return fast;
  }

  /** Bytes held (the WebAssembly memory). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** Points the layout has room for. */
  get capacity(): number {
    return this.capacityBlocks * BLOCK_POINTS;
  }

  /** Makes room for `points` points (grows the memory; existing codes stay where they are). Throws RangeError when the memory cannot grow. */
  ensureCapacity(points: number): void {
    const blocks = Math.ceil(points / BLOCK_POINTS);
    if (blocks <= this.capacityBlocks) return;
    const next = Math.max(blocks, Math.ceil(this.capacityBlocks * 1.5));
    const needed = Math.ceil(this.sumsOffset(next) + next * BLOCK_POINTS * 2);
    const pages = Math.ceil(needed / PAGE_BYTES) - this.memory.buffer.byteLength / PAGE_BYTES;
    if (pages > 0) this.memory.grow(pages);
    this.bytesView = new Uint8Array(this.memory.buffer);
    this.capacityBlocks = next;
  }

  /** Stores the sign code of `slot` (< capacity), read from `codes` at byte `offset` (`codeBytes(dim)` bytes). */
  write(slot: number, codes: Uint8Array, offset: number): void {
    const view = this.bytesView;
    const lane = slot & (BLOCK_POINTS - 1);
    const high = lane >= 16;
    let at = this.lutBytes + (slot >> 5) * this.blockBytes + (lane & 15);
    for (let j = 0; j < this.nibbles; j++, at += 16) {
      const byte = codes[offset + (j >> 1)];
      const nibble = j & 1 ? byte >> 4 : byte & 15;
      view[at] = high ? (view[at] & 0x0f) | (nibble << 4) : (view[at] & 0xf0) | nibble;
    }
  }

  /**
   * The estimates of the first `size` points for `query` (`dim` floats): 16-bit sums, higher = closer,
   * ordered like Σ_{d: sign bit set} query[d]. The returned view is overwritten by the next scan and
   * detached when the memory grows.
   */
  scan(query: Float32Array, size: number): Uint16Array {
    this.fillTable(query);
    const blocks = Math.ceil(size / BLOCK_POINTS);
    const sums = this.sumsOffset(this.capacityBlocks);
    this.run(0, this.lutBytes, blocks, this.nibbles, sums);
    return new Uint16Array(this.memory.buffer, sums, size);
  }

  /** The largest sum {@link scan} can return. */
  get maxEstimate(): number {
    return this.nibbles * this.maxEntry;
  }

  /** Byte offset of the sums when there is room for `blocks` blocks (after the table and the blocks). */
  private sumsOffset(blocks: number): number {
    return this.lutBytes + blocks * this.blockBytes;
  }

  /** table[16j + c] = round(scale · (Σ_{bits i of c} query[4j + i] − min_j)), one byte each, at most {@link maxEntry}. */
  private fillTable(query: Float32Array): void {
    const view = this.bytesView;
    const partial = this.partial;
    let widest = 0;
    for (let j = 0; j < this.nibbles; j++) {
      let range = 0;
      for (let i = 0; i < 4; i++) range += Math.abs(query[4 * j + i] || 0);
      if (range > widest) widest = range;
    }
    const top = this.maxEntry;
    const scale = widest > 0 ? top / widest : 0;
    for (let j = 0; j < this.nibbles; j++) {
      let low = 0;
      partial[0] = 0;
      for (let i = 0; i < 4; i++) {
        const q = query[4 * j + i] || 0;
        if (q < 0) low += q;
        const step = 1 << i;
        for (let c = 0; c < step; c++) partial[step + c] = partial[c] + q;
      }
      const base = 16 * j;
      for (let c = 0; c < 16; c++) view[base + c] = Math.min(top, Math.round((partial[c] - low) * scale));
    }
  }
}
