import { Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { openRecordsPrisma } from './persistence/prisma';
import { RecordsMessageHandler } from './records.message-handler';
import { RECORDS_PRISMA, RecordsService } from './records.service';

/** The records service (DESIGN.md §1): owns the `records` schema; answers `records.v1.*`. */
@Module({
  controllers: [RecordsMessageHandler],
  providers: [
    { provide: RECORDS_PRISMA, useFactory: (db: Database) => openRecordsPrisma(db), inject: [DATABASE] },
    RecordsService,
  ],
})
export class RecordsModule {}
