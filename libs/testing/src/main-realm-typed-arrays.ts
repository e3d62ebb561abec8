import { runInThisContext } from 'node:vm';

/**
 * For every spec (Jest runs ./jest-setup.ts first in each test file), so that onnxruntime-node, the
 * default embedding engine (docs/architecture.md, "The embedder"), runs in process under Jest. Its native
 * side makes its tensors' typed arrays in Node's main realm, while Jest runs each spec file in a vm
 * context with typed array constructors of its own, which onnxruntime-common's `instanceof` checks then
 * reject ("A float32 tensor's data must be type of Float32Array"). This gives the sandbox the main
 * realm's constructors; it must run before onnxruntime is imported (the runner imports it lazily, on the
 * first load). Without it, every in-process server of a suite fell back to tfjs-wasm after the load
 * probe failed. Outside Jest there is one realm and nothing to do.
 */
export function useMainRealmTypedArrays(): void {
  for (const name of ['Float32Array', 'Float64Array', 'Int8Array', 'Uint8Array', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array']) {
    (globalThis as Record<string, unknown>)[name] = runInThisContext(name);
  }
}
