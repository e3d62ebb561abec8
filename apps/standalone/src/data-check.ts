import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { checkFiles, type FileCheckReport, openFilesPrisma, PrismaFilesRepository } from '@agent-memory/files';
import { checkMemories, type MemoryCheckReport, openMemoryCheckStores } from '@agent-memory/memory';
import { FilesystemBlobStore, PgliteDatabase } from '@agent-memory/platform';
import { preparePrivateDataDirectory } from './data-directory';
import { loadStandaloneConfig } from './standalone.config';

/** What `npm run data:check` found and did (docs/deployment.md, "Checking and repairing a data directory"). */
export interface DataCheckReport {
  dataDir: string;
  memories: MemoryCheckReport;
  files: FileCheckReport;
  /** True when nothing is damaged or missing (after repairs, when `repair` was asked). */
  ok: boolean;
}

/**
 * Checks a standalone data directory while the service is stopped: every memory (row -> blob present and
 * matching its `contentHash` -> vector in the index) and every file and raw blob (row -> blob present and
 * matching). With `repair`, missing vectors are rebuilt from the blobs (re-embedded with the configured
 * embedder); lost or altered blobs cannot be rebuilt and stay reported. `env` is the environment the
 * service runs with (DATA_DIR, EMBEDDER...). Throws when the directory is in use (the vector index's lock).
 */
export async function checkDataDirectory(env: NodeJS.ProcessEnv, options: { repair: boolean }): Promise<DataCheckReport> {
  const config = loadStandaloneConfig(env);
  await preparePrivateDataDirectory(config.dataDir);
  const logger = new Logger('DataCheck');
  const blobs = new FilesystemBlobStore(join(config.dataDir, 'blobs'));
  const db = await PgliteDatabase.open(join(config.dataDir, 'postgres'));
  try {
    const stores = await openMemoryCheckStores(db, blobs, config.embedder, { kind: 'embedded', directory: join(config.dataDir, 'vectors') });
    let memories: MemoryCheckReport;
    try {
      memories = await checkMemories(stores, { repair: options.repair, logger });
    } finally {
      await stores.close();
    }
    const filesPrisma = await openFilesPrisma(db);
    let files: FileCheckReport;
    try {
      files = await checkFiles(new PrismaFilesRepository(filesPrisma), blobs, logger, { repair: options.repair });
    } finally {
      await filesPrisma.$disconnect();
    }
    const unrepairedVectors = memories.missingVector.length - memories.repairedVectors;
    const ok = memories.missingBlob.length + memories.hashMismatch.length + unrepairedVectors + files.missingBlob.length + files.hashMismatch.length + unrepairedUsage(memories) + unrepairedUsage(files) === 0;
    return { dataDir: config.dataDir, memories, files, ok };
  } finally {
    await db.close();
  }
}

/** Agents whose storage quota counters still differ from their rows (found and not repaired). */
function unrepairedUsage(report: { usageDrift: unknown[]; repairedUsage: number }): number {
  return report.usageDrift.length - report.repairedUsage;
}
