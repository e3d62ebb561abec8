import { type BusClient, PgliteDatabase } from '@agent-memory/platform';
import { CreateRecordBodySchema } from '@agent-memory/shared';
import { openRecordsPrisma, type RecordsPrismaClient } from './persistence/prisma';
import { RecordsService } from './records.service';

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

describe('RecordsService (PGlite)', () => {
  let db: PgliteDatabase;
  let prisma: RecordsPrismaClient;
  let bus: FakeBus;
  let service: RecordsService;

  beforeAll(async () => {
    db = await PgliteDatabase.open('memory://');
    prisma = await openRecordsPrisma(db);
  }, 60_000);
  afterAll(async () => {
    await prisma.$disconnect();
    await db.close();
  });
  beforeEach(async () => {
    await prisma.outboxEvent.deleteMany({});
    bus = new FakeBus();
    service = new RecordsService(prisma, bus as unknown as BusClient);
  });

  it('answers a committed delete at once while the bus emit hangs; the relay publishes later', async () => {
    const record = await service.create('agt_1', CreateRecordBodySchema.parse({ name: 'r' }));
    bus.mode = 'hang';
    const started = Date.now();
    const result = await service.delete('agt_1', record.id, false);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result).toEqual({ deleted: true, id: record.id, deletedRecordIds: [record.id] });
    expect(await prisma.outboxEvent.count({ where: { publishedAt: null } })).toBe(1);
    // the hung pass ends; the next relay pass publishes the event
    bus.mode = 'ok';
    bus.releaseAll();
    await service.publishOutbox();
    await service.publishOutbox();
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
    expect(await service.cleanupOutbox()).toBe(1);
    expect((await prisma.outboxEvent.findMany({ orderBy: { id: 'asc' } })).map((e) => e.id)).toEqual(['evt_old_pending', 'evt_recent_published']);
  });
});
