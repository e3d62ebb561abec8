/**
 * Returns a new unit-length (L2-normalised) `Float32Array` copy of `values`. The norm is accumulated in
 * float64 so long vectors keep full precision. Throws when the vector has a zero, NaN or infinite norm,
 * because such a vector cannot be compared by cosine and means the model or endpoint misbehaved.
 */
export function normaliseL2(values: ArrayLike<number>): Float32Array {
  let sumOfSquares = 0;
  for (let i = 0; i < values.length; i++) sumOfSquares += values[i] * values[i];
  const norm = Math.sqrt(sumOfSquares);
  if (!Number.isFinite(norm) || norm === 0) throw new Error(`cannot normalise a vector with norm ${norm}`);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i] / norm;
  return out;
}

/** Dot product of two equally long vectors; for unit vectors this is their cosine similarity (-1..1). */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`vector lengths differ: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
