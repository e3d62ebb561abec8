import { AgentMemory, AgentMemoryNetworkError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../src';
import type { WebAuthnCredentialJson } from '../src';
import { createPasskeyDevice } from '@agent-memory/testing';
import { type E2eServer, startE2eServer } from '@agent-memory/test-support';
import { routeKey, routesCalledBySdk } from './openapi-coverage';

// The SDK's main flow against a real server (standalone here; `./sdk-flow.cluster.e2e-spec.ts` runs the same
// cases in cluster mode): create an agent, records CRUD and listing, remember / recall / forget / context,
// files, the memory and file listings, typed errors, and a retry that must not write or charge twice.

let server: E2eServer;
let client: AgentMemory;
let recordId: string;
let agentKey: string;
/** The page origin of the software passkey authenticator. */
const ORIGIN = 'http://localhost:8080';

beforeAll(async () => {
  server = await startE2eServer({ env: { PASSKEY_ORIGINS: ORIGIN, PASSKEY_RP_ID: 'localhost' } });
  const created = await AgentMemory.createAgent({ baseUrl: server.url, name: 'sdk flow', environment: 'test' });
  agentKey = created.agentKey;
  recordId = created.recordId;
  client = new AgentMemory({ baseUrl: server.url, apiKey: agentKey });
}, 300_000);
afterAll(() => server?.close({ removeData: true }));

describe('agents, keys and records', () => {
  it('creates an agent with its key and default record, and reads it back', async () => {
    expect(agentKey).toMatch(/^amk_test_/);
    const agent = await client.agents.get();
    expect(agent).toMatchObject({ name: 'sdk flow', recordId, mode: 'cloud', keyEnvironment: 'test' });
    const { keys } = await client.keys.list();
    expect(keys).toEqual([expect.objectContaining({ environment: 'test', status: 'active' })]);
  });

  it('creates, reads, updates, lists (async iterator over pages) and deletes records', async () => {
    const made = [];
    for (const name of ['alpha', 'beta', 'gamma']) made.push(await client.records.create({ name, tags: ['sdk'] }));
    expect(await client.records.get(made[0].id)).toMatchObject({ name: 'alpha', tags: ['sdk'], category: 'general' });
    expect(await client.records.update(made[1].id, { name: 'beta 2', parentRecordId: made[0].id })).toMatchObject({ name: 'beta 2', parentRecordId: made[0].id });

    const pages: number[] = [];
    for await (const page of client.records.list({ pageSize: 2 }).pages()) pages.push(page.records.length);
    expect(pages).toEqual([2, 2]); // default record + 3, newest first, two per request
    const ids: string[] = [];
    for await (const record of client.records.list({ pageSize: 2 })) ids.push(record.id);
    expect(ids).toEqual([made[2].id, made[1].id, made[0].id, recordId]);

    await expect(client.records.delete(made[0].id)).rejects.toBeInstanceOf(ValidationError); // has a child
    expect(await client.records.delete(made[0].id, { cascade: true })).toMatchObject({ deleted: true, deletedRecordIds: expect.arrayContaining([made[0].id, made[1].id]) });
    // a test key on a record that is not (any more) its agent's is 403 (docs/api.md, "Agents and keys")
    await expect(client.records.get(made[1].id)).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('memories and files', () => {
  it('remembers, recalls, reads the context, lists and forgets', async () => {
    const deploy = await client.memories.remember(recordId, { content: 'The deploy key rotates every Monday.', type: 'fact', path: 'ops/deploy' });
    expect(deploy).toMatchObject({ id: expect.stringMatching(/^mem_/), path: 'ops/deploy', type: 'fact' });
    await client.memories.remember(recordId, { content: 'Ada prefers short answers.', type: 'relationship', path: 'people/ada' });

    const recalled = await client.memories.recall(recordId, { query: 'When does the deploy key rotate?', limit: 2 });
    expect(recalled.memories[0]).toMatchObject({ id: deploy.id, path: 'ops/deploy' });
    const context = await client.memories.context(recordId, { limit: 5 });
    expect(context.fact.map((m) => m.content)).toContain('The deploy key rotates every Monday.');

    const listed = await client.memories.list(recordId, { pageSize: 1 }).toArray();
    expect(listed.map((m) => m.path)).toEqual(['ops/deploy', 'people/ada']);

    expect(await client.memories.forget(recordId, { path: 'people/ada' })).toEqual({ deleted: true, path: 'people/ada' });
    await expect(client.memories.forget(recordId, { id: 'mem_doesnotexist0000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('writes, reads and lists files', async () => {
    expect(await client.files.write(recordId, { path: 'notes/a.md', content: '# A' })).toEqual({ path: 'notes/a.md', contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    await client.files.write(recordId, { path: 'notes/b.md', content: '' });
    await client.files.write(recordId, { path: 'other/c.md', content: 'c' });
    expect(await client.files.read(recordId, 'notes/a.md')).toEqual({ path: 'notes/a.md', content: '# A' });
    const files = [];
    for await (const file of client.files.list(recordId, { prefix: 'notes/', pageSize: 1 })) files.push(file);
    expect(files.map((f) => [f.path, f.size])).toEqual([['notes/a.md', 3], ['notes/b.md', 0]]);
    await expect(client.files.read(recordId, 'notes/missing.md')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('errors and retries', () => {
  it('raises typed errors with code, status, message and the request id', async () => {
    const error = await client.memories.remember(recordId, { content: '' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, message: expect.stringContaining('content'), requestId: expect.any(String) });
    const stranger = new AgentMemory({ baseUrl: server.url, apiKey: 'amk_test_' + 'x'.repeat(43) });
    await expect(stranger.agents.get()).rejects.toBeInstanceOf(UnauthorizedError);
    const refused = new AgentMemory({ baseUrl: 'http://127.0.0.1:1', apiKey: agentKey, retries: 0 });
    await expect(refused.agents.get()).rejects.toBeInstanceOf(AgentMemoryNetworkError);
  });

  it('retries a remember whose answer was lost with the same idempotency key: one memory, one charge', async () => {
    let dropped = 0;
    const bodies: string[] = [];
    const lossy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof input === 'string' && input.endsWith('/remember') && init?.method === 'POST') {
        bodies.push(init.body as string);
        if (dropped++ === 0) throw new TypeError('fetch failed: the connection dropped after the server answered');
      }
      return response;
    };
    const flaky = new AgentMemory({ baseUrl: server.url, apiKey: agentKey, fetch: lossy, retries: { baseDelayMs: 1 } });
    const memory = await flaky.memories.remember(recordId, { content: 'Retried writes must not duplicate.' });
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]); // same idempotency_key, same bytes
    const key = (JSON.parse(bodies[0]) as { idempotency_key: string }).idempotency_key;
    const same = (await client.memories.list(recordId).toArray()).filter((m) => m.content === 'Retried writes must not duplicate.');
    expect(same.map((m) => m.id)).toEqual([memory.id]);
    const charges = (await client.billing.usage({ operation: 'remember' }).toArray()).filter((e) => e.idempotencyKey === key);
    expect(charges).toHaveLength(1);
  });

  it('does not repeat a paid read whose answer was lost (a repeat is a new charge): AgentMemoryNetworkError, one charge', async () => {
    const recalls = async () => (await client.billing.usage({ operation: 'recall' }).toArray()).length;
    const before = await recalls();
    let sent = 0;
    const lossy: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof input === 'string' && input.endsWith('/recall')) {
        sent++;
        await response.text(); // the server answered (and charged); the answer is lost on the way back
        throw new TypeError('fetch failed: the connection dropped after the server answered');
      }
      return response;
    };
    const flaky = new AgentMemory({ baseUrl: server.url, apiKey: agentKey, fetch: lossy, retries: { baseDelayMs: 1 } });
    await expect(flaky.memories.recall(recordId, { query: 'When does the deploy key rotate?' })).rejects.toMatchObject({ code: 'NETWORK_ERROR', timedOut: false });
    expect(sent).toBe(1);
    expect((await recalls()) - before).toBe(1);
  });

  it('does not repeat a write without an idempotency key once it may have reached the server', async () => {
    let calls = 0;
    const lossy: typeof fetch = async (input, init) => {
      calls++;
      await fetch(input, init);
      throw new TypeError('fetch failed');
    };
    const flaky = new AgentMemory({ baseUrl: server.url, apiKey: agentKey, fetch: lossy, retries: { baseDelayMs: 1 } });
    await expect(flaky.records.create({ name: 'maybe created' })).rejects.toMatchObject({ code: 'NETWORK_ERROR', timedOut: false });
    expect(calls).toBe(1);
  });
});

describe('humans: passkey session and claimed agents', () => {
  it('signs up with a passkey, claims the agent, reads it through the session, and signs out', async () => {
    await client.memories.remember(recordId, { content: 'Ana prefers tea over coffee.', path: 'people/ana' });
    await client.files.write(recordId, { path: 'notes/ana.md', content: '# Ana' });
    const device = createPasskeyDevice(ORIGIN);
    const human = new AgentMemory({ baseUrl: server.url });
    const registration = await human.humans.registerOptions({ name: 'Ana' });
    const session = await human.humans.registerVerify(device.create(registration.options) as unknown as WebAuthnCredentialJson);
    expect(session.human).toMatchObject({ name: 'Ana' });
    expect(await human.humans.me()).toMatchObject({ id: session.human.id, passkeys: [expect.any(Object)] });
    // a second passkey goes to the signed-in account (the session is sent with the registration)
    const more = await human.humans.registerOptions();
    const current = await human.humans.registerVerify(createPasskeyDevice(ORIGIN).create(more.options) as unknown as WebAuthnCredentialJson);
    expect(current.human.id).toBe(session.human.id); // and the client now holds current.token
    // the second passkey can be deleted (sessions stay valid), the last one cannot
    const [first, second] = (await human.humans.me()).passkeys;
    expect(await human.humans.deletePasskey(second.id)).toEqual({ deleted: true, passkeys: [first] });
    await expect(human.humans.deletePasskey(first.id)).rejects.toBeInstanceOf(ForbiddenError);

    const agent = await client.agents.get();
    expect(await human.humans.claim(agentKey)).toMatchObject({ id: agent.id });
    expect((await human.humans.agents()).agents.map((a) => a.id)).toEqual([agent.id]);
    expect(await human.humans.agent(agent.id)).toMatchObject({ id: agent.id, balance: { live: { environment: 'live' }, test: { environment: 'test' } }, lastActivityAt: expect.any(String) });
    expect((await human.humans.records(agent.id).toArray()).map((r) => r.id)).toContain(recordId);
    expect((await human.humans.usage(agent.id, { operation: 'remember' }).toArray()).length).toBeGreaterThan(0);
    expect((await human.humans.keys(agent.id)).keys.length).toBeGreaterThan(0);
    // read routes of a claimed agent accept the session (viewer), writes do not
    expect(await human.records.get(recordId)).toMatchObject({ id: recordId });
    expect((await human.files.read(recordId, 'notes/ana.md')).content).toBe('# Ana');
    await expect(human.memories.remember(recordId, { content: 'not by a human' })).rejects.toBeInstanceOf(ForbiddenError);
    // the owner's right to erase: forget with the session (free)
    expect(await human.memories.forget(recordId, { path: 'people/ana' })).toMatchObject({ deleted: true, path: 'people/ana' });

    const login = await human.humans.loginOptions();
    const signedIn = await new AgentMemory({ baseUrl: server.url }).humans.loginVerify(device.get(login.options) as unknown as WebAuthnCredentialJson);
    expect(signedIn.human.id).toBe(session.human.id);
    expect(await human.humans.release(agent.id)).toMatchObject({ released: true });
    expect(await human.humans.logout()).toEqual({ loggedOut: true });
    await expect(new AgentMemory({ baseUrl: server.url, sessionToken: current.token }).humans.me()).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(human.humans.me()).rejects.toThrow(TypeError); // the client forgot the ended session
  });
});

describe('coverage of the OpenAPI document', () => {
  it('has an SDK method for every operation the server documents', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([path, methods]) => Object.keys(methods).filter((m) => ['get', 'post', 'patch', 'put', 'delete'].includes(m)).map((m) => routeKey(m, path)));
    expect(operations.length).toBeGreaterThan(40);
    const reached = await routesCalledBySdk();
    expect(operations.filter((op) => !reached.has(op))).toEqual([]);
  });
});
