/**
 * Authentication end to end (docs/authentication.md), humans: passkey sign-up/sign-in/sign-out with a
 * software authenticator, claiming and managing an agent.
 */
import { createPasskeyDevice, type PasskeyDevice } from '@agent-memory/testing';
import { ORIGIN, api, passkey, useAuthServer } from './auth/world';

useAuthServer();

describe('passkeys for humans', () => {
  let device: PasskeyDevice;
  let token: string;
  let humanId: string;
  let agent: { agentId: string; agentKey: string; recordId: string };

  beforeAll(async () => {
    device = createPasskeyDevice(ORIGIN);
    agent = await api.createAgent({ name: 'owned agent' });
    const base = `/api/v1/records/${agent.recordId}`;
    await api.request('POST', `${base}/remember`, { key: agent.agentKey, body: { content: 'Ana prefers tea over coffee.', path: 'prefs/tea', type: 'fact' } });
    await api.request('POST', `${base}/write`, { key: agent.agentKey, body: { path: 'todo.md', content: '- water the plants' } });
  });

  it('registers with a passkey and is signed in at once', async () => {
    const opts = await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name: 'Ana' } });
    expect(opts.status).toBe(200);
    expect(opts.data.options).toMatchObject({ rp: { id: 'localhost', name: 'agent-memory' }, user: { name: 'Ana' }, challenge: expect.any(String), authenticatorSelection: { residentKey: 'required', userVerification: 'required' } });
    const verified = await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: device.create(opts.data.options) } });
    expect(verified.status).toBe(200);
    expect(verified.data).toMatchObject({ token: expect.stringMatching(/^amk_session_/), human: { id: expect.stringMatching(/^hum_/), name: 'Ana', passkeys: [expect.any(Object)] } });
    expect(Date.parse(verified.data.expiresAt) - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    humanId = verified.data.human.id;
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(verified.data.token) })).data.id).toBe(humanId);
  });

  it('signs in with the passkey (no user name) and out again', async () => {
    const opts = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
    expect(opts.options.allowCredentials ?? []).toEqual([]);
    const session = (await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: device.get(opts.options) } })).data;
    expect(session.human.id).toBe(humanId);
    expect(session.human.passkeys[0].lastUsedAt).not.toBeNull();
    const out = await api.request('POST', '/api/v1/auth/logout', { headers: passkey(session.token) });
    expect(out.data).toEqual({ loggedOut: true });
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(session.token) })).code).toBe('UNAUTHORIZED');
    // a fresh sign-in for the next cases
    const again = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
    token = (await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: device.get(again.options) } })).data.token;
  });

  it('adds a second passkey while signed in', async () => {
    const laptop = createPasskeyDevice(ORIGIN);
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(token), body: {} })).data;
    const added = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { headers: passkey(token), body: { response: laptop.create(opts.options) } })).data;
    expect(added.human).toMatchObject({ id: humanId, passkeys: [expect.any(Object), expect.any(Object)] });
    const opts2 = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
    expect((await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: laptop.get(opts2.options) } })).data.human.id).toBe(humanId);
  });

  it('finishes adding a passkey only in the session of the account that started it (none: 401, another human’s: 403); nothing added', async () => {
    const other = createPasskeyDevice(ORIGIN);
    const otherOpts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name: 'Mallory' } })).data;
    const otherToken = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: other.create(otherOpts.options) } })).data.token;
    const before = (await api.request('GET', '/api/v1/humans/me', { headers: passkey(token) })).data.passkeys;
    for (const [headers, status, code] of [
      [{}, 401, 'UNAUTHORIZED'],
      [passkey(otherToken), 403, 'FORBIDDEN'],
    ] as const) {
      // the challenge leaked: its holder answers it with an authenticator of their own
      const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(token), body: {} })).data;
      const finished = await api.request('POST', '/api/v1/auth/passkey/register/verify', { headers, body: { response: createPasskeyDevice(ORIGIN).create(opts.options) } });
      expect([finished.status, finished.code]).toEqual([status, code]);
    }
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(token) })).data.passkeys).toEqual(before);
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(otherToken) })).data.passkeys).toHaveLength(1);
  });

  it('claims an agent with its key once, then reads and lists its records, memories, files and usage', async () => {
    const claimed = await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(token), body: { agentKey: agent.agentKey } });
    expect(claimed.status).toBe(201);
    expect(claimed.data).toMatchObject({ id: agent.agentId, name: 'owned agent', claimedAt: expect.any(String) });
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(token) })).data.agents.map((a: any) => a.id)).toEqual([agent.agentId]);
    const me = `/api/v1/humans/me/agents/${agent.agentId}`;
    expect((await api.request('GET', me, { headers: passkey(token) })).data.id).toBe(agent.agentId);
    expect((await api.request('GET', `${me}/records`, { headers: passkey(token) })).data.records.map((r: any) => r.id)).toEqual([agent.recordId]);
    const base = `/api/v1/records/${agent.recordId}`;
    expect((await api.request('GET', base, { headers: passkey(token) })).data.id).toBe(agent.recordId);
    expect((await api.request('GET', `${base}/context`, { headers: passkey(token) })).data.fact[0].content).toBe('Ana prefers tea over coffee.');
    expect((await api.request('POST', `${base}/recall`, { headers: passkey(token), body: { query: 'tea or coffee?' } })).data.count).toBe(1);
    expect((await api.request('GET', `${base}/read?path=todo.md`, { headers: passkey(token) })).data.content).toBe('- water the plants');
    expect((await api.request('GET', `${base}/memories`, { headers: passkey(token) })).data.memories.map((m: any) => m.content)).toEqual(['Ana prefers tea over coffee.']);
    expect((await api.request('GET', `${base}/files`, { headers: passkey(token) })).data.files.map((f: any) => f.path)).toEqual(['todo.md']);
    const usage = (await api.request('GET', `${me}/usage`, { headers: passkey(token) })).data;
    // context, recall, read file and list memories are paid from the session; list files is free
    expect(usage.entries.map((e: any) => e.paymentMethod).sort()).toEqual(['agent_key', 'agent_key', 'passkey', 'passkey', 'passkey', 'passkey']);
    // writes need the agent's key
    const write = await api.request('POST', `${base}/remember`, { headers: passkey(token), body: { content: 'from a human' } });
    expect([write.status, write.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('rotates and revokes the agent’s keys from the session', async () => {
    const me = `/api/v1/humans/me/agents/${agent.agentId}`;
    const keys = (await api.request('GET', `${me}/keys`, { headers: passkey(token) })).data.keys;
    const rotated = (await api.request('POST', `${me}/keys/rotate`, { headers: passkey(token), body: { graceSeconds: 0 } })).data;
    expect((await api.request('GET', '/api/v1/agents', { key: agent.agentKey })).code).toBe('UNAUTHORIZED');
    expect((await api.request('GET', '/api/v1/agents', { key: rotated.agentKey })).data.id).toBe(agent.agentId);
    const newId = rotated.key.id;
    expect((await api.request('POST', `${me}/keys/${newId}/revoke`, { headers: passkey(token) })).data.key.status).toBe('revoked');
    expect((await api.request('GET', '/api/v1/agents', { key: rotated.agentKey })).code).toBe('UNAUTHORIZED');
    expect((await api.request('GET', `${me}/keys`, { headers: passkey(token) })).data.keys.map((k: any) => k.id)).toEqual([newId, keys[0].id]);
    const last = (await api.request('POST', `${me}/keys/rotate`, { headers: passkey(token) })).data.agentKey;
    expect((await api.request('GET', '/api/v1/agents', { key: last })).status).toBe(200);
  });

  it('another human sees none of it; a claimed agent cannot be claimed twice; release gives it up', async () => {
    const other = createPasskeyDevice(ORIGIN);
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name: 'Bo' } })).data;
    const bo = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: other.create(opts.options) } })).data.token;
    expect((await api.request('GET', `/api/v1/humans/me/agents/${agent.agentId}`, { headers: passkey(bo) })).code).toBe('NOT_FOUND');
    expect((await api.request('GET', `/api/v1/records/${agent.recordId}/context`, { headers: passkey(bo) })).code).toBe('NOT_FOUND');
    const fresh = (await api.request('POST', `/api/v1/humans/me/agents/${agent.agentId}/keys/rotate`, { headers: passkey(token) })).data.agentKey;
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(bo), body: { agentKey: fresh } })).code).toBe('FORBIDDEN');
    expect((await api.request('DELETE', `/api/v1/humans/me/agents/${agent.agentId}`, { headers: passkey(token) })).data).toEqual({ released: true, agentId: agent.agentId });
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(bo), body: { agentKey: fresh } })).status).toBe(201);
    expect((await api.request('GET', `/api/v1/records/${agent.recordId}`, { headers: passkey(token) })).code).toBe('NOT_FOUND');
  });
});
