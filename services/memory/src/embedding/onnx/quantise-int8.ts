import { onnx } from 'onnx-proto';

/** ONNX `TensorProto.DataType` codes this file reads and writes. */
const FLOAT = 1;
const UINT8 = 2;
const INT8 = 3;

/** onnxruntime's operator domain, which holds `DynamicQuantizeMatMul`. */
const MICROSOFT_DOMAIN = 'com.microsoft';

/**
 * Zero point of the unsigned weight codes (code + 128): see {@link Int8WeightCodes}.
 */
export const INT8_WEIGHT_ZERO_POINT = 128;

/**
 * How the 8-bit weight codes are stored, which decides the kernel onnxruntime multiplies them with
 * (docs/architecture.md, "The embedder"):
 * - `unsigned`: code + 128 as uint8 with a zero point of 128 per column (a fourth input), so onnxruntime
 *   multiplies uint8 by uint8. Exact on every CPU. The default.
 * - `signed`: the codes as int8, zero point 0, so onnxruntime multiplies uint8 activations by int8 weights.
 *   On x86 CPUs with VNNI (`vpdpbusd`, four products summed into 32 bits) this is the fast kernel: a
 *   30-token text 1.96 ms against 4.35 ms unsigned, with the same vectors (the same codes, exact integer
 *   sums). Without VNNI (AVX2, or AVX-512 without VNNI) the kernel first adds each pair of products into a
 *   16-bit integer (`vpmaddubsw`), which saturates when 2 × 255 × |code| exceeds 32,767: vectors fell to
 *   cosine 0.954 of fp32 on such a CPU. So `signed` is only for CPUs with VNNI ({@link int8WeightCodesForCpu}).
 */
export type Int8WeightCodes = 'unsigned' | 'signed';

/** What {@link quantiseMatMulWeightsInt8} changed. */
export interface Int8QuantisationResult {
  /** The rewritten model, encoded. */
  bytes: Uint8Array;
  /** Matrix products rewritten (each `MatMul` whose right operand is a constant 2-D float matrix). */
  quantised: number;
  /** Float weights replaced, in elements (each now one int8, plus one float scale per column). */
  weights: number;
}

/** The float32 values of an initializer stored as `rawData` or `floatData`. */
function floatsOf(tensor: onnx.ITensorProto): Float32Array {
  if (tensor.rawData && tensor.rawData.length > 0) {
    // A copy: `rawData` may be a view at an offset that is not a multiple of 4 inside the decoded buffer.
    const copy = new Uint8Array(tensor.rawData.length);
    copy.set(tensor.rawData);
    return new Float32Array(copy.buffer);
  }
  return Float32Array.from(tensor.floatData ?? []);
}

/**
 * Rewrites a float ONNX model so that its dense layers run in 8-bit integers: every `MatMul` whose right
 * operand `B` is a constant `[K, N]` float initializer becomes onnxruntime's `DynamicQuantizeMatMul`
 * (domain `com.microsoft`) with `B` quantised to 8 bits and one float scale per output column:
 * `scale[n] = max_k |B[k, n]| / 127`, `B8[k, n] = round(B[k, n] / scale[n])` (half away from zero; symmetric),
 * stored as uint8 `B8 + 128` with zero point 128 (`codes` `unsigned`, the default) or as int8 `B8`
 * (`signed`); {@link Int8WeightCodes} says which kernel each one gets and where `signed` is exact.
 * At run time onnxruntime quantises the left operand per call (uint8, its own scale and zero point from
 * that call's minimum and maximum), multiplies in integers and scales the result back to float. This is
 * post-training dynamic quantisation with per-channel weight scales (Jacob et al., "Quantization and
 * Training of Neural Networks for Efficient Integer-Arithmetic-Only Inference", CVPR 2018; Krishnamoorthi,
 * "Quantizing deep convolutional networks for efficient inference", 2018, section 3.1), the same scheme as
 * onnxruntime's own `quantize_dynamic` tool with `per_channel`.
 *
 * Other nodes are untouched: products of two activations (attention scores) stay float, and so do
 * additions, normalisation and the output. A column of zeros gets scale 1 (its int8 values are 0).
 * Why and what it costs: docs/architecture.md, "The embedder".
 * @param model an encoded `ModelProto` (the float conversion of convert-tfjs-graph.ts).
 * @param codes how the codes are stored (default `unsigned`).
 * @returns the rewritten model and what changed; `quantised` 0 means the model had no such product.
 * @throws Error when `model` is not a decodable ONNX model.
 */
