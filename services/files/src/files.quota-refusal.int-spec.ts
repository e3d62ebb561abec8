import 'reflect-metadata';
import { InProcessJobQueue } from '@agent-memory/platform';
import { ForbiddenError, newId } from '@agent-memory/shared';
import { startFilesReplicas } from './files-replicas.fixture';
import { assembleFiles } from './files-replicas.fixture';

/**
 * A file write refused over its agent's storage quota (docs/api.md, "Storage quotas") deletes only the blob
 * it put itself: another replica's write of the same content to the same path, whose blob is put but not
 * yet committed when the refusal cleans up, keeps its content (on the machine's PostgreSQL, two replicas).
 */
describe('a write refused over quota and a concurrent write of the same content on another replica', () => {
  it('the committed write keeps its blob', async () => {
    const fixture = await startFilesReplicas(2, 'after');
    try {
      const quota = { maxFiles: 1, maxBytes: 1_000_000 };
      const [one, two] = fixture.replicas.map((r) => assembleFiles(r.prisma, fixture.blobs, new InProcessJobQueue(), quota));
      const recordId = newId('record');
      const full = newId('agent');
      const roomy = newId('agent');
      // the first agent has used its one file
      await one.write.execute({ agentId: full, recordId: newId('record'), body: { path: 'notes/first.md', content: 'first' } });

      // the second agent's write on replica two puts its blob, then stalls before its transaction
      let unstall!: () => void;
      const stalled = new Promise<void>((resolve) => (unstall = resolve));
      let reached!: () => void;
      const atPut = new Promise<void>((resolve) => (reached = resolve));
      fixture.blobs.hook = () => {
        fixture.blobs.hook = null;
        reached();
        return stalled;
      };
      const body = { path: 'shared/plan.md', content: 'The plan: ship on Monday.' };
      const committed = two.write.execute({ agentId: roomy, recordId, body });
      await atPut;
      // meanwhile the first agent's write of the same content to the same path is refused on replica one
      await expect(one.write.execute({ agentId: full, recordId, body })).rejects.toBeInstanceOf(ForbiddenError);
      unstall();
      await committed;
      expect(await two.read.execute({ agentId: roomy, recordId, path: body.path })).toEqual({ path: body.path, content: body.content });
    } finally {
      await fixture.close();
    }
  }, 60_000);
});
