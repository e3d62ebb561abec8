import { runInThisContext } from 'node:vm';

/**
 * For specs that run onnxruntime-node under Jest. Its native side makes its tensors' typed arrays in
 * Node's main realm, while Jest runs each spec file in a vm context with typed array constructors of its
 * own, which onnxruntime-common's `instanceof` checks then reject ("A float32 tensor's data must be type
 * of Float32Array"). This gives the sandbox the main realm's constructors; call it before onnxruntime is
 * imported (the runner imports it lazily, on the first load). Outside Jest there is one realm and
 * nothing to do.
 */
export function useMainRealmTypedArrays(): void {
  for (const name of ['Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array']) {
    (globalThis as Record<string, unknown>)[name] = runInThisContext(name);
  }
}
