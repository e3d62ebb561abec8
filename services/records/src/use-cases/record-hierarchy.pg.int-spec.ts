import type { BusClient } from '@agent-memory/platform';
import { newId, ValidationError } from '@agent-memory/shared';
import { openTestPrisma } from '@agent-memory/testing';
import { PrismaRecordsRepository } from '../persistence/prisma-records.repository';
import { openRecordsPrisma, type RecordsPrismaClient } from '../persistence/prisma';
import { CreateRecordUseCase } from './create-record.use-case';
import { DeleteRecordUseCase } from './delete-record.use-case';
import { PublishOutboxUseCase } from './publish-outbox.use-case';
import { UpdateRecordUseCase } from './update-record.use-case';

/**
 * The record hierarchy under concurrency, on the machine's PostgreSQL (a pool of several connections, so
 * transactions really overlap; the embedded PGlite has one connection). Rule: a parent is the same
 * agent's record and the hierarchy has no cycles; every change to an agent's hierarchy takes that agent's
 * advisory lock, so a cycle check and the move it guards are one step.
 */
let prisma: RecordsPrismaClient;
let close: () => Promise<void>;
let service: {
  create: (agentId: string, body: { name: string; tags: string[]; category: string; parentRecordId?: string }) => ReturnType<CreateRecordUseCase['execute']>;
  update: (agentId: string, recordId: string, body: { parentRecordId: string }) => ReturnType<UpdateRecordUseCase['execute']>;
  delete: (agentId: string, recordId: string, cascade: boolean) => ReturnType<DeleteRecordUseCase['execute']>;
};
const bus = { emit: () => Promise.resolve() } as unknown as BusClient;

beforeAll(async () => {
  ({ prisma, close } = await openTestPrisma(openRecordsPrisma, 8));
  const records = new PrismaRecordsRepository(prisma);
  const [create, update, remove] = [new CreateRecordUseCase(records), new UpdateRecordUseCase(records), new DeleteRecordUseCase(records, new PublishOutboxUseCase(records, bus))];
  service = {
    create: (agentId, body) => create.execute({ agentId, body }),
    update: (agentId, recordId, body) => update.execute({ agentId, recordId, body }),
    delete: (agentId, recordId, cascade) => remove.execute({ agentId, recordId, cascade }),
  };
}, 60_000);
afterAll(() => close?.());

const record = (agentId: string, name: string, parentRecordId?: string) => service.create(agentId, { name, tags: [], category: 'project', parentRecordId });

/** Walks up from every record of the agent; true when some walk comes back to its start. */
async function hasCycle(agentId: string): Promise<boolean> {
  const rows = await prisma.record.findMany({ where: { agentId }, select: { id: true, parentRecordId: true } });
  const parentOf = new Map(rows.map((r) => [r.id, r.parentRecordId]));
  return rows.some((start) => {
    let cursor = parentOf.get(start.id) ?? null;
    for (let steps = 0; cursor && steps <= rows.length; steps++) {
      if (cursor === start.id) return true;
      cursor = parentOf.get(cursor) ?? null;
    }
    return false;
  });
}

describe('record hierarchy under concurrency (PostgreSQL)', () => {
  it('two opposite moves at once (A under B, B under A): exactly one wins, the other is refused, no cycle', async () => {
    const agentId = newId('agent');
    for (let round = 0; round < 15; round++) {
      const a = await record(agentId, `a${round}`);
      const b = await record(agentId, `b${round}`);
      const outcomes = await Promise.allSettled([service.update(agentId, a.id, { parentRecordId: b.id }), service.update(agentId, b.id, { parentRecordId: a.id })]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(refused.reason).toBeInstanceOf(ValidationError);
      expect((refused.reason as Error).message).toMatch(/own ancestor/);
    }
    expect(await hasCycle(agentId)).toBe(false);
  });

  it('a three-record ring closed from three sides at once leaves no cycle', async () => {
    const agentId = newId('agent');
    for (let round = 0; round < 10; round++) {
      const [x, y, z] = await Promise.all([record(agentId, 'x'), record(agentId, 'y'), record(agentId, 'z')]);
      const outcomes = await Promise.allSettled([
        service.update(agentId, x.id, { parentRecordId: y.id }),
        service.update(agentId, y.id, { parentRecordId: z.id }),
        service.update(agentId, z.id, { parentRecordId: x.id }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
    }
    expect(await hasCycle(agentId)).toBe(false);
  });

  it('a cascade delete racing a move into its subtree deletes the moved record too, or the move finds no parent', async () => {
    const agentId = newId('agent');
    for (let round = 0; round < 10; round++) {
      const root = await record(agentId, 'root');
      const child = await record(agentId, 'child', root.id);
      const outside = await record(agentId, 'outside');
      const [deleted, moved] = await Promise.allSettled([service.delete(agentId, root.id, true), service.update(agentId, outside.id, { parentRecordId: child.id })]);
      expect(deleted.status).toBe('fulfilled'); // never a foreign-key failure halfway
      const left = await prisma.record.findUnique({ where: { id: outside.id } });
      if (moved.status === 'fulfilled') {
        // the move came first: the delete collected it with the subtree
        expect((deleted as PromiseFulfilledResult<{ deletedRecordIds: string[] }>).value.deletedRecordIds).toContain(outside.id);
        expect(left).toBeNull();
      } else {
        expect((moved.reason as Error).message).toMatch(/no such record/);
        expect(left).toMatchObject({ parentRecordId: null });
      }
    }
  });
});
