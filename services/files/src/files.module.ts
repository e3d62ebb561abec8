import { type DynamicModule, Module } from '@nestjs/common';
import { DATABASE, type Database, ReclaimScheduler } from '@agent-memory/platform';
import { FilesUpkeep } from './files-upkeep';
import { FilesMessageHandler } from './files.message-handler';
import { FILES_PRISMA, FILES_RECLAIM, FILES_RECLAIM_TABLES, FilesService } from './files.service';
import { DEFAULT_FILE_QUOTA, FILE_QUOTA, type FileQuota } from './persistence/file-quota';
import { openFilesPrisma } from './persistence/prisma';

/** Options of the files service. */
export interface FilesModuleOptions {
  /** Per-agent storage quota of files and raw blobs (docs/api.md, "Storage quotas"); default {@link DEFAULT_FILE_QUOTA}. */
  quota?: FileQuota;
  /** Delay between a record's purge and the rewrite of the files tables, ms (`FORGET_VACUUM_DELAY_MS`); default 30000. */
  vacuumDelayMs?: number;
}

/**
 * The files service (docs/architecture.md, "Processes"): owns file metadata and raw blobs; answers `files.v1.*`. Import it as
 * `FilesModule` (default quota) or `FilesModule.forRoot(options)`.
 */
@Module({
  controllers: [FilesMessageHandler],
  providers: [{ provide: FILES_PRISMA, useFactory: (db: Database) => openFilesPrisma(db), inject: [DATABASE] }, FilesService, FilesUpkeep],
})
export class FilesModule {
  static forRoot(options: FilesModuleOptions = {}): DynamicModule {
    return {
      module: FilesModule,
      providers: [
        { provide: FILE_QUOTA, useValue: options.quota ?? DEFAULT_FILE_QUOTA },
        { provide: FILES_RECLAIM, useFactory: (db: Database) => new ReclaimScheduler(db, FILES_RECLAIM_TABLES, options.vacuumDelayMs ?? 30_000), inject: [DATABASE] },
      ],
    };
  }
}