export function quantiseMatMulWeightsInt8(model: Uint8Array, codes: Int8WeightCodes = 'unsigned'): Int8QuantisationResult {
  const offset = codes === 'unsigned' ? INT8_WEIGHT_ZERO_POINT : 0;
  const decoded = onnx.ModelProto.decode(model);
  const graph = decoded.graph;
  if (!graph) throw new Error('the model has no graph');
  const initializers = new Map((graph.initializer ?? []).map((tensor) => [tensor.name ?? '', tensor]));
  const added: onnx.ITensorProto[] = [];
  let quantised = 0;
  let weights = 0;
  for (const node of graph.node ?? []) {
    if (node.opType !== 'MatMul' || (node.domain ?? '') !== '' || node.input?.length !== 2) continue;
    const b = initializers.get(node.input[1]);
    if (!b || b.dataType !== FLOAT || b.dims?.length !== 2) continue;
    const [rows, columns] = b.dims.map(Number);
    const values = floatsOf(b);
    if (values.length !== rows * columns) continue;
    // Plain comparisons instead of Math.abs/round/min/max: the same result, and these loops over ~7 M
    // weights stay fast where the builtins are slow (Jest's vm context called them at ~1 µs each).
    const scales = new Float32Array(columns);
    for (let k = 0; k < rows; k++) {
      const row = k * columns;
      for (let n = 0; n < columns; n++) {
        const value = values[row + n];
        const magnitude = value < 0 ? -value : value;
        if (magnitude > scales[n]) scales[n] = magnitude;
      }
    }
    for (let n = 0; n < columns; n++) scales[n] = scales[n] > 0 ? scales[n] / 127 : 1;
    // Signed codes are written through an Int8Array view of the same bytes (two's complement).
    const stored = new Uint8Array(rows * columns);
    const signed = new Int8Array(stored.buffer);
    for (let k = 0; k < rows; k++) {
      const row = k * columns;
      for (let n = 0; n < columns; n++) {
        // Rounded half away from zero; |step| <= 127 by the scale's choice (the clamp guards float rounding).
        const step = values[row + n] / scales[n];
        const code = step < 0 ? -((0.5 - step) | 0) : (step + 0.5) | 0;
        const clamped = code > 127 ? 127 : code < -127 ? -127 : code;
        if (offset === 0) signed[row + n] = clamped;
        else stored[row + n] = clamped + offset;
      }
    }
    const codesName = `${b.name}/int8`;
    const scaleName = `${b.name}/int8_scale`;
    const zeroName = `${b.name}/int8_zero`;
    // Two products may share one weight matrix: quantise it once.
    if (!initializers.has(codesName)) {
      const codesTensor = { name: codesName, dims: [rows, columns], dataType: offset === 0 ? INT8 : UINT8, rawData: stored };
      const scaleTensor = { name: scaleName, dims: [columns], dataType: FLOAT, rawData: new Uint8Array(scales.buffer) };
      const zeroTensor = { name: zeroName, dims: [columns], dataType: UINT8, rawData: new Uint8Array(columns).fill(INT8_WEIGHT_ZERO_POINT) };
      const tensors = offset === 0 ? [codesTensor, scaleTensor] : [codesTensor, scaleTensor, zeroTensor];
      for (const tensor of tensors) initializers.set(tensor.name, tensor);
      added.push(...tensors);
      weights += rows * columns;
    }
    node.opType = 'DynamicQuantizeMatMul';
    node.domain = MICROSOFT_DOMAIN;
    node.input = offset === 0 ? [node.input[0], codesName, scaleName] : [node.input[0], codesName, scaleName, zeroName];
    quantised++;
  }
  if (quantised === 0) return { bytes: model, quantised, weights };
  // Float matrices no node reads any more are dropped (the file shrinks by about three quarters of them).
  const read = new Set((graph.node ?? []).flatMap((node) => node.input ?? []));
  graph.initializer = [...(graph.initializer ?? []), ...added].filter((tensor) => read.has(tensor.name ?? ''));
  if (!(decoded.opsetImport ?? []).some((opset) => opset.domain === MICROSOFT_DOMAIN)) {
    decoded.opsetImport = [...(decoded.opsetImport ?? []), { domain: MICROSOFT_DOMAIN, version: 1 }];
  }
  return { bytes: onnx.ModelProto.encode(decoded).finish(), quantised, weights };
}
