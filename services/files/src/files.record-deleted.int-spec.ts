import 'reflect-metadata';
import { newId } from '@agent-memory/shared';
import { domainCode, type HookedBlobStore } from '@agent-memory/testing';
import { type FilesReplica, startFilesReplicas } from './files-replicas.fixture';

/**
 * Record deletion against file writes and raw puts across two replicas of the files service on the
 * machine's PostgreSQL (a fresh database): a write whose transaction starts after the record's purge
 * (tombstone in `files.deleted_records`, record advisory lock) gets NOT_FOUND and leaves no row and no blob.
 */
describe('files writes into a deleted record, two replicas over PostgreSQL', () => {
  let blobs: HookedBlobStore;
  let replicas: FilesReplica[];
  let close: () => Promise<void>;
  const agentId = newId('agent');

  beforeAll(async () => {
    ({ replicas, blobs, close } = await startFilesReplicas(2, 'before'));
  }, 60_000);
  afterAll(() => close?.());

  afterEach(() => {
    blobs.hook = null;
  });

  /** Replica 1 handles records.v1.record-deleted for `recordId`. */
  const deleteRecord = (recordId: string) =>
    replicas[1].files.purgeRecord.execute({ eventId: newId('record'), agentId, recordIds: [recordId], deletedAt: new Date().toISOString() });
  async function expectNothingLeft(recordId: string): Promise<void> {
    const prisma = replicas[0].prisma;
    expect(await prisma.file.count({ where: { recordId } })).toBe(0);
    expect(await prisma.rawBlob.count({ where: { recordId } })).toBe(0);
    expect(await prisma.fileWriteLog.count({ where: { recordId } })).toBe(0);
    expect(await prisma.fileIdempotencyKey.count({ where: { recordId } })).toBe(0);
    expect(await blobs.list(`records/${recordId}/`)).toEqual([]);
  }

  it('a file write whose transaction starts after its record was purged gets NOT_FOUND and leaves no row and no blob', async () => {
    const recordId = newId('record');
    await replicas[0].files.write.execute({ agentId, recordId, body: { path: 'notes/standup.md', content: 'Standup is at 9:30.\n' } });
    blobs.hook = () => deleteRecord(recordId);
    const code = await domainCode(replicas[0].files.write.execute({ agentId, recordId, body: { path: 'notes/retro.md', content: 'Retro on Fridays.\n', idempotency_key: 'k-deleted' } }));

    expect(code).toBe('NOT_FOUND');
    expect(await replicas[0].prisma.fileDeletedRecord.count({ where: { recordId } })).toBe(1);
    await expectNothingLeft(recordId);
    // Later writes into the deleted record are refused too, on either replica.
    expect(await domainCode(replicas[1].files.write.execute({ agentId, recordId, body: { path: 'notes/retro.md', content: 'Again.\n' } }))).toBe('NOT_FOUND');
    await expectNothingLeft(recordId);
  }, 60_000);

  it('a raw blob put whose transaction starts after its record was purged gets NOT_FOUND and leaves no row and no blob', async () => {
    const recordId = newId('record');
    await replicas[0].files.rawPut.execute({ agentId, recordId, body: { path: 'state/a.bin', content: Buffer.from('first').toString('base64') } });
    blobs.hook = () => deleteRecord(recordId);
    const code = await domainCode(replicas[0].files.rawPut.execute({ agentId, recordId, body: { path: 'state/b.bin', content: Buffer.from('second').toString('base64') } }));

    expect(code).toBe('NOT_FOUND');
    await expectNothingLeft(recordId);
    expect(await domainCode(replicas[1].files.rawPut.execute({ agentId, recordId, body: { path: 'state/a.bin', content: Buffer.from('again').toString('base64') } }))).toBe('NOT_FOUND');
    await expectNothingLeft(recordId);
  }, 60_000);

  it('a record deletion leaves other records writable', async () => {
    const deleted = newId('record');
    const other = newId('record');
    await deleteRecord(deleted);
    const written = await replicas[0].files.write.execute({ agentId, recordId: other, body: { path: 'notes/ok.md', content: 'Still here.\n' } });
    expect(written.replayed).toBe(false);
    expect(await replicas[1].files.read.execute({ agentId, recordId: other, path: 'notes/ok.md' })).toEqual({ path: 'notes/ok.md', content: 'Still here.\n' });
  }, 60_000);
});
