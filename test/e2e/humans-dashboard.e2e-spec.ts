/**
 * What the human dashboard calls (docs/authentication.md, "Passkeys (humans)" and "Claiming and managing
 * an agent"; docs/billing.md): deleting a passkey (never the last), the owner's free right to erase
 * (forget, delete record) with `BILLING_MODE=enforce`, and the agent list with balances and last activity.
 */
import { CompletePaymentReplySchema, PaymentRecordSchema, SUBJECTS } from '@agent-memory/shared';
import { ApiClient, createPasskeyDevice, type PasskeyDevice } from '@agent-memory/testing';
import { type E2eServer, startE2eServer } from '@agent-memory/test-support';

const ORIGIN = 'http://localhost:8080';
let server: E2eServer;
let api: ApiClient;
const passkey = (token: string) => ({ authorization: `Passkey ${token}` });

beforeAll(async () => {
  server = await startE2eServer({ env: { PASSKEY_ORIGINS: ORIGIN, PASSKEY_RP_ID: 'localhost', BILLING_MODE: 'enforce' } });
  api = new ApiClient(server.url);
}, 300_000);
afterAll(() => server?.close({ removeData: true }));

/** Live money through the billing service's own top-up path (a claimed payment, completed as settled). */
async function seedLiveBalance(agentId: string, amountMicroUsd: number) {
  const challengeId = `seed-${agentId}-${Date.now()}`;
  await server.bus().request(SUBJECTS.billing.claimPayment, { challengeId, purpose: 'top_up', agentId, amountMicroUsd, payer: '0x000000000000000000000000000000000000dEaD', requestId: 'seed' }, PaymentRecordSchema);
  await server.bus().request(SUBJECTS.billing.completePayment, { challengeId, outcome: 'settled', reference: 'seed' }, CompletePaymentReplySchema);
}

async function signUp(name: string, device: PasskeyDevice = createPasskeyDevice(ORIGIN)) {
  const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data;
  return (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: device.create(opts.options) } })).data as { token: string; human: { id: string; passkeys: Array<{ id: string }> } };
}

describe('passkey deletion', () => {
  it('deletes one passkey, never the last (403, nothing changes); another account’s: 404; the calling session stays valid, the account’s other sessions end', async () => {
    const phone = createPasskeyDevice(ORIGIN);
    const ana = await signUp('Ana', phone);
    const laptop = createPasskeyDevice(ORIGIN);
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(ana.token), body: {} })).data;
    const both = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { headers: passkey(ana.token), body: { response: laptop.create(opts.options) } })).data.human.passkeys;
    expect(both).toHaveLength(2);
    const bo = await signUp('Bo');
    const loginOptions = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
    const elsewhere = (await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: phone.get(loginOptions.options) } })).data.token as string;

    const foreign = await api.request('DELETE', `/api/v1/humans/me/passkeys/${encodeURIComponent(both[0].id)}`, { headers: passkey(bo.token) });
    expect([foreign.status, foreign.code]).toEqual([404, 'NOT_FOUND']);
    expect((await api.request('DELETE', '/api/v1/humans/me/passkeys/not-a-passkey', { headers: passkey(ana.token) })).code).toBe('NOT_FOUND');
    expect((await api.request('DELETE', `/api/v1/humans/me/passkeys/${both[0].id}`)).code).toBe('UNAUTHORIZED');

    const deleted = await api.request('DELETE', `/api/v1/humans/me/passkeys/${both[1].id}`, { headers: passkey(ana.token) });
    expect(deleted.status).toBe(200);
    expect(deleted.data).toEqual({ deleted: true, passkeys: [{ ...both[0], lastUsedAt: expect.any(String) }] });
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(elsewhere) })).status).toBe(401);
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(bo.token) })).status).toBe(200);
    const last = await api.request('DELETE', `/api/v1/humans/me/passkeys/${both[0].id}`, { headers: passkey(ana.token) });
    expect([last.status, last.code]).toEqual([403, 'FORBIDDEN']);
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(ana.token) })).data.passkeys.map((p: any) => p.id)).toEqual([both[0].id]);
    // the deleted passkey no longer signs in; the kept one does
    const signIn = async (device: PasskeyDevice) => {
      const o = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
      return api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: device.get(o.options) } });
    };
    expect((await signIn(laptop)).code).toBe('UNAUTHORIZED');
    expect((await signIn(phone)).data.human.id).toBe(ana.human.id);
  });
});

