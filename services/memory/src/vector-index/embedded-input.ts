import type { PreparedPoint } from './tenant-index';
import type { PayloadTypes } from './tenant-log';
import { checkId, checkSparse, checkTenant } from './port-input';
import type { IndexDescriptor, SparseVector, VectorPoint } from './vector-index.port';

/** Input checks of the embedded index: each throws an `Error` with a clear message. */

export { sameDescriptor, checkDescriptor, checkTenant, checkId, checkSearch, checkSparse } from './port-input';

export function mismatchError(directory: string, stored: IndexDescriptor, wanted: IndexDescriptor): Error {
  return new Error(
    `vector index in ${directory} holds vectors of embedder "${stored.embedderId}" (${stored.dimension} dimensions); ` +
      `refusing to open it for "${wanted.embedderId}" (${wanted.dimension} dimensions): re-embed into a new index instead`,
  );
}

/** Unit-length copy; a zero vector is allowed for queries (all scores 0) but not for points. */
export function normalised(vector: Float32Array, what: string, allowZero = false): Float32Array {
  let sum = 0;
  for (let d = 0; d < vector.length; d++) sum += vector[d] * vector[d];
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm)) throw new Error(`${what} has NaN or infinite values`);
  if (norm === 0) {
    if (allowZero) return new Float32Array(vector.length);
    throw new Error(`${what} is a zero vector`);
  }
  const out = new Float32Array(vector.length);
  for (let d = 0; d < vector.length; d++) out[d] = vector[d] / norm;
  return out;
}

/** Sorted unique terms with summed positive frequencies (non-positive values dropped). */
export function mergeTerms(sparse: SparseVector): { terms: Uint32Array; tfs: Float32Array } {
  const merged = new Map<number, number>();
  for (let j = 0; j < sparse.indices.length; j++) {
    const value = sparse.values[j];
    if (value > 0) merged.set(sparse.indices[j], (merged.get(sparse.indices[j]) ?? 0) + value);
  }
  const terms = Uint32Array.from([...merged.keys()].sort((x, y) => x - y));
  const tfs = Float32Array.from(terms, (term) => merged.get(term)!);
  return { terms, tfs };
}

/**
 * Validates a point and converts it: normalised vector copy, merged sorted terms, payload type code.
 * Throws on a wrong dimension, a zero or non-finite vector, a missing type or a malformed sparse vector.
 */
export function preparePoint(point: VectorPoint, dim: number, types: PayloadTypes): PreparedPoint {
  checkTenant(point?.tenant);
  checkId(point.id);
  if (!(point.dense instanceof Float32Array) || point.dense.length !== dim) {
    throw new Error(`point ${point.id}: dense vector has ${point.dense?.length} dimensions, the index has ${dim}`);
  }
  if (typeof point.payload?.type !== 'string' || point.payload.type.length === 0) {
    throw new Error(`point ${point.id}: payload.type must be a non-empty string`);
  }
  checkSparse(point.sparse, `point ${point.id} sparse`);
  const dense = normalised(point.dense, `point ${point.id}`);
  return { tenant: point.tenant, id: point.id, type: types.code(point.payload.type), dense, ...mergeTerms(point.sparse) };
}
