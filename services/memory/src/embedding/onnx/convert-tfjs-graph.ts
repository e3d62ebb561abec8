import { OnnxGraphBuilder } from './onnx-graph-builder';
import { onnxTypeOf, TF_OP_MAPPINGS, type MappingContext } from './tf-op-mappings';
import { attrType, type TfjsGraphModel, type TfjsNode, type TfjsWeight } from './tfjs-graph-model';

/** The result of {@link convertTfjsGraphToOnnx}. */
export interface OnnxConversion {
  /** The ONNX model file's bytes. */
  bytes: Uint8Array;
  /** How many nodes of each TensorFlow op type the graph had (constants and placeholders included). */
  opTypes: Record<string, number>;
  /** The graph's inputs (placeholders) and outputs, by TensorFlow node name. */
  inputs: string[];
  outputs: string[];
}

/** `node`, `node:0` -> `node`; `node:k` stays; `^node` (control dependency) -> undefined. */
function tensorName(input: string): string | undefined {
  if (input.startsWith('^')) return undefined;
  return input.endsWith(':0') ? input.slice(0, -2) : input;
}

/** The node that produces tensor `name` (`node` or `node:k`). */
function producerOf(name: string): string {
  const match = /^(.*):\d+$/.exec(name);
  return match ? match[1] : name;
}

/** Nodes in an order where every node comes after its inputs (iterative depth-first search). */
function topologicalOrder(nodes: TfjsNode[]): TfjsNode[] {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const state = new Map<string, 'open' | 'done'>();
  const order: TfjsNode[] = [];
  for (const root of nodes) {
    const stack: { node: TfjsNode; next: number }[] = [{ node: root, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.next === 0) {
        if (state.get(top.node.name) === 'done') {
          stack.pop();
          continue;
        }
        state.set(top.node.name, 'open');
      }
      const inputs = top.node.input ?? [];
      if (top.next < inputs.length) {
        const child = byName.get(producerOf(inputs[top.next++].replace(/^\^/, '')));
        if (!child) throw new Error(`${top.node.name}: input ${inputs[top.next - 1]} names no node of the graph`);
        if (state.get(child.name) === 'open') throw new Error(`${top.node.name}: the graph has a cycle (control flow is not supported by the converter)`);
        if (state.get(child.name) !== 'done') stack.push({ node: child, next: 0 });
        continue;
      }
      state.set(top.node.name, 'done');
      order.push(top.node);
      stack.pop();
    }
  }
  return order;
}

/** Adds constant `name` as an initializer: float32 as is, int32 widened to int64 (see tf-op-mappings.ts), bool as is. */
function addInitializer(builder: OnnxGraphBuilder, name: string, weight: TfjsWeight): void {
  if (weight.dtype === 'float32') builder.floats(name, weight.shape, weight.values as Float32Array);
  else if (weight.dtype === 'int32') builder.int64s(name, weight.shape, weight.values);
  else builder.bools(name, weight.shape, weight.values as Uint8Array);
}

/**
 * Converts a TensorFlow.js graph model into an ONNX model (opset 18) that computes the same outputs
 * from the same inputs: each TensorFlow op is mapped by {@link TF_OP_MAPPINGS}, constants become
 * initializers (only those some ONNX node reads), placeholders become inputs (integers as int64), and
 * the nodes nobody consumes become the outputs. Pure: no file system, no network.
 * @throws Error listing every op type the converter does not know, or naming the node whose mapping
 *   failed (an unsupported attribute, an input that had to be constant but is not).
 */
export function convertTfjsGraphToOnnx(model: TfjsGraphModel, graphName: string, producerVersion: string): OnnxConversion {
  const opTypes: Record<string, number> = {};
  for (const node of model.nodes) opTypes[node.op] = (opTypes[node.op] ?? 0) + 1;
  const unknown = Object.keys(opTypes).filter((op) => op !== 'Const' && op !== 'Placeholder' && !(op in TF_OP_MAPPINGS));
  if (unknown.length > 0) throw new Error(`the converter does not know the TensorFlow op(s) ${unknown.join(', ')}`);

  const builder = new OnnxGraphBuilder();
  const nodesByName = new Map(model.nodes.map((node) => [node.name, node]));
  const consumed = new Set<string>();
  for (const node of model.nodes) for (const input of node.input ?? []) consumed.add(producerOf(input.replace(/^\^/, '')));
  const constant = (name: string, where: string): TfjsWeight => {
    const weight = nodesByName.get(name)?.op === 'Const' ? model.weights.get(name) : undefined;
    if (!weight) throw new Error(`${where}: input ${name} must be a constant for the converter`);
    return weight;
  };

  const inputs: string[] = [];
  for (const node of topologicalOrder(model.nodes)) {
    if (node.op === 'Const') {
      if (!model.weights.has(node.name)) throw new Error(`${node.name}: constant has no entry in the weights manifest`);
      continue;
    }
    if (node.op === 'Placeholder') {
      const dims = (node.attr?.shape?.shape?.dim ?? []).map((d) => Number(d.size));
      builder.input(node.name, onnxTypeOf(attrType(node, 'dtype'), node.name), dims);
      inputs.push(node.name);
      continue;
    }
    const names = (node.input ?? []).map(tensorName).filter((name): name is string => name !== undefined);
    const context: MappingContext = {
      builder,
      node,
      inputs: names,
      constWeight: (index) => constant(names[index], node.name),
      constInts: (index) => {
        const weight = constant(names[index], node.name);
        if (weight.dtype !== 'int32') throw new Error(`${node.name}: input ${names[index]} must be an integer constant`);
        return Array.from(weight.values);
      },
      outputs: (count = 1) => Array.from({ length: count }, (_, k) => (k === 0 ? node.name : `${node.name}:${k}`)),
    };
    try {
      TF_OP_MAPPINGS[node.op](context);
    } catch (error) {
      throw new Error(`cannot convert ${node.op} node ${node.name}: ${(error as Error).message}`);
    }
  }

  // Constants become initializers only where an ONNX node reads them: a 1x1 convolution kernel is read
  // as its [in, out] matrix, and the begin/end of a slice only as the mapping's own int64 constants.
  for (const [name, node] of nodesByName) {
    if (node.op === 'Const' && builder.isReferenced(name)) addInitializer(builder, name, model.weights.get(name)!);
  }
  const outputs = model.nodes.filter((node) => !consumed.has(node.name) && node.op !== 'Const' && node.op !== 'Placeholder').map((node) => node.name);
  if (outputs.length === 0) throw new Error('the graph has no output node');
  for (const name of outputs) builder.output(name, onnxTypeOf(attrType(nodesByName.get(name)!, 'T') ?? 1, name));
  return { bytes: builder.encode(graphName, producerVersion), opTypes, inputs, outputs };
}
