/**
 * Jest's setup file (jest.config.js `setupFiles`), run in every test file before its modules: the main
 * realm's typed arrays, so that the ONNX embedder runs in process ({@link useMainRealmTypedArrays}).
 */
import { useMainRealmTypedArrays } from './main-realm-typed-arrays';

useMainRealmTypedArrays();
