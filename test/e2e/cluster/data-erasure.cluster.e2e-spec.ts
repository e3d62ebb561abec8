import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runClusterDataCheck } from '@agent-memory/cluster';
import { Client } from 'pg';
import { ApiClient } from '@agent-memory/testing';
import { ClusterServer, eventually } from '@agent-memory/test-support';

/**
 * Forget in cluster mode leaves no copy in what the service controls (docs/deployment.md, "Forgotten
 * content and the database files"): the blob store's directory (s3rver), the vector index's directory
 * and the memory schema's own relation files in PostgreSQL (tables, indexes, TOAST; read under
 * `SHOW data_directory`, as root). The server's WAL, archives and replicas are the operator's. And an
 * altered object in the blob store is never served (docs/api.md, "Envelope, statuses, errors").
 */

/** Files under `root` (recursively) whose bytes contain `needle`. */
function filesContaining(root: string, needle: Buffer): string[] {
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, entry.name);
    if (entry.isDirectory()) out.push(...filesContaining(p, needle));
    else if (entry.isFile() && readFileSync(p).includes(needle)) out.push(p);
  }
  return out;
}

/** Every segment file (`<path>`, `<path>.1`, ...) of the memory schema's relations and their TOAST relations and indexes. */
async function memoryRelationFiles(db: Client): Promise<string[]> {
  const dataDirectory = (await db.query<{ data_directory: string }>('SHOW data_directory')).rows[0].data_directory;
  const { rows } = await db.query<{ path: string | null }>(`
    WITH own AS (SELECT c.oid, c.reltoastrelid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'memory')
    SELECT pg_relation_filepath(oid) AS path FROM own
    UNION SELECT pg_relation_filepath(reltoastrelid) FROM own WHERE reltoastrelid <> 0
    UNION SELECT pg_relation_filepath(i.indexrelid) FROM own JOIN pg_index i ON i.indrelid = own.reltoastrelid WHERE own.reltoastrelid <> 0`);
  const files: string[] = [];
  for (const { path } of rows) {
    if (!path) continue;
    const base = join(dataDirectory, path);
    for (let segment = 0; ; segment++) {
      const file = segment === 0 ? base : `${base}.${segment}`;
      if (!existsSync(file) || !statSync(file).isFile()) break;
      files.push(file);
    }
  }
  return files;
}

let cluster: ClusterServer;
let db: Client;

beforeAll(async () => {
  cluster = await ClusterServer.start({ env: { FORGET_VACUUM_DELAY_MS: '50' } });
  db = new Client({ connectionString: cluster.database.url });
  await db.connect();
}, 300_000);
afterAll(async () => {
  await db?.end();
  await cluster?.close({ removeData: true });
});

it('leaves a forgotten canary in no blob, no vector file and no relation file of the memory schema', async () => {
  const api = new ApiClient(cluster.url);
  const { agentKey: key, recordId } = await api.createAgent();
  const base = `/api/v1/records/${recordId}`;
  const canary = `canary${randomBytes(8).toString('hex')}`;
  const needle = Buffer.from(canary);
  void (await api.request('POST', `${base}/remember`, { key, body: { content: 'This memory stays.', type: 'fact' } })).data;
  const remembered = (await api.request('POST', `${base}/remember`, { key, body: { content: `The vault code is ${canary}.`, type: 'fact', idempotency_key: randomBytes(8).toString('hex') } })).data;
  expect(remembered.summary).toContain(canary);
  await db.query('CHECKPOINT'); // the rows reach the relation files
  const stores = () => [...filesContaining(cluster.s3.directory, needle), ...filesContaining(cluster.vectorIndexDir, needle)];
  const relations = async () => (await memoryRelationFiles(db)).filter((file) => readFileSync(file).includes(needle));
  expect([...stores(), ...(await relations())].length).toBeGreaterThan(0);

  void (await api.request('DELETE', `${base}/remember`, { key, body: { id: remembered.id } })).data;
  await eventually(async () => {
    await db.query('CHECKPOINT'); // whatever dead tuple is still in shared buffers is written out too
    expect([...stores(), ...(await relations())]).toEqual([]);
  }, 60_000, 500);
  const ctx = (await api.request('GET', `${base}/context`, { key })).data;
  expect(ctx.fact).toHaveLength(1);
}, 300_000);

it('never serves an altered object from the blob store: read file and context answer 500 INTERNAL_ERROR', async () => {
  const api = new ApiClient(cluster.url);
  const { agentKey: key, recordId } = await api.createAgent();
  const base = `/api/v1/records/${recordId}`;
  const marker = `original${randomBytes(6).toString('hex')}`;
  void (await api.request('POST', `${base}/write`, { key, body: { path: 'notes/a.md', content: `file ${marker}` } })).data;
  void (await api.request('POST', `${base}/remember`, { key, body: { content: `memory ${marker}`, type: 'fact' } })).data;
  const objects = filesContaining(cluster.s3.directory, Buffer.from(marker));
  expect(objects).toHaveLength(2);
  for (const object of objects) writeFileSync(object, readFileSync(object, 'utf8').replace('original', 'tampered'));
  const read = await api.request('GET', `${base}/read?path=notes%2Fa.md`, { key });
  expect([read.status, read.code]).toEqual([500, 'INTERNAL_ERROR']);
  expect(JSON.stringify(read.body)).not.toContain('tampered');
  const ctx = await api.request('GET', `${base}/context`, { key });
  expect([ctx.status, ctx.code]).toEqual([500, 'INTERNAL_ERROR']);
}, 120_000);

it('data-check finds the memories a lost vector-index directory took and rebuilds their vectors', async () => {
  const api = new ApiClient(cluster.url);
  const { agentKey: key, recordId } = await api.createAgent();
  const base = `/api/v1/records/${recordId}`;
  const ids: string[] = [];
  for (const content of ['Ana is a nurse in Lisbon.', 'Bob lives in Porto.']) ids.push((await api.request('POST', `${base}/remember`, { key, body: { content, type: 'fact' } })).data.id);
  await cluster.stopProcess('vector-index');
  rmSync(cluster.vectorIndexDir, { recursive: true, force: true });
  const env = {
    DATABASE_URL: cluster.database.url,
    S3_ENDPOINT: cluster.s3.endpoint,
    S3_ACCESS_KEY: cluster.s3.accessKey,
    S3_SECRET_KEY: cluster.s3.secretKey,
    S3_REGION: cluster.s3.region,
    DATA_DIR: dirname(cluster.vectorIndexDir),
    LOG_LEVEL: 'silent',
  };
  const report = await runClusterDataCheck(env, []);
  expect(report.ok).toBe(false);
  expect(report.memories.missingVector).toEqual(expect.arrayContaining(ids));
  expect(report.memories.repairedVectors).toBe(0);
  const repaired = await runClusterDataCheck(env, ['--repair']);
  expect(repaired.memories.repairedVectors).toBeGreaterThanOrEqual(ids.length);
  expect((await runClusterDataCheck(env, [])).memories.missingVector).not.toEqual(expect.arrayContaining([ids[0]]));
  await cluster.startProcess('vector-index');
  await eventually(async () => {
    const recall = (await api.request('POST', `${base}/recall`, { key, body: { query: 'Where does Bob live?', limit: 5 } })).data;
    expect(recall.memories.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
  }, 60_000, 500);
}, 300_000);
