import * as path from 'node:path';
import { mismatchError, sameDescriptor } from './embedded-input';
import { LEGACY_LOG_FILE } from './legacy-log.migration';
import { fileSize, hasEntries, readJson, TENANTS_DIR, writeFileAtomic } from './point-log';
import type { IndexDescriptor } from './vector-index.port';

/** Name of the descriptor file in an index directory. */
export const DESCRIPTOR_FILE = 'descriptor.json';
/** Version of the directory layout written in the descriptor file. */
export const FORMAT = 1;

/**
 * Checks the directory's `descriptor.json` (`{ format, embedderId, dimension }`) against `descriptor`,
 * or writes it (atomically) when the directory has none and no log either. Part of `open` of the
 * embedded vector index (docs/configuration.md, "Vector index").
 *
 * Errors: the directory has a log but no descriptor (its embedder is unknown); the descriptor is
 * malformed or has another format; it names another embedder or dimension ({@link mismatchError}).
 */
export async function checkOrWriteDescriptor(directory: string, descriptor: IndexDescriptor): Promise<void> {
  const descriptorPath = path.join(directory, DESCRIPTOR_FILE);
  const stored = await readJson(descriptorPath);
  if (stored === undefined) {
    if (((await fileSize(path.join(directory, LEGACY_LOG_FILE))) ?? 0) > 0 || (await hasEntries(path.join(directory, TENANTS_DIR)))) {
      throw new Error(`vector index in ${directory} has a log but no ${DESCRIPTOR_FILE}; refusing to guess its embedder`);
    }
    await writeFileAtomic(
      descriptorPath,
      JSON.stringify({ format: FORMAT, embedderId: descriptor.embedderId, dimension: descriptor.dimension }, null, 2) + '\n',
    );
    return;
  }
  const found = stored as { format?: unknown; embedderId?: unknown; dimension?: unknown };
  if (typeof found.embedderId !== 'string' || typeof found.dimension !== 'number') {
    throw new Error(`vector index descriptor ${descriptorPath} is malformed`);
  }
  if (found.format !== FORMAT) throw new Error(`vector index in ${directory} has format ${String(found.format)}, expected ${FORMAT}`);
  const existing = { embedderId: found.embedderId, dimension: found.dimension };
  if (!sameDescriptor(existing, descriptor)) throw mismatchError(directory, existing, descriptor);
}
