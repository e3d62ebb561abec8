import { type BusClient } from '@agent-memory/platform';
import { openEmbeddedTestPrisma } from '@agent-memory/testing';
import { CreateRecordBodySchema } from '@agent-memory/shared';
import { PrismaRecordsRepository } from '../persistence/prisma-records.repository';
import { openRecordsPrisma, type RecordsPrismaClient } from '../persistence/prisma';
import { CleanUpOutboxUseCase } from './clean-up-outbox.use-case';
import { CreateRecordUseCase } from './create-record.use-case';
import { DeleteRecordUseCase } from './delete-record.use-case';
import { PublishOutboxUseCase } from './publish-outbox.use-case';

/** A BusClient whose emit is controlled by the test (hangs, fails or records). */
class FakeBus {
  emitted: Array<{ subject: string; payload: unknown }> = [];
  mode: 'ok' | 'hang' = 'ok';
  private release: Array<() => void> = [];
  emit(subject: string, payload: unknown): Promise<void> {
    if (this.mode === 'hang') return new Promise((resolve) => this.release.push(resolve));
    this.emitted.push({ subject, payload });
    return Promise.resolve();
  }
  releaseAll(): void {
    this.release.splice(0).forEach((r) => r());
  }
}

describe('record deletion and the outbox (PGlite)', () => {
  let close: () => Promise<void>;
  let prisma: RecordsPrismaClient;
  let bus: FakeBus;
  let service: { create: CreateRecordUseCase; delete: DeleteRecordUseCase; publishOutbox: PublishOutboxUseCase; cleanupOutbox: CleanUpOutboxUseCase };

  beforeAll(async () => {
    ({ prisma, close } = await openEmbeddedTestPrisma(openRecordsPrisma));
  }, 60_000);
  afterAll(() => close?.());
  beforeEach(async () => {
    await prisma.outboxEvent.deleteMany({});
    bus = new FakeBus();
    const records = new PrismaRecordsRepository(prisma);
    const publishOutbox = new PublishOutboxUseCase(records, bus as unknown as BusClient);
    service = { create: new CreateRecordUseCase(records), delete: new DeleteRecordUseCase(records, publishOutbox), publishOutbox, cleanupOutbox: new CleanUpOutboxUseCase(records) };
  });

  it('answers a committed delete at once while the bus emit hangs; the relay publishes later', async () => {
    const record = await service.create.execute({ agentId: 'agt_1', body: CreateRecordBodySchema.parse({ name: 'r' }) });
    bus.mode = 'hang';
    const started = Date.now();
    const result = await service.delete.execute({ agentId: 'agt_1', recordId: record.id, cascade: false });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result).toEqual({ deleted: true, id: record.id, deletedRecordIds: [record.id] });
    expect(await prisma.outboxEvent.count({ where: { publishedAt: null } })).toBe(1);
    // the hung pass ends; the next relay pass publishes the event
    bus.mode = 'ok';
    bus.releaseAll();
    await service.publishOutbox.execute();
    await service.publishOutbox.execute();
    expect(await prisma.outboxEvent.count({ where: { publishedAt: null } })).toBe(0);
  });

  it('cleanupOutbox deletes published events older than the retention, never unpublished ones', async () => {
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    await prisma.outboxEvent.createMany({
      data: [
        { id: 'evt_old_published', subject: 's', payload: {}, createdAt: hourAgo, publishedAt: hourAgo },
        { id: 'evt_recent_published', subject: 's', payload: {}, publishedAt: new Date() },
        { id: 'evt_old_pending', subject: 's', payload: {}, createdAt: hourAgo },
      ],
    });
    expect(await service.cleanupOutbox.execute()).toBe(1);
    expect((await prisma.outboxEvent.findMany({ orderBy: { id: 'asc' } })).map((e) => e.id)).toEqual(['evt_old_pending', 'evt_recent_published']);
  });
});
