import { Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { FilesUpkeep } from './files-upkeep';
import { FilesMessageHandler } from './files.message-handler';
import { FILES_PRISMA, FilesService } from './files.service';
import { openFilesPrisma } from './persistence/prisma';

/** The files service (DESIGN.md §1): owns file metadata and raw blobs; answers `files.v1.*`. */
@Module({
  controllers: [FilesMessageHandler],
  providers: [{ provide: FILES_PRISMA, useFactory: (db: Database) => openFilesPrisma(db), inject: [DATABASE] }, FilesService, FilesUpkeep],
})
export class FilesModule {}
