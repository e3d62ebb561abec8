import { Module } from '@nestjs/common';
import { DATABASE, type Database } from '@agent-memory/platform';
import { PrismaRecordsRepository } from './persistence/prisma-records.repository';
import { openRecordsPrisma, RECORDS_PRISMA } from './persistence/prisma';
import { RecordsRepository } from './persistence/records.repository';
import { RecordsLifecycle } from './records.lifecycle';
import { RecordsMessageHandler } from './records.message-handler';
import { CleanUpOutboxUseCase } from './use-cases/clean-up-outbox.use-case';
import { CreateRecordUseCase } from './use-cases/create-record.use-case';
import { DeleteRecordUseCase } from './use-cases/delete-record.use-case';
import { GetRecordUseCase } from './use-cases/get-record.use-case';
import { ListRecordsUseCase } from './use-cases/list-records.use-case';
import { PublishOutboxUseCase } from './use-cases/publish-outbox.use-case';
import { ResolveRecordOwnerUseCase } from './use-cases/resolve-record-owner.use-case';
import { UpdateRecordUseCase } from './use-cases/update-record.use-case';

/**
 * The records service (docs/architecture.md, "Processes"): owns the `records` schema (records and their
 * outbox); answers `records.v1.*` and publishes `records.v1.record-deleted`.
 */
@Module({
  controllers: [RecordsMessageHandler],
  providers: [
    { provide: RECORDS_PRISMA, useFactory: (db: Database) => openRecordsPrisma(db), inject: [DATABASE] },
    { provide: RecordsRepository, useClass: PrismaRecordsRepository },
    CreateRecordUseCase,
    ListRecordsUseCase,
    GetRecordUseCase,
    ResolveRecordOwnerUseCase,
    UpdateRecordUseCase,
    DeleteRecordUseCase,
    PublishOutboxUseCase,
    CleanUpOutboxUseCase,
    RecordsLifecycle,
  ],
})
export class RecordsModule {}
