import { OnnxType, type OnnxElementType, type OnnxGraphBuilder } from './onnx-graph-builder';
import { attrBool, attrInt, attrInts, attrString, attrType, type TfjsNode, type TfjsWeight } from './tfjs-graph-model';

/**
 * How each TensorFlow op of a tfjs graph model becomes ONNX nodes. Every TensorFlow integer tensor
 * (int32 or int64) becomes int64 in ONNX, the type ONNX wants for shapes, indices and axes, so no casts
 * are needed between them; floats stay float32, bools stay bool. Values are the same: the graph only
 * holds small integers (token ids, positions, shapes).
 */

/** What a mapping sees: the builder, the node's (normalised) input names and its constant inputs' values. */
export interface MappingContext {
  builder: OnnxGraphBuilder;
  node: TfjsNode;
  /** Input tensor names, `name` for output 0 and `name:k` otherwise, control inputs dropped. */
  inputs: string[];
  /** The integer values of constant input `index`; throws when that input is not a constant. */
  constInts(index: number): number[];
  /** The weight behind constant input `index`; throws when that input is not a constant. */
  constWeight(index: number): TfjsWeight;
  /** The node's output names (`name`, `name:1`, …) for `count` outputs. */
  outputs(count?: number): string[];
}

/** One mapping: adds the ONNX nodes that compute `node`'s outputs under their TensorFlow names. */
type Mapping = (c: MappingContext) => void;

/** ONNX element type for TensorFlow `DataType` `tfType`. */
export function onnxTypeOf(tfType: number | undefined, where: string): OnnxElementType {
  switch (tfType) {
    case 1:
      return OnnxType.FLOAT;
    case 3:
    case 9:
      return OnnxType.INT64;
    case 10:
      return OnnxType.BOOL;
    default:
      throw new Error(`${where}: TensorFlow dtype ${tfType} is not supported by the converter`);
  }
}

const INT64_MAX = Number.MAX_SAFE_INTEGER;

/** A one-to-one op with the same inputs (elementwise maths, comparisons). */
function same(opType: string): Mapping {
  return (c) => void c.builder.node(opType, c.inputs, c.outputs());
}

/** TF reductions `(x, axes)` with `keep_dims` -> ONNX `Reduce*` (opset 18: axes as an input). */
function reduce(opType: string): Mapping {
  return (c) => {
    const axes = c.builder.constInt64s(c.constInts(1));
    c.builder.node(opType, [c.inputs[0], axes], c.outputs(), { keepdims: attrBool(c.node, 'keep_dims') ? 1 : 0 });
  };
}

/** `ScatterND` into a tensor of `fill` with shape `shape`. */
function scatterInto(c: MappingContext, fill: string, shape: string, indices: string, updates: string, reduction: string | undefined): void {
  const base = c.builder.node('Expand', [fill, shape], [c.builder.fresh(c.node.name)]);
  c.builder.node('ScatterND', [base, indices, updates], c.outputs(), reduction ? { reduction } : {});
}

/** A scalar zero of ONNX type `type`, as an initializer. */
function zeroOf(c: MappingContext, type: OnnxElementType): string {
  const name = c.builder.fresh(`${c.node.name}/zero`);
  if (type === OnnxType.FLOAT) return c.builder.floats(name, [], new Float32Array(1));
  if (type === OnnxType.INT64) return c.builder.int64s(name, [], [0]);
  return c.builder.bools(name, [], new Uint8Array(1));
}

/**
 * TF `StridedSlice` with constant begin/end/strides -> ONNX `Slice` (+ `Squeeze` for shrunk axes).
 * Ellipsis and new-axis masks are not supported (the converter fails instead of guessing).
 */
