import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The parts of a TensorFlow.js graph model (`model.json`, format "graph-model" as written by
 * `tensorflowjs_converter`: a TensorFlow `GraphDef` as JSON plus a weights manifest) that the ONNX
 * converter reads. Attribute values keep the protobuf-JSON shape of TensorFlow's `AttrValue`.
 */
export interface TfjsAttrValue {
  i?: string | number;
  f?: number;
  b?: boolean;
  /** Bytes of a string attribute (tfjs keeps them as a byte array or base64 text). */
  s?: number[] | string;
  type?: number | string;
  shape?: { dim?: { size: string | number }[]; unknownRank?: boolean };
  list?: { i?: (string | number)[]; s?: unknown[] };
}

/** One `NodeDef` of the graph. */
export interface TfjsNode {
  name: string;
  op: string;
  /** Inputs as `node`, `node:k` (k-th output) or `^node` (control dependency). */
  input?: string[];
  attr?: Record<string, TfjsAttrValue>;
}

/** One weight entry of the manifest: its bytes follow the previous entry's in the concatenated shards. */
interface TfjsWeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool';
  quantization?: unknown;
}

/** The `model.json` file. */
interface TfjsModelJson {
  format?: string;
  modelTopology: { node: TfjsNode[]; library?: { function?: unknown[] } };
  weightsManifest: { paths: string[]; weights: TfjsWeightSpec[] }[];
}

/** A constant of the graph with its values (int32 and bool weights are read as their tfjs dtype). */
export interface TfjsWeight {
  dtype: TfjsWeightSpec['dtype'];
  shape: number[];
  values: Float32Array | Int32Array | Uint8Array;
}

/** A graph model as read from disk: its nodes in file order and its constants by node name. */
export interface TfjsGraphModel {
  nodes: TfjsNode[];
  weights: Map<string, TfjsWeight>;
}

const BYTES_PER_ELEMENT: Record<TfjsWeightSpec['dtype'], number> = { float32: 4, int32: 4, bool: 1 };

/**
 * Reads `model.json` and its weight shards from `directory` (no network).
 * @throws Error when a file is missing, the model uses graph functions (control flow) or quantised
 *   weights, or the shards are shorter or longer than the manifest says.
 */
export async function readTfjsGraphModel(directory: string): Promise<TfjsGraphModel> {
  const json = JSON.parse(await readFile(join(directory, 'model.json'), 'utf8')) as TfjsModelJson;
  if ((json.modelTopology.library?.function?.length ?? 0) > 0) throw new Error('tfjs model uses graph functions (control flow); not supported by the converter');
  const weights = new Map<string, TfjsWeight>();
  for (const group of json.weightsManifest) {
    const shards = await Promise.all(group.paths.map((path) => readFile(join(directory, path))));
    const bytes = Buffer.concat(shards);
    let offset = 0;
    for (const spec of group.weights) {
      if (spec.quantization) throw new Error(`tfjs weight ${spec.name} is quantised; not supported by the converter`);
      const elementBytes = BYTES_PER_ELEMENT[spec.dtype] as number | undefined;
      if (elementBytes === undefined) throw new Error(`tfjs weight ${spec.name} has unsupported dtype ${spec.dtype}`);
      const length = spec.shape.reduce((n, d) => n * d, 1) * elementBytes;
      if (offset + length > bytes.length) throw new Error(`tfjs weight shards end before weight ${spec.name}`);
      // Copy into an aligned buffer: a typed array view needs an offset that is a multiple of its element size.
      const slice = new Uint8Array(bytes.subarray(offset, offset + length));
      const values = spec.dtype === 'float32' ? new Float32Array(slice.buffer) : spec.dtype === 'int32' ? new Int32Array(slice.buffer) : slice;
      weights.set(spec.name, { dtype: spec.dtype, shape: spec.shape, values });
      offset += length;
    }
    if (offset !== bytes.length) throw new Error(`tfjs weight shards hold ${bytes.length} bytes, the manifest ${offset}`);
  }
  return { nodes: json.modelTopology.node, weights };
}

/** Integer value of attribute `name` of `node` (`fallback` when absent). */
export function attrInt(node: TfjsNode, name: string, fallback = 0): number {
  const value = node.attr?.[name]?.i;
  return value === undefined ? fallback : Number(value);
}

/** Boolean value of attribute `name` of `node` (false when absent). */
export function attrBool(node: TfjsNode, name: string): boolean {
  return node.attr?.[name]?.b === true;
}

/** String value of attribute `name` (tfjs stores bytes as a number array or as base64), or `fallback`. */
export function attrString(node: TfjsNode, name: string, fallback = ''): string {
  const value = node.attr?.[name]?.s;
  if (value === undefined) return fallback;
  return Array.isArray(value) ? String.fromCharCode(...value) : Buffer.from(value, 'base64').toString('latin1');
}

/** Integer list attribute `name` (empty when absent). */
export function attrInts(node: TfjsNode, name: string): number[] {
  return (node.attr?.[name]?.list?.i ?? []).map(Number);
}

/** TensorFlow `DataType` of attribute `name` as a number (`DT_FLOAT` = 1, `DT_INT32` = 3, `DT_INT64` = 9, `DT_BOOL` = 10). */
export function attrType(node: TfjsNode, name: string): number | undefined {
  const value = node.attr?.[name]?.type;
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  const named: Record<string, number> = { DT_FLOAT: 1, DT_INT32: 3, DT_INT64: 9, DT_BOOL: 10 };
  return named[value] ?? Number(value);
}
