import type { IndexDescriptor, SparseVector, VectorSearch } from './vector-index.port';

// Checks of the arguments of every VectorIndex method (vector-index.port.ts), shared by the adapters
// (embedded and Qdrant), so both refuse the same input with the same message. Each throws an `Error`
// saying what is wrong.

/** Whether two descriptors name the same embedder and dimension. */
export function sameDescriptor(a: IndexDescriptor, b: IndexDescriptor): boolean {
  return a.embedderId === b.embedderId && a.dimension === b.dimension;
}

/** Throws unless `descriptor` has a non-empty `embedderId` and a positive integer `dimension`. */
export function checkDescriptor(descriptor: IndexDescriptor): void {
  if (!descriptor || typeof descriptor.embedderId !== 'string' || descriptor.embedderId.length === 0) {
    throw new Error('index descriptor needs a non-empty embedderId');
  }
  if (!Number.isInteger(descriptor.dimension) || descriptor.dimension <= 0) {
    throw new Error(`index descriptor dimension must be a positive integer, got ${descriptor.dimension}`);
  }
}

/** Throws unless `tenant` is a non-empty string; returns it. */
export function checkTenant(tenant: string): string {
  if (typeof tenant !== 'string' || tenant.length === 0) throw new Error('tenant must be a non-empty string');
  return tenant;
}

/** Throws unless the point id `id` is a non-empty string. */
export function checkId(id: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new Error('point id must be a non-empty string');
}

/** Throws unless `search` names a tenant and a numeric `limit`; returns it. */
export function checkSearch(search: VectorSearch): VectorSearch {
  checkTenant(search?.tenant);
  if (typeof search.limit !== 'number' || Number.isNaN(search.limit)) throw new Error('search limit must be a number');
  return search;
}

/** Throws unless `sparse` has equal-length `indices` (unsigned 32-bit integers) and finite `values`; `what` names it in the message. */
export function checkSparse(sparse: SparseVector, what: string): void {
  if (!sparse || !Array.isArray(sparse.indices) || !Array.isArray(sparse.values) || sparse.indices.length !== sparse.values.length) {
    throw new Error(`${what}: indices and values must be arrays of equal length`);
  }
  for (let j = 0; j < sparse.indices.length; j++) {
    const index = sparse.indices[j];
    if (!Number.isInteger(index) || index < 0 || index > 0xffffffff) throw new Error(`${what}: index ${index} is not an unsigned 32-bit integer`);
    if (!Number.isFinite(sparse.values[j])) throw new Error(`${what}: value ${sparse.values[j]} is not finite`);
  }
}