describe('the owner’s right to erase, free (BILLING_MODE=enforce)', () => {
  it('a session forgets and deletes records of a claimed agent without charge or balance; remember stays 403; a stranger gets 404', async () => {
    const agent = await api.createAgent({ name: 'erasable' });
    await seedLiveBalance(agent.agentId, 200_000);
    const base = `/api/v1/records/${agent.recordId}`;
    const remember = (path: string, content: string) => api.request('POST', `${base}/remember`, { key: agent.agentKey, body: { content, path, type: 'fact' } });
    expect((await remember('prefs/tea', 'Ana prefers green tea over coffee.')).status).toBe(200);
    expect((await remember('prefs/city', 'Ana lives in Lisbon.')).status).toBe(200);
    const owner = await signUp('Owner');
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(owner.token), body: { agentKey: agent.agentKey } })).status).toBe(201);

    // writes other than erasure stay the agent's
    const write = await api.request('POST', `${base}/remember`, { headers: passkey(owner.token), body: { content: 'from a human', path: 'x' } });
    expect([write.status, write.code]).toEqual([403, 'FORBIDDEN']);

    // a stranger's session: 404 for the forget and the delete, nothing changes
    const stranger = await signUp('Stranger');
    expect((await api.request('DELETE', `${base}/remember?path=prefs/tea`, { headers: passkey(stranger.token) })).code).toBe('NOT_FOUND');
    expect((await api.request('DELETE', base, { headers: passkey(stranger.token) })).code).toBe('NOT_FOUND');

    // the owner's forget: 200, free (the balance left covers exactly 2 more calls and stays so)
    const forgot = await api.request('DELETE', `${base}/remember?path=prefs/tea`, { headers: passkey(owner.token) });
    expect(forgot.status).toBe(200);
    expect(forgot.headers.get('www-authenticate')).toBeNull();
    const recalled = (await api.request('POST', `${base}/recall`, { key: agent.agentKey, body: { query: 'What does Ana drink?' } })).data;
    expect(recalled.memories.map((m: any) => m.path)).not.toContain('prefs/tea');
    expect(recalled.memories.map((m: any) => m.path)).toContain('prefs/city');

    // the agent's own forget is still charged: the last 0.05 USD, then 402
    expect((await api.request('DELETE', `${base}/remember?path=prefs/city`, { key: agent.agentKey })).status).toBe(200);
    expect((await remember('prefs/again', 'one more')).code).toBe('PAYMENT_REQUIRED');
    const agentForget = await api.request('DELETE', `${base}/remember?path=prefs/again`, { key: agent.agentKey });
    expect([agentForget.status, agentForget.code]).toEqual([402, 'PAYMENT_REQUIRED']);
    // with an empty balance the owner still erases
    expect((await api.request('DELETE', `${base}/remember?path=prefs/none`, { headers: passkey(owner.token) })).code).not.toBe('PAYMENT_REQUIRED');

    // the owner deletes a record (free for everyone), still with no balance
    const extra = (await api.request('POST', '/api/v1/records', { key: agent.agentKey, body: { name: 'to erase' } })).data;
    const gone = await api.request('DELETE', `/api/v1/records/${extra.id}?cascade=true`, { headers: passkey(owner.token) });
    expect(gone.status).toBe(200);
    expect((await api.request('GET', `/api/v1/records/${extra.id}`, { key: agent.agentKey })).code).toBe('NOT_FOUND');

    // the ledger: 2 remembers, 1 recall, 1 agent forget; no passkey entry
    const usage = (await api.request('GET', `/api/v1/humans/me/agents/${agent.agentId}/usage?limit=100`, { headers: passkey(owner.token) })).data;
    expect(usage.entries.map((e: any) => `${e.operation}:${e.paymentMethod}`).sort()).toEqual(['forget:balance', 'recall:balance', 'remember:balance', 'remember:balance']);
    expect(usage.totalMicroUsd).toBe(200_000);
    expect(usage.byDay).toEqual([{ date: new Date().toISOString().slice(0, 10), count: 4, amountMicroUsd: 200_000 }]);

    // the agent list shows the balances and the last activity
    const listed = (await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(owner.token) })).data.agents;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: agent.agentId,
      claimedAt: expect.any(String),
      balance: { live: { agentId: agent.agentId, environment: 'live', balanceMicroUsd: 0 }, test: { agentId: agent.agentId, environment: 'test', balanceMicroUsd: expect.any(Number) } },
    });
    expect(listed[0].lastActivityAt).toBe(usage.entries[0].createdAt);
    const one = (await api.request('GET', `/api/v1/humans/me/agents/${agent.agentId}`, { headers: passkey(owner.token) })).data;
    expect(one).toEqual(listed[0]);
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(stranger.token) })).data).toEqual({ agents: [] });
  });
});
