import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder, OnnxType } from './onnx-graph-builder';
import { INT8_WEIGHT_ZERO_POINT, quantiseMatMulWeightsInt8 } from './quantise-int8';

/** x [n, 4] · W [4, 3] (constant) -> y, and x · xᵀ (two activations) -> z; W is also read by a second product. */
function smallModel(weights: Float32Array): Uint8Array {
  const graph = new OnnxGraphBuilder();
  graph.input('x', OnnxType.FLOAT, [-1, 4]);
  graph.floats('W', [4, 3], weights);
  graph.node('MatMul', ['x', 'W'], ['y']);
  graph.node('MatMul', ['x', 'W'], ['y2']);
  graph.node('Transpose', ['x'], ['xt'], { perm: [1, 0] });
  graph.node('MatMul', ['x', 'xt'], ['z']);
  graph.output('y', OnnxType.FLOAT);
  graph.output('y2', OnnxType.FLOAT);
  graph.output('z', OnnxType.FLOAT);
  return graph.encode('small', 'test');
}

/** The signed codes of a uint8 code tensor (each stored value minus the zero point 128). */
function int8Of(tensor: onnx.ITensorProto): Int8Array {
  return Int8Array.from(tensor.rawData ?? [], (value) => value - 128);
}

function floatsOf(tensor: onnx.ITensorProto): Float32Array {
  const copy = Uint8Array.from(tensor.rawData ?? []);
  return new Float32Array(copy.buffer);
}

describe('quantiseMatMulWeightsInt8', () => {
  // Column 0 spans ±2, column 1 is all zeros, column 2 is tiny (±0.001): per-column scales keep it exact to 1/254.
  const weights = Float32Array.from([2, 0, 0.001, -1.5, 0, -0.001, 0.5, 0, 0.00025, -2, 0, 0]);

  it('rewrites products with a constant weight matrix to DynamicQuantizeMatMul with int8 codes and per-column scales', () => {
    const result = quantiseMatMulWeightsInt8(smallModel(weights));
    expect(result).toMatchObject({ quantised: 2, weights: 12 });
    const model = onnx.ModelProto.decode(result.bytes);
    const nodes = model.graph!.node!;
    expect(nodes.map((node) => `${node.domain || ''}:${node.opType}`)).toEqual(['com.microsoft:DynamicQuantizeMatMul', 'com.microsoft:DynamicQuantizeMatMul', ':Transpose', ':MatMul']);
    expect(nodes[0].input).toEqual(['x', 'W/int8', 'W/int8_scale', 'W/int8_zero']);
    expect(nodes[1].input).toEqual(nodes[0].input);
    expect(model.opsetImport).toContainEqual(expect.objectContaining({ domain: 'com.microsoft', version: expect.anything() }));

    const initializers = new Map(model.graph!.initializer!.map((tensor) => [tensor.name, tensor]));
    // The float matrix is gone; the codes and scales are there once though two products read them.
    expect([...initializers.keys()].sort()).toEqual(['W/int8', 'W/int8_scale', 'W/int8_zero']);
    const codes = initializers.get('W/int8')!;
    const scales = initializers.get('W/int8_scale')!;
    // Decoded dimensions are protobuf Longs.
    // uint8 codes with zero point 128 (INT8_WEIGHT_ZERO_POINT: no 16-bit saturation on CPUs without VNNI)
    expect({ type: codes.dataType, dims: codes.dims!.map(Number) }).toEqual({ type: 2, dims: [4, 3] });
    const zero = initializers.get('W/int8_zero')!;
    expect({ type: zero.dataType, dims: zero.dims!.map(Number), values: Array.from(zero.rawData ?? []) }).toEqual({ type: 2, dims: [3], values: [128, 128, 128] });
    expect({ type: scales.dataType, dims: scales.dims!.map(Number) }).toEqual({ type: 1, dims: [3] });
    const q = int8Of(codes);
    const s = floatsOf(scales);
    expect(Array.from(s)).toEqual([Math.fround(2 / 127), 1, Math.fround(0.001 / 127)]);
    // Each column's largest magnitude maps to ±127 around the zero point; every weight comes back within half a step.
    expect(INT8_WEIGHT_ZERO_POINT).toBe(128);
    expect(Array.from(q)).toEqual([127, 0, 127, -95, 0, -127, 32, 0, 32, -127, 0, 0]);
    weights.forEach((w, i) => expect(Math.abs(q[i] * s[i % 3] - w)).toBeLessThanOrEqual(s[i % 3] / 2 + 1e-9));
  });

  it('signed codes (for CPUs with VNNI): the same codes as int8, no zero-point input, three inputs per product', () => {
    const unsigned = onnx.ModelProto.decode(quantiseMatMulWeightsInt8(smallModel(weights)).bytes);
    const result = quantiseMatMulWeightsInt8(smallModel(weights), 'signed');
    expect(result).toMatchObject({ quantised: 2, weights: 12 });
    const model = onnx.ModelProto.decode(result.bytes);
    const nodes = model.graph!.node!;
    expect(nodes.map((node) => `${node.domain || ''}:${node.opType}`)).toEqual(['com.microsoft:DynamicQuantizeMatMul', 'com.microsoft:DynamicQuantizeMatMul', ':Transpose', ':MatMul']);
    expect(nodes[0].input).toEqual(['x', 'W/int8', 'W/int8_scale']);
    const initializers = new Map(model.graph!.initializer!.map((tensor) => [tensor.name, tensor]));
    expect([...initializers.keys()].sort()).toEqual(['W/int8', 'W/int8_scale']);
    const codes = initializers.get('W/int8')!;
    // TensorProto.DataType INT8 = 3, stored as two's complement bytes.
    expect({ type: codes.dataType, dims: codes.dims!.map(Number) }).toEqual({ type: 3, dims: [4, 3] });
    const signed = new Int8Array(Uint8Array.from(codes.rawData ?? []).buffer);
    expect(Array.from(signed)).toEqual([127, 0, 127, -95, 0, -127, 32, 0, 32, -127, 0, 0]);
    // The same quantisation as the unsigned copy: only the storage differs.
    const unsignedInitializers = new Map(unsigned.graph!.initializer!.map((tensor) => [tensor.name, tensor]));
    expect(Array.from(signed)).toEqual(Array.from(int8Of(unsignedInitializers.get('W/int8')!)));
    expect(floatsOf(initializers.get('W/int8_scale')!)).toEqual(floatsOf(unsignedInitializers.get('W/int8_scale')!));
  });

  it('leaves a model without such a product as it is', () => {
    const graph = new OnnxGraphBuilder();
    graph.input('a', OnnxType.FLOAT, [2, 2]);
    graph.input('b', OnnxType.FLOAT, [2, 2]);
    graph.node('MatMul', ['a', 'b'], ['c']);
    graph.output('c', OnnxType.FLOAT);
    const bytes = graph.encode('plain', 'test');
    expect(quantiseMatMulWeightsInt8(bytes)).toEqual({ bytes, quantised: 0, weights: 0 });
  });

  it('refuses bytes that are not an ONNX model', () => {
    expect(() => quantiseMatMulWeightsInt8(Uint8Array.from([0xff, 0xff, 0xff, 0xff]))).toThrow();
  });
});