const stridedSlice: Mapping = (c) => {
  if (attrInt(c.node, 'ellipsis_mask') !== 0 || attrInt(c.node, 'new_axis_mask') !== 0) {
    throw new Error(`${c.node.name}: StridedSlice with ellipsis_mask or new_axis_mask is not supported by the converter`);
  }
  const [begin, end, strides] = [c.constInts(1), c.constInts(2), c.constInts(3)];
  const beginMask = attrInt(c.node, 'begin_mask');
  const endMask = attrInt(c.node, 'end_mask');
  const shrinkMask = attrInt(c.node, 'shrink_axis_mask');
  const starts: number[] = [];
  const ends: number[] = [];
  const shrunk: number[] = [];
  begin.forEach((b, axis) => {
    const bit = 1 << axis;
    if (shrinkMask & bit) {
      starts.push(b);
      ends.push(b === -1 ? INT64_MAX : b + 1);
      shrunk.push(axis);
      return;
    }
    const forward = strides[axis] > 0;
    starts.push(beginMask & bit ? (forward ? 0 : -1) : b);
    ends.push(endMask & bit ? (forward ? INT64_MAX : -INT64_MAX) : end[axis]);
  });
  const { builder } = c;
  const inputs = [c.inputs[0], builder.constInt64s(starts), builder.constInt64s(ends), builder.constInt64s(begin.map((_, i) => i)), builder.constInt64s(strides)];
  if (shrunk.length === 0) {
    builder.node('Slice', inputs, c.outputs());
    return;
  }
  const sliced = builder.node('Slice', inputs, [builder.fresh(c.node.name)]);
  builder.node('Squeeze', [sliced, builder.constInt64s(shrunk)], c.outputs());
};

/** TF `MatMul`/`BatchMatMul` with optional transposition of either operand. */
function matMul(transposeA: string, transposeB: string): Mapping {
  return (c) => {
    const [ta, tb] = [attrBool(c.node, transposeA), attrBool(c.node, transposeB)];
    if (!ta && !tb) {
      c.builder.node('MatMul', c.inputs, c.outputs());
      return;
    }
    // Einsum swaps the last two axes of operands of any rank (the graph gives no static rank here).
    const equation = `${ta ? '...ji' : '...ij'},${tb ? '...kj' : '...jk'}->...ik`;
    c.builder.node('Einsum', c.inputs, c.outputs(), { equation });
  };
}

