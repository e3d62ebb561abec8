import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { checkFiles, type FileCheckReport, openFilesPrisma, PrismaFilesRepository } from '@agent-memory/files';
import { type CheckedIndexConfig, checkMemories, type MemoryCheckReport, openMemoryCheckStores } from '@agent-memory/memory';
import { PgDatabase, S3BlobStore } from '@agent-memory/platform';
import { loadClusterConfig, s3OptionsOf } from './cluster.config';

/** What `main.ts data-check` found and did (docs/deployment.md, "Checking and repairing a data directory"). */
export interface ClusterDataCheckReport {
  memories: MemoryCheckReport;
  files: FileCheckReport;
  /** True when nothing is damaged or missing (after repairs, when `--repair` was given). */
  ok: boolean;
}

/**
 * `node -r @swc-node/register apps/cluster/src/main.ts data-check [--repair]` (`npm run data:check:cluster`):
 * the standalone check on the cluster adapters: PostgreSQL (DATABASE_URL; migrations are only verified),
 * S3 (S3_*), and the vector index: Qdrant when QDRANT_URL is set, otherwise the embedded index of the
 * `vector-index` process under `<DATA_DIR>/vectors`, which must be stopped (its lock file refuses
 * otherwise). With `--repair`, missing vectors are rebuilt from the blobs. Throws naming a missing variable.
 */
export async function runClusterDataCheck(source: NodeJS.ProcessEnv, args: readonly string[]): Promise<ClusterDataCheckReport> {
  const unknown = args.filter((a) => a !== '--repair');
  if (unknown.length > 0) throw new Error(`Unknown argument ${unknown[0]}; usage: data-check [--repair]`);
  const config = loadClusterConfig('migrate', source);
  const e = config.env;
  const blobs = new S3BlobStore(s3OptionsOf(e, 'data-check'));
  const index: CheckedIndexConfig = e.QDRANT_URL
    ? { kind: 'qdrant', url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collectionPrefix: e.QDRANT_COLLECTION_PREFIX }
    : { kind: 'embedded', directory: join(config.dataDir, 'vectors') };
  const logger = new Logger('DataCheck');
  const db = new PgDatabase({ connectionString: e.DATABASE_URL, poolSize: 2, migrations: 'verify' });
  try {
    const stores = await openMemoryCheckStores(db, blobs, config.options.embedder, index);
    let memories: MemoryCheckReport;
    try {
      memories = await checkMemories(stores, { repair: args.includes('--repair'), logger });
    } finally {
      await stores.close();
    }
    const filesPrisma = await openFilesPrisma(db);
    let files: FileCheckReport;
    try {
      files = await checkFiles(new PrismaFilesRepository(filesPrisma), blobs, logger, { repair: args.includes('--repair') });
    } finally {
      await filesPrisma.$disconnect();
    }
    const damage = memories.missingBlob.length + memories.hashMismatch.length + memories.missingVector.length - memories.repairedVectors + files.missingBlob.length + files.hashMismatch.length + (memories.usageDrift.length - memories.repairedUsage) + (files.usageDrift.length - files.repairedUsage);
    return { memories, files, ok: damage === 0 };
  } finally {
    await db.close();
  }
}
