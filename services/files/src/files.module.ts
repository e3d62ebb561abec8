import { type DynamicModule, Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { FilesUpkeep } from './files-upkeep';
import { FilesMessageHandler } from './files.message-handler';
import { FILES_PRISMA, FilesService } from './files.service';
import { DEFAULT_FILE_QUOTA, FILE_QUOTA, type FileQuota } from './persistence/file-quota';
import { openFilesPrisma } from './persistence/prisma';

/** Options of the files service. */
export interface FilesModuleOptions {
  /** Per-agent storage quota of files and raw blobs (docs/api.md, "Storage quotas"); default {@link DEFAULT_FILE_QUOTA}. */
  quota?: FileQuota;
}

/**
 * The files service (DESIGN.md §1): owns file metadata and raw blobs; answers `files.v1.*`. Import it as
 * `FilesModule` (default quota) or `FilesModule.forRoot(options)`.
 */
@Module({
  controllers: [FilesMessageHandler],
  providers: [{ provide: FILES_PRISMA, useFactory: (db: Database) => openFilesPrisma(db), inject: [DATABASE] }, FilesService, FilesUpkeep],
})
export class FilesModule {
  static forRoot(options: FilesModuleOptions = {}): DynamicModule {
    return { module: FilesModule, providers: [{ provide: FILE_QUOTA, useValue: options.quota ?? DEFAULT_FILE_QUOTA }] };
  }
}