/** The mapping of every TensorFlow op the converter knows; any other op fails the conversion. */
export const TF_OP_MAPPINGS: Record<string, Mapping> = {
  Add: same('Add'),
  AddV2: same('Add'),
  Sub: same('Sub'),
  Mul: same('Mul'),
  RealDiv: same('Div'),
  Maximum: same('Max'),
  Less: same('Less'),
  Greater: same('Greater'),
  LogicalNot: same('Not'),
  Sin: same('Sin'),
  Cos: same('Cos'),
  Tanh: same('Tanh'),
  Relu: same('Relu'),
  Shape: same('Shape'),
  Range: same('Range'),
  Identity: same('Identity'),
  Square: (c) => void c.builder.node('Mul', [c.inputs[0], c.inputs[0]], c.outputs()),
  Rsqrt: (c) => void c.builder.node('Reciprocal', [c.builder.node('Sqrt', [c.inputs[0]], [c.builder.fresh(c.node.name)])], c.outputs()),
  // TF Softmax normalises over the last axis, as ONNX Softmax (opset >= 13) with axis -1.
  Softmax: (c) => void c.builder.node('Softmax', c.inputs, c.outputs(), { axis: -1 }),
  Cast: (c) => void c.builder.node('Cast', [c.inputs[0]], c.outputs(), { to: onnxTypeOf(attrType(c.node, 'DstT'), c.node.name) }),
  Sum: reduce('ReduceSum'),
  Mean: reduce('ReduceMean'),
  Max: reduce('ReduceMax'),
  Prod: reduce('ReduceProd'),
  // TF Reshape takes 0 as a zero-length dimension: allowzero=1 keeps that meaning.
  Reshape: (c) => void c.builder.node('Reshape', c.inputs, c.outputs(), { allowzero: 1 }),
  ExpandDims: (c) => void c.builder.node('Unsqueeze', [c.inputs[0], c.builder.constInt64s(c.constInts(1))], c.outputs()),
  Squeeze: (c) => {
    const axes = attrInts(c.node, 'squeeze_dims');
    c.builder.node('Squeeze', axes.length > 0 ? [c.inputs[0], c.builder.constInt64s(axes)] : [c.inputs[0]], c.outputs());
  },
  Transpose: (c) => void c.builder.node('Transpose', [c.inputs[0]], c.outputs(), { perm: c.constInts(1) }),
  ConcatV2: (c) => {
    const axis = c.constInts(c.inputs.length - 1)[0];
    c.builder.node('Concat', c.inputs.slice(0, -1), c.outputs(), { axis });
  },
  Pack: (c) => {
    const axis = attrInt(c.node, 'axis');
    const axes = c.builder.constInt64s([axis]);
    const expanded = c.inputs.map((input) => c.builder.node('Unsqueeze', [input, axes], [c.builder.fresh(c.node.name)]));
    c.builder.node('Concat', expanded, c.outputs(), { axis });
  },
  GatherV2: (c) => {
    if (attrInt(c.node, 'batch_dims') !== 0) throw new Error(`${c.node.name}: GatherV2 with batch_dims is not supported by the converter`);
    c.builder.node('Gather', [c.inputs[0], c.inputs[1]], c.outputs(), { axis: c.constInts(2)[0] });
  },
  GatherNd: same('GatherND'),
  // One-input Where: the coordinates of true elements, [count, rank], as NonZero's [rank, count] transposed.
  Where: (c) => {
    if (c.inputs.length !== 1) throw new Error(`${c.node.name}: Where with 3 inputs (Select) is not supported by the converter`);
    const coordinates = c.builder.node('NonZero', c.inputs, [c.builder.fresh(c.node.name)]);
    c.builder.node('Transpose', [coordinates], c.outputs(), { perm: [1, 0] });
  },
  // TF ScatterNd adds duplicate indices into zeros; ScatterND with reduction "add" into zeros does the same.
  ScatterNd: (c) => {
    const [indices, updates, shape] = c.inputs;
    scatterInto(c, zeroOf(c, onnxTypeOf(attrType(c.node, 'T'), c.node.name)), shape, indices, updates, 'add');
  },
  // SparseToDense(indices, output_shape, values, default): values written over a tensor of the default.
  SparseToDense: (c) => {
    const [indices, shape, values, fill] = c.inputs;
    scatterInto(c, fill, shape, indices, values, undefined);
  },
  StridedSlice: stridedSlice,
  // TF Slice(x, begin, size) with constant begin and size; size -1 means "to the end".
  Slice: (c) => {
    const [begin, size] = [c.constInts(1), c.constInts(2)];
    const ends = begin.map((b, i) => (size[i] === -1 ? INT64_MAX : b + size[i]));
    const { builder } = c;
    builder.node('Slice', [c.inputs[0], builder.constInt64s(begin), builder.constInt64s(ends), builder.constInt64s(begin.map((_, i) => i))], c.outputs());
  },
  SplitV: (c) => {
    const count = attrInt(c.node, 'num_split');
    c.builder.node('Split', [c.inputs[0], c.builder.constInt64s(c.constInts(1))], c.outputs(count), { axis: c.constInts(2)[0] });
  },
  MatMul: matMul('transpose_a', 'transpose_b'),
  BatchMatMul: matMul('adj_x', 'adj_y'),
  BatchMatMulV2: matMul('adj_x', 'adj_y'),
  BiasAdd: (c) => {
    const format = attrString(c.node, 'data_format', 'NHWC');
    if (format !== 'NHWC') throw new Error(`${c.node.name}: BiasAdd with data_format ${format} is not supported by the converter`);
    c.builder.node('Add', c.inputs, c.outputs());
  },
  Conv2D: (c) => conv2dAsMatMul(c),
};

/**
 * TF `Conv2D` (NHWC) with a 1x1 kernel, unit strides and dilations is a matrix product over the channel
 * axis: `x [..., in] @ kernel [in, out]`. Other convolutions fail the conversion. The kernel must be a
 * constant float32 weight; its [in, out] view becomes an initializer of its own.
 */
function conv2dAsMatMul(c: MappingContext): void {
  const format = attrString(c.node, 'data_format', 'NHWC');
  const unit = (values: number[]) => values.every((v) => v === 1);
  if (format !== 'NHWC' || !unit(attrInts(c.node, 'strides')) || !unit(attrInts(c.node, 'dilations'))) {
    throw new Error(`${c.node.name}: only NHWC Conv2D with unit strides and dilations is supported by the converter`);
  }
  const kernel = c.constWeight(1);
  const [height, width, channelsIn, channelsOut] = kernel.shape;
  if (height !== 1 || width !== 1 || kernel.dtype !== 'float32') throw new Error(`${c.node.name}: only float32 1x1 Conv2D kernels are supported by the converter`);
  const matrix = c.builder.floats(c.builder.fresh(`${c.inputs[1]}/matrix`), [channelsIn, channelsOut], kernel.values as Float32Array);
  c.builder.node('MatMul', [c.inputs[0], matrix], c.outputs());
}
