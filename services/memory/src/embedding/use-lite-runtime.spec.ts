import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertTfjsGraphToOnnx } from './onnx/convert-tfjs-graph';
import { int8WeightCodesForCpu } from './onnx/cpu-int8-codes';
import { ensureUseLiteOnnxModel, useLiteModelPackage, useLiteOnnxFileName } from './onnx/use-lite-onnx-cache';
import { readTfjsGraphModel, type TfjsNode } from './onnx/tfjs-graph-model';
import { loadUseLiteRunnerFor } from './use-lite-runtime';
import type { EmbeddingBatchRunner } from './use-lite.embedder';

/** The int8 copy's weight codes on this machine's CPU (signed with VNNI): part of its cached file's name. */
const CODES = int8WeightCodesForCpu();

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: string[] = [];
  return { lines, log: (message: string) => void lines.push(`info ${message}`), warn: (message: string) => void lines.push(`warn ${message}`) };
}

/** A runner that answers a constant vector and says which engine it stands for. */
function fakeRunner(engine: string): EmbeddingBatchRunner & { engine: string } {
  return { engine, run: async (texts) => texts.map(() => new Float32Array(512).fill(1)), dispose() {} };
}

describe('USE-lite runtime selection and the converted model cache', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'use-lite-runtime-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('converts once and reuses the cached file on the next start (no second conversion)', async () => {
    const first = await ensureUseLiteOnnxModel(directory);
    expect(first).toMatchObject({ converted: true, path: join(directory, useLiteOnnxFileName(useLiteModelPackage().version)) });
    const written = await stat(first.path);
    expect(written.mode & 0o777).toBe(0o600);
    const second = await ensureUseLiteOnnxModel(directory);
    expect(second).toEqual({ path: first.path, converted: false, conversionMs: 0 });
    expect((await stat(first.path)).mtimeMs).toBe(written.mtimeMs);
    const int8 = await ensureUseLiteOnnxModel(directory, { precision: 'int8' });
    expect(int8).toMatchObject({ converted: true, path: join(directory, useLiteOnnxFileName(useLiteModelPackage().version, 'int8', CODES)) });
    // The quantised copy: int8 weight matrices, about half the size of the float file.
    expect((await stat(int8.path)).size).toBeLessThan(written.size * 0.6);

    const logger = recordingLogger();
    const paths: string[] = [];
    const loaded = await loadUseLiteRunnerFor({
      modelCacheDirectory: directory,
      logger,
      loadOnnx: async (options) => {
        paths.push(options.modelPath);
        return fakeRunner('onnx');
      },
      loadTfjs: async () => fakeRunner('tfjs'),
    });
    expect(loaded.runtime).toBe('onnx');
    expect(paths).toEqual([int8.path]);
    expect(logger.lines[0]).toBe('info loading embedding model (onnx)');
    expect(logger.lines.some((line) => line.includes('converted'))).toBe(false);
    expect(logger.lines.at(-1)).toMatch(/^info embedding model ready in \d+ ms \(onnx\)$/);
  });

  it('keys the cache by package and converter version and deletes files of other versions, keeping both precisions and both int8 codes of this one', async () => {
    const version = useLiteModelPackage().version;
    await writeFile(join(directory, 'use-lite-0.1.0-c1.onnx'), 'old');
    await writeFile(join(directory, 'use-lite-0.1.0-c1-int8.onnx'), 'old');
    await writeFile(join(directory, useLiteOnnxFileName(version, 'int8', 'unsigned')), 'another replica set to int8');
    await writeFile(join(directory, useLiteOnnxFileName(version, 'int8', 'signed')), 'another replica set to int8, on a CPU with VNNI');
    await writeFile(join(directory, 'unrelated.txt'), 'keep');
    const file = await ensureUseLiteOnnxModel(directory);
    expect(file.converted).toBe(true);
    expect((await readdir(directory)).sort()).toEqual([useLiteOnnxFileName(version), useLiteOnnxFileName(version, 'int8', 'unsigned'), useLiteOnnxFileName(version, 'int8', 'signed'), 'unrelated.txt'].sort());
  });

  it("deletes a crashed conversion's temporary file older than an hour, keeps a recent one (another replica's in progress)", async () => {
    const name = useLiteOnnxFileName(useLiteModelPackage().version);
    const stale = join(directory, `${name}.0b1c.tmp`);
    const recent = join(directory, `${name}.9f8e.tmp`);
    await writeFile(stale, 'half');
    await writeFile(recent, 'half');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(stale, twoHoursAgo, twoHoursAgo);
    await ensureUseLiteOnnxModel(directory);
    expect((await readdir(directory)).sort()).toEqual([name, `${name}.9f8e.tmp`].sort());
    expect((await stat(join(directory, name))).mode & 0o777).toBe(0o600);
  });

  it('converts a corrupt cached model again and runs it (real onnxruntime), logging why', async () => {
    const path = join(directory, useLiteOnnxFileName(useLiteModelPackage().version, 'int8', CODES));
    await writeFile(path, 'not an onnx model');
    const logger = recordingLogger();
    const loaded = await loadUseLiteRunnerFor({ modelCacheDirectory: directory, logger, loadTfjs: async () => fakeRunner('tfjs') });
    try {
      expect(loaded.runtime).toBe('onnx');
      expect(logger.lines).toContainEqual(expect.stringMatching(new RegExp(`^warn cached ONNX embedding model .*${useLiteOnnxFileName('.*', 'int8', CODES)} did not load \\(.+\\); converting it again$`)));
      const [vector] = await loaded.runner.run(['hello world']);
      expect(vector).toHaveLength(512);
      expect((await stat(path)).size).toBeGreaterThan(10_000_000);
    } finally {
      loaded.runner.dispose();
    }
  });

  it('auto: falls back to tfjs-wasm with "native embedder unavailable" when the native engine cannot load', async () => {
    const logger = recordingLogger();
    const loaded = await loadUseLiteRunnerFor({
      modelCacheDirectory: directory,
      logger,
      loadOnnx: async () => {
        throw new Error('no native binary for this platform');
      },
      loadTfjs: async () => fakeRunner('tfjs'),
    });
    expect(loaded.runtime).toBe('tfjs');
    expect((loaded.runner as ReturnType<typeof fakeRunner>).engine).toBe('tfjs');
    expect(logger.lines).toEqual([
      'info loading embedding model (onnx)',
      expect.stringMatching(/^info converted the embedding model to ONNX \(int8\) in \d+ ms/),
      'warn int8 embedding model unavailable: no native binary for this platform; using fp32',
      expect.stringMatching(/^info converted the embedding model to ONNX \(fp32\) in \d+ ms/),
      'warn native embedder unavailable: no native binary for this platform; using tfjs-wasm',
      'info loading embedding model (tfjs)',
      expect.stringMatching(/^info embedding model ready in \d+ ms \(tfjs\)$/),
    ]);
  });

  it('auto: a cached model that fails again after reconversion falls back to tfjs', async () => {
    await ensureUseLiteOnnxModel(directory);
    const logger = recordingLogger();
    let attempts = 0;
    const loaded = await loadUseLiteRunnerFor({
      precision: 'fp32',
      modelCacheDirectory: directory,
      logger,
      loadOnnx: async () => {
        attempts++;
        throw new Error('protobuf parsing failed');
      },
      loadTfjs: async () => fakeRunner('tfjs'),
    });
    expect(attempts).toBe(2);
    expect(loaded.runtime).toBe('tfjs');
    expect(logger.lines).toContain('warn native embedder unavailable: protobuf parsing failed; using tfjs-wasm');
  });

  it('int8: a quantised model that does not load falls back to the fp32 model, with a warning', async () => {
    const logger = recordingLogger();
    const paths: string[] = [];
    const loaded = await loadUseLiteRunnerFor({
      runtime: 'onnx',
      modelCacheDirectory: directory,
      logger,
      loadOnnx: async (options) => {
        paths.push(options.modelPath);
        if (options.modelPath.includes('-int8')) throw new Error('DynamicQuantizeMatMul is not implemented');
        return fakeRunner('onnx');
      },
    });
    expect(loaded.runtime).toBe('onnx');
    const version = useLiteModelPackage().version;
    expect(paths).toEqual([join(directory, useLiteOnnxFileName(version, 'int8', CODES)), join(directory, useLiteOnnxFileName(version))]);
    expect(logger.lines).toContain('warn int8 embedding model unavailable: DynamicQuantizeMatMul is not implemented; using fp32');
  });

  it('fp32: loads the float conversion and never quantises', async () => {
    const paths: string[] = [];
    await loadUseLiteRunnerFor({ precision: 'fp32', modelCacheDirectory: directory, logger: recordingLogger(), loadOnnx: async (options) => (paths.push(options.modelPath), fakeRunner('onnx')) });
    expect(paths).toEqual([join(directory, useLiteOnnxFileName(useLiteModelPackage().version))]);
    expect(await readdir(directory)).toEqual([useLiteOnnxFileName(useLiteModelPackage().version)]);
  });

  it('onnx: no fallback, the error is thrown', async () => {
    const loadTfjs = jest.fn(async () => fakeRunner('tfjs'));
    await expect(
      loadUseLiteRunnerFor({
        runtime: 'onnx',
        modelCacheDirectory: directory,
        logger: recordingLogger(),
        loadOnnx: async () => {
          throw new Error('boom');
        },
        loadTfjs,
      }),
    ).rejects.toThrow('boom');
    expect(loadTfjs).not.toHaveBeenCalled();
  });

  it('tfjs: loads tfjs only and converts nothing', async () => {
    const logger = recordingLogger();
    const loadOnnx = jest.fn(async () => fakeRunner('onnx'));
    const loaded = await loadUseLiteRunnerFor({ runtime: 'tfjs', modelCacheDirectory: directory, logger, loadOnnx, loadTfjs: async () => fakeRunner('tfjs') });
    expect(loaded.runtime).toBe('tfjs');
    expect(loadOnnx).not.toHaveBeenCalled();
    expect(await readdir(directory)).toEqual([]);
    expect(logger.lines[0]).toBe('info loading embedding model (tfjs)');
  });

  it('still loads the native engine from memory when the cache directory cannot be written', async () => {
    // A regular file where the directory should be: unwritable even for root.
    const blocked = join(directory, 'models');
    await writeFile(blocked, 'a file, not a directory');
    const logger = recordingLogger();
    let bytes: Uint8Array | undefined;
    const loaded = await loadUseLiteRunnerFor({
      modelCacheDirectory: blocked,
      logger,
      loadOnnx: async (options) => {
        bytes = options.modelBytes;
        return fakeRunner('onnx');
      },
    });
    expect(loaded.runtime).toBe('onnx');
    expect(bytes?.length).toBeGreaterThan(10_000_000);
    expect(logger.lines).toContainEqual(expect.stringMatching(/^warn converted the embedding model to ONNX \(int8\) in \d+ ms but cannot cache it/));
  });
});

