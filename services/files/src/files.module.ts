import { type DynamicModule, Module } from '@nestjs/common';
import { DATABASE, type Database, ReclaimScheduler } from '@agent-memory/platform';
import { FilesLifecycle } from './files.lifecycle';
import { FilesMessageHandler } from './files.message-handler';
import { DEFAULT_FILE_QUOTA, FILE_QUOTA, type FileQuota } from './persistence/file-quota';
import { FILES_RECLAIM, FILES_RECLAIM_TABLES } from './persistence/files-reclaim';
import { FilesRepository } from './persistence/files.repository';
import { FILES_PRISMA, openFilesPrisma } from './persistence/prisma';
import { PrismaFilesRepository } from './persistence/prisma-files.repository';
import { GetRawBlobUseCase } from './use-cases/get-raw-blob.use-case';
import { ListFilesUseCase } from './use-cases/list-files.use-case';
import { PurgeRecordUseCase } from './use-cases/purge-record.use-case';
import { PurgeStoresUseCase } from './use-cases/purge-stores.use-case';
import { PutRawBlobUseCase } from './use-cases/put-raw-blob.use-case';
import { ReadFileUseCase } from './use-cases/read-file.use-case';
import { WriteFileUseCase } from './use-cases/write-file.use-case';

/** Options of the files service. */
export interface FilesModuleOptions {
  /** Per-agent storage quota of files and raw blobs (docs/api.md, "Storage quotas"); default {@link DEFAULT_FILE_QUOTA}. */
  quota?: FileQuota;
  /** Delay between a record's purge and the rewrite of the files tables, ms (`FORGET_VACUUM_DELAY_MS`); default 30000. */
  vacuumDelayMs?: number;
}

/**
 * The files service and its composition root: owns file metadata and raw blobs (content in the blob
 * store); answers `files.v1.*` and consumes `records.v1.record-deleted`; its background work is
 * {@link FilesLifecycle}. Import it as `FilesModule` (default quota) or `FilesModule.forRoot(options)`.
 */
@Module({
  controllers: [FilesMessageHandler],
  providers: [
    { provide: FILES_PRISMA, useFactory: (db: Database) => openFilesPrisma(db), inject: [DATABASE] },
    { provide: FilesRepository, useClass: PrismaFilesRepository },
    WriteFileUseCase,
    ReadFileUseCase,
    PutRawBlobUseCase,
    GetRawBlobUseCase,
    ListFilesUseCase,
    PurgeStoresUseCase,
    PurgeRecordUseCase,
    FilesLifecycle,
  ],
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
