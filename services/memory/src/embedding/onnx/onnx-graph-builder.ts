import { onnx } from 'onnx-proto';

/** ONNX element types the converter writes (`TensorProto.DataType`). */
export const OnnxType = { FLOAT: 1, BOOL: 9, INT64: 7 } as const;
export type OnnxElementType = (typeof OnnxType)[keyof typeof OnnxType];

/** An attribute value: int, float, string, int list, or a tensor (for `ConstantOfShape`). */
export type OnnxAttribute = number | string | number[] | { float: number } | { tensor: onnx.ITensorProto };

/** The opset the converted graph declares (ONNX 1.13: reduce ops take `axes` as an input). */
export const ONNX_OPSET = 18;

/**
 * Accumulates the nodes, initializers, inputs and outputs of one ONNX graph and encodes it as a
 * `ModelProto` (IR version 8). Names are free-form strings; {@link fresh} makes unique names for the
 * helper tensors a mapping needs.
 */
export class OnnxGraphBuilder {
  private readonly nodes: onnx.INodeProto[] = [];
  private readonly initializers: onnx.ITensorProto[] = [];
  private readonly inputs: onnx.IValueInfoProto[] = [];
  private readonly outputs: onnx.IValueInfoProto[] = [];
  private readonly referenced = new Set<string>();
  private counter = 0;

  /** A new tensor name that starts with `base`. */
  fresh(base: string): string {
    return `${base}/onnx_${this.counter++}`;
  }

  /** Adds node `opType(inputs) -> outputs`; returns its first output's name. */
  node(opType: string, inputs: string[], outputs: string[], attributes: Record<string, OnnxAttribute> = {}): string {
    for (const input of inputs) this.referenced.add(input);
    this.nodes.push({
      opType,
      name: outputs[0],
      input: inputs,
      output: outputs,
      attribute: Object.entries(attributes).map(([name, value]) => toAttribute(name, value)),
    });
    return outputs[0];
  }

  /** Adds a float32 initializer. */
  floats(name: string, dims: number[], values: Float32Array): string {
    this.initializers.push({ name, dims, dataType: OnnxType.FLOAT, rawData: bytesOf(values) });
    return name;
  }

  /** Adds an int64 initializer (values are small integers). */
  int64s(name: string, dims: number[], values: ArrayLike<number>): string {
    this.initializers.push({ name, dims, dataType: OnnxType.INT64, rawData: bytesOf(BigInt64Array.from(Array.from(values, (v) => BigInt(v)))) });
    return name;
  }

  /** Adds a bool initializer. */
  bools(name: string, dims: number[], values: Uint8Array): string {
    this.initializers.push({ name, dims, dataType: OnnxType.BOOL, rawData: new Uint8Array(values) });
    return name;
  }

  /** A new int64 1-D initializer holding `values` (for axes, starts, shapes). */
  constInt64s(values: number[]): string {
    return this.int64s(this.fresh('const'), [values.length], values);
  }

  /** Whether some node added so far reads tensor `name`. */
  isReferenced(name: string): boolean {
    return this.referenced.has(name);
  }

  /** Declares a graph input; `dims` entries of -1 become symbolic dimensions. */
  input(name: string, elemType: OnnxElementType, dims: number[]): void {
    this.inputs.push(valueInfo(name, elemType, dims));
  }

  /** Declares a graph output of any shape. */
  output(name: string, elemType: OnnxElementType): void {
    this.outputs.push({ name, type: { tensorType: { elemType } } });
  }

  /** Encodes the graph as an ONNX model file's bytes. */
  encode(graphName: string, producerVersion: string): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'agent-memory convert-use-lite',
      producerVersion,
      opsetImport: [{ domain: '', version: ONNX_OPSET }],
      graph: { name: graphName, node: this.nodes, initializer: this.initializers, input: this.inputs, output: this.outputs },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, elemType: OnnxElementType, dims: number[]): onnx.IValueInfoProto {
  return {
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d, i) => (d < 0 ? { dimParam: `${name}_${i}` } : { dimValue: d })) } } },
  };
}

function bytesOf(values: Float32Array | BigInt64Array): Uint8Array {
  // ONNX raw_data is little-endian, as are the machines Node runs on (x64, arm64).
  return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
}

function toAttribute(name: string, value: OnnxAttribute): onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof value === 'number') return { name, type: T.INT, i: value };
  if (typeof value === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(value) };
  if (Array.isArray(value)) return { name, type: T.INTS, ints: value };
  if ('float' in value) return { name, type: T.FLOAT, f: value.float };
  return { name, type: T.TENSOR, t: value.tensor };
}