describe('convertTfjsGraphToOnnx', () => {
  it('maps every op of the USE-lite graph and names its inputs and output', async () => {
    const model = await readTfjsGraphModel(useLiteModelPackage().directory);
    const conversion = convertTfjsGraphToOnnx(model, 'use-lite', 'test');
    expect(conversion.inputs).toEqual(['indices', 'values']);
    expect(conversion.outputs).toEqual(['module_apply_default/Encoder_en/hidden_layers/l2_normalize']);
    expect(Object.keys(conversion.opTypes)).toEqual(expect.arrayContaining(['SparseToDense', 'ScatterNd', 'GatherNd', 'Conv2D', 'BatchMatMul', 'StridedSlice', 'Where']));
    expect(conversion.bytes.length).toBeGreaterThan(20_000_000);
  });

  it('fails loudly, naming every op it does not know', () => {
    const nodes: TfjsNode[] = [
      { name: 'x', op: 'Placeholder', attr: { dtype: { type: 1 }, shape: { shape: { dim: [{ size: '-1' }] } } } },
      { name: 'y', op: 'Erf', input: ['x'] },
      { name: 'z', op: 'NonMaxSuppressionV5', input: ['y'] },
    ];
    expect(() => convertTfjsGraphToOnnx({ nodes, weights: new Map() }, 'g', 'test')).toThrow('the converter does not know the TensorFlow op(s) Erf, NonMaxSuppressionV5');
  });

  it('fails on an op configuration it cannot map instead of guessing', () => {
    const nodes: TfjsNode[] = [
      { name: 'x', op: 'Placeholder', attr: { dtype: { type: 1 } } },
      { name: 'b', op: 'Const', attr: { dtype: { type: 1 } } },
      { name: 'y', op: 'BiasAdd', input: ['x', 'b'], attr: { data_format: { s: 'TkNIVw==' } } },
    ];
    const weights = new Map([['b', { dtype: 'float32' as const, shape: [1], values: new Float32Array(1) }]]);
    expect(() => convertTfjsGraphToOnnx({ nodes, weights }, 'g', 'test')).toThrow('cannot convert BiasAdd node y: y: BiasAdd with data_format NCHW is not supported by the converter');
  });
});
