/**
 * Authentication end to end (docs/authentication.md), agents' credentials: agent key rotation and
 * revocation, live/test separation, wallet signatures on a local agent's own records and their binding
 * and deployment scope, a claim made with a leaked key not outliving the owner cutting that key off,
 * security headers and body limits. Passkeys for humans are in auth-passkeys.e2e-spec.ts.
 */
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { signatureMessage } from '@agent-memory/gateway';
import { ApiClient, createPasskeyDevice } from '@agent-memory/testing';
import { createAgentWithWallet, type E2eServer, signatureAuthorization, startE2eServer, walletProof } from '@agent-memory/test-support';
import { SUBJECTS, UsageSummarySchema } from '@agent-memory/shared';
import { ORIGIN, server, api, passkey, useAuthServer } from './auth/world';

useAuthServer();

/** secp256k1's group order (SEC 2, §2.4.1). */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The other spellings of a canonical signature that ecrecover-style verifiers accept: `v` as 00/01, and `(r, n - s)` with the recovery bit flipped. */
function malleated(signature: string): { lowV: string; highS: string } {
  const r = signature.slice(2, 66);
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = signature.slice(130);
  return {
    lowV: `0x${r}${signature.slice(66, 130)}${v === '1b' ? '00' : '01'}`,
    highS: `0x${r}${(SECP256K1_N - s).toString(16).padStart(64, '0')}${v === '1b' ? '1c' : '1b'}`,
  };
}

let lastTimestamp = 0;
/**
 * Signs one request as `account` for the deployment `target` (default: the suite's server;
 * docs/authentication.md, "The signed message") and sends it there. Signatures are deterministic and
 * single use, so each request gets its own timestamp (seconds, within the window).
 */
async function signedRequest(account: PrivateKeyAccount, method: string, pathWithQuery: string, body?: unknown, target: E2eServer = server) {
  const timestamp = (lastTimestamp = Math.max(Math.floor(Date.now() / 1000), lastTimestamp + 1));
  const raw = body === undefined ? '' : JSON.stringify(body);
  return new ApiClient(target.url).request(method, pathWithQuery, {
    headers: { authorization: await signatureAuthorization(account, target.signatureRealm, { method, pathWithQuery, timestamp, body: raw }) },
    ...(body === undefined ? {} : { rawBody: raw, contentType: 'application/json' }),
  });
}

describe('agent keys: list, rotate with a grace period, revoke', () => {
  it('rotates: the new key works at once, the old one during the grace period; revoking ends a key at once', async () => {
    const { agentKey: first, agentId } = await api.createAgent({ name: 'rotator' });
    const listed = (await api.request('GET', '/api/v1/agents/keys', { key: first })).data.keys;
    expect(listed).toEqual([{ id: expect.stringMatching(/^key_/), displayPrefix: first.slice(0, 13), environment: 'live', status: 'active', createdAt: expect.any(String), expiresAt: null, revokedAt: null }]);
    expect(JSON.stringify(listed)).not.toContain(first.slice(13));

    const rotated = await api.request('POST', '/api/v1/agents/keys/rotate', { key: first, body: { graceSeconds: 3600 } });
    expect(rotated.status).toBe(200);
    const second: string = rotated.data.agentKey;
    expect(second).toMatch(/^amk_live_[0-9A-Za-z]{43}$/);
    expect(rotated.data.previousKeys).toEqual([expect.objectContaining({ id: listed[0].id, status: 'expiring' })]);
    const expiresIn = Date.parse(rotated.data.previousKeys[0].expiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(3590_000);
    expect(expiresIn).toBeLessThanOrEqual(3600_000);
    expect((await api.request('GET', '/api/v1/agents', { key: first })).data.id).toBe(agentId);
    expect((await api.request('GET', '/api/v1/agents', { key: second })).data.id).toBe(agentId);

    const revoked = await api.request('POST', `/api/v1/agents/keys/${listed[0].id}/revoke`, { key: second });
    expect(revoked.data).toMatchObject({ revoked: true, key: { id: listed[0].id, status: 'revoked' } });
    const refused = await api.request('GET', '/api/v1/agents', { key: first });
    expect([refused.status, refused.code]).toEqual([401, 'UNAUTHORIZED']);

    // without a body the default grace applies (24 h); with 0 the old keys end at once
    const third = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: second })).data;
    expect(Date.parse(third.previousKeys[0].expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const fourth = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: third.agentKey, body: { graceSeconds: 0 } })).data;
    for (const old of [second, third.agentKey]) expect((await api.request('GET', '/api/v1/agents', { key: old })).code).toBe('UNAUTHORIZED');
    expect((await api.request('GET', '/api/v1/agents', { key: fourth.agentKey })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/agents/keys', { key: fourth.agentKey })).data.keys.map((k: any) => k.status)).toEqual(['active', 'expired', 'expired', 'revoked']);
  });

  it('refuses a grace period beyond 7 days and unknown fields', async () => {
    const { agentKey } = await api.createAgent({ name: 'strict rotator' });
    for (const body of [{ graceSeconds: 604_801 }, { graceSeconds: -1 }, { graceSeconds: '60' }, { grace: 60 }]) {
      expect((await api.request('POST', '/api/v1/agents/keys/rotate', { key: agentKey, body })).code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('environments', () => {
  it('a test key on live data is FORBIDDEN, exactly as on a record that does not exist; a live key gets NOT_FOUND for both; its own test data fine', async () => {
    const live = await api.createAgent({ name: 'live agent' });
    const test = await api.createAgent({ name: 'test agent', environment: 'test' });
    const otherTest = await api.createAgent({ name: 'other test agent', environment: 'test' });
    const otherLive = await api.createAgent({ name: 'other live agent' });
    expect(test.agentKey).toMatch(/^amk_test_/);
    const nowhere = 'rec_0000000000000000000000';
    // A test key: one answer, body and all, whether the record is live, another test agent's, or nowhere (no existence oracle).
    const asTest = async (recordId: string) => api.request('GET', `/api/v1/records/${recordId}/context`, { key: test.agentKey });
    const onLive = await asTest(live.recordId);
    expect([onLive.status, onLive.code]).toEqual([403, 'FORBIDDEN']);
    expect(onLive.body.success === false && onLive.body.error.message).toMatch(/test key cannot access live data/);
    for (const id of [nowhere, otherTest.recordId]) expect((await asTest(id)).body).toEqual(onLive.body);
    // A live key: NOT_FOUND alike for a test agent's record, another live agent's and a nonexistent one.
    const asLive = async (recordId: string) => api.request('POST', `/api/v1/records/${recordId}/remember`, { key: live.agentKey, body: { content: 'x' } });
    const liveOnTest = await asLive(test.recordId);
    expect([liveOnTest.status, liveOnTest.code]).toEqual([404, 'NOT_FOUND']);
    for (const id of [nowhere, otherLive.recordId]) expect((await asLive(id)).body).toEqual(liveOnTest.body);
    expect((await api.request('GET', `/api/v1/records/${live.recordId}`, { key: otherLive.agentKey })).code).toBe('NOT_FOUND');
    expect((await api.request('POST', `/api/v1/records/${test.recordId}/remember`, { key: test.agentKey, body: { content: 'test memory', type: 'fact' } })).status).toBe(200);
    const rotated = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: test.agentKey })).data;
    expect(rotated.agentKey).toMatch(/^amk_test_/);
  });
});

describe('wallet signatures on a local agent’s own records', () => {
  const wallet = privateKeyToAccount(generatePrivateKey());
  let agent: { agentId: string; recordId: string; agentKey: string };

  beforeAll(async () => {
    agent = await createAgentWithWallet(api, wallet, { name: 'signing agent', mode: 'local' });
  });

  it('reads and writes records, memories, files and keys with signatures only', async () => {
    const base = `/api/v1/records/${agent.recordId}`;
    expect((await signedRequest(wallet, 'GET', '/api/v1/agents')).data).toMatchObject({ id: agent.agentId, mode: 'local' });
    const created = await signedRequest(wallet, 'POST', '/api/v1/records', { name: 'signed record' });
    expect(created.status).toBe(201);
    expect((await signedRequest(wallet, 'GET', '/api/v1/records?limit=5')).data.total).toBe(2);
    expect((await signedRequest(wallet, 'PATCH', `/api/v1/records/${created.data.id}`, { tags: ['signed'] })).data.tags).toEqual(['signed']);
    const memory = await signedRequest(wallet, 'POST', `${base}/remember`, { content: 'Signed requests need no key.', path: 'auth/signed', type: 'fact' });
    expect(memory.data).toMatchObject({ path: 'auth/signed', type: 'fact' });
    expect((await signedRequest(wallet, 'POST', `${base}/recall`, { query: 'signed requests', limit: 1 })).data.memories[0].id).toBe(memory.data.id);
    expect((await signedRequest(wallet, 'GET', `${base}/context`)).data.fact).toHaveLength(1);
    expect((await signedRequest(wallet, 'POST', `${base}/write`, { path: 'notes.md', content: 'signed' })).status).toBe(200);
    expect((await signedRequest(wallet, 'GET', `${base}/read?path=notes.md`)).data.content).toBe('signed');
    expect((await signedRequest(wallet, 'DELETE', `${base}/remember?path=auth/signed`)).data).toEqual({ deleted: true, path: 'auth/signed' });
    expect((await signedRequest(wallet, 'GET', '/api/v1/agents/keys')).data.keys).toHaveLength(1);
    expect((await signedRequest(wallet, 'DELETE', `/api/v1/records/${created.data.id}`)).data.deleted).toBe(true);
    // the usage ledger records the method
    const usage = await server.bus().request(SUBJECTS.billing.usage, { agentId: agent.agentId, limit: 100, offset: 0 }, UsageSummarySchema);
    expect(new Set(usage.entries.map((e) => e.paymentMethod))).toEqual(new Set(['signature']));
  });

  it('a wallet whose agent lost its key can rotate one back', async () => {
    const keys = (await signedRequest(wallet, 'GET', '/api/v1/agents/keys')).data.keys;
    expect((await signedRequest(wallet, 'POST', `/api/v1/agents/keys/${keys[0].id}/revoke`)).data.revoked).toBe(true);
    const fresh = (await signedRequest(wallet, 'POST', '/api/v1/agents/keys/rotate')).data.agentKey;
    expect((await api.request('GET', '/api/v1/agents', { key: fresh })).data.id).toBe(agent.agentId);
  });

  it('a signed request is single-use in every encoding of its signature (v as 00/01, high s): 401, nothing changed', async () => {
    const keysBefore = (await signedRequest(wallet, 'GET', '/api/v1/agents/keys')).data.keys;
    const timestamp = (lastTimestamp = Math.max(Math.floor(Date.now() / 1000), lastTimestamp + 1));
    const path = '/api/v1/agents/keys/rotate';
    const signature = await wallet.signMessage({ message: signatureMessage({ ...server.signatureRealm, method: 'POST', pathWithQuery: path, timestamp, body: '' }) });
    const send = (sig: string) => api.request('POST', path, { headers: { authorization: `Signature ${timestamp}:${wallet.address}:${sig}` } });
    const first = await send(signature);
    expect(first.status).toBe(200);
    const { lowV, highS } = malleated(signature);
    for (const variant of [lowV, highS, malleated(highS).lowV, signature]) {
      const replay = await send(variant);
      expect([replay.status, replay.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    // exactly the one rotation happened: one new key, nothing else
    const keysAfter = (await signedRequest(wallet, 'GET', '/api/v1/agents/keys')).data.keys;
    expect(keysAfter).toHaveLength(keysBefore.length + 1);
    expect(keysAfter[0].id).toBe(first.data.key.id);
  });

  it('gives one wallet to one local agent only, even with a proof', async () => {
    const again = await api.request('POST', '/api/v1/agents', { body: { name: 'copycat', mode: 'local', ...(await walletProof(api, wallet)) } });
    expect([again.status, again.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(again.body).toMatchObject({ error: { message: expect.stringMatching(/already the wallet of another local-mode agent/) } });
    // a cloud agent may carry the same address (its signatures are refused anyway)
    expect((await api.request('POST', '/api/v1/agents', { body: { name: 'cloud twin', ...(await walletProof(api, wallet)) } })).status).toBe(201);
    expect((await signedRequest(wallet, 'GET', '/api/v1/agents')).data.id).toBe(agent.agentId);
  });
});

describe('binding a client-supplied wallet needs proof of possession', () => {
  it('refuses a wallet without proof, with another wallet’s signature, an altered, reused or foreign challenge: 400, nothing created; the owner then binds it', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const squatter = privateKeyToAccount(generatePrivateKey());
    const create = (body: Record<string, unknown>) => api.request('POST', '/api/v1/agents', { body: { name: 'squatter', mode: 'local', walletAddress: owner.address, ...body } });
    const refusals: Array<Record<string, unknown>> = [];
    refusals.push({}); // the attack as found: someone else's address, no proof at all
    const challenge = (await api.request('POST', '/api/v1/agents/wallet-challenge', { body: { walletAddress: owner.address } })).data;
    expect(challenge).toEqual({ message: expect.any(String), nonce: expect.stringMatching(/^[0-9a-f]{32}$/), expiresAt: expect.any(String) });
    const lines = challenge.message.split('\n');
    expect(lines[0]).toBe(`${server.signatureRealm.domain} wants you to sign in with your Ethereum account:`);
    expect(lines[1]).toBe(owner.address);
    expect(lines).toContain(`Chain ID: ${server.signatureRealm.chainId}`);
    expect(lines).toContain(`Nonce: ${challenge.nonce}`);
    // the squatter signs the owner's challenge with its own wallet
    refusals.push({ walletProof: { message: challenge.message, signature: await squatter.signMessage({ message: challenge.message }) } });
    // a challenge for the squatter's wallet, signed by it, presented for the owner's address
    const own = await walletProof(api, squatter);
    refusals.push({ walletProof: own.walletProof });
    // a made-up message the squatter signed (not one the server issued)
    const forged = challenge.message.replace(challenge.nonce, 'f'.repeat(32));
    refusals.push({ walletProof: { message: forged, signature: await owner.signMessage({ message: forged }) } });
    for (const body of refusals) {
      const refused = await create(body);
      expect([refused.status, refused.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect(refused.body).toMatchObject({ error: { message: expect.stringMatching(/^body: walletProof|^walletProof/) } });
    }
    // a proof without the address it proves
    const noAddress = await api.request('POST', '/api/v1/agents', { body: { name: 'x', mode: 'local', walletProof: own.walletProof } });
    expect([noAddress.status, noAddress.code]).toEqual([400, 'VALIDATION_ERROR']);
    // nothing was bound: the owner's signatures authenticate no agent yet
    expect((await signedRequest(owner, 'GET', '/api/v1/agents')).code).toBe('UNAUTHORIZED');

    // the owner's real proof works once; the same proof again is refused (single use)
    const proof = await walletProof(api, owner);
    const created = await api.request('POST', '/api/v1/agents', { body: { name: 'owner', mode: 'local', ...proof } });
    expect(created.status).toBe(201);
    expect(created.data.walletAddress).toBe(owner.address);
    expect(created.data.walletPrivateKey).toBeUndefined();
    const reused = await api.request('POST', '/api/v1/agents', { body: { name: 'again', mode: 'cloud', ...proof } });
    expect([reused.status, reused.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await signedRequest(owner, 'GET', '/api/v1/agents')).data).toMatchObject({ id: created.data.agentId, name: 'owner' });
    // generated wallets need no proof, as before
    const generated = await api.createAgent({ name: 'generated', mode: 'local' });
    expect(generated.walletPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses a malformed challenge request', async () => {
    for (const body of [{}, { walletAddress: '0x123' }, { walletAddress: privateKeyToAccount(generatePrivateKey()).address, extra: 1 }]) {
      const refused = await api.request('POST', '/api/v1/agents/wallet-challenge', { body });
      expect([refused.status, refused.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
  });
});

describe('a wallet signature is valid on one deployment only', () => {
  let other: E2eServer;
  beforeAll(async () => {
    // another deployment, standalone in either mode: the same wallet has a local agent on both
    other = await startE2eServer({ mode: 'standalone', env: { SIGNATURE_DOMAIN: 'other.example.com', BILLING_MODE: 'ledger' } });
  }, 180_000);
  afterAll(() => other?.close({ removeData: true }));

  it('a request signed for one deployment is refused by the other (401, nothing changed); signed for it, it works', async () => {
    expect(other.signatureRealm.domain).not.toBe(server.signatureRealm.domain);
    const wallet = privateKeyToAccount(generatePrivateKey());
    const here = await createAgentWithWallet(api, wallet, { name: 'here', mode: 'local' });
    const there = await createAgentWithWallet(new ApiClient(other.url), wallet, { name: 'there', mode: 'local' });
    // the captured request of the finding: rotate with grace 0, signed for this deployment
    const timestamp = (lastTimestamp = Math.max(Math.floor(Date.now() / 1000), lastTimestamp + 1));
    const path = '/api/v1/agents/keys/rotate';
    const raw = JSON.stringify({ graceSeconds: 0 });
    const header = { authorization: await signatureAuthorization(wallet, server.signatureRealm, { method: 'POST', pathWithQuery: path, timestamp, body: raw }) };
    const replayed = await new ApiClient(other.url).request('POST', path, { headers: header, rawBody: raw, contentType: 'application/json' });
    expect([replayed.status, replayed.code]).toEqual([401, 'UNAUTHORIZED']);
    // the victim's key on the other deployment still works, and it has one key
    expect((await new ApiClient(other.url).request('GET', '/api/v1/agents/keys', { key: there.agentKey })).data.keys).toHaveLength(1);
    // the same request signed for the right deployment works on each
    expect((await api.request('POST', path, { headers: header, rawBody: raw, contentType: 'application/json' })).status).toBe(200);
    expect((await signedRequest(wallet, 'GET', '/api/v1/agents', undefined, other)).data.id).toBe(there.agentId);
    expect((await signedRequest(wallet, 'GET', '/api/v1/agents')).data.id).toBe(here.agentId);
    // and one signed for the other deployment is refused here
    const later = (lastTimestamp = Math.max(Math.floor(Date.now() / 1000), lastTimestamp + 1));
    const backwards = await api.request('GET', '/api/v1/agents', {
      headers: { authorization: await signatureAuthorization(wallet, other.signatureRealm, { method: 'GET', pathWithQuery: '/api/v1/agents', timestamp: later }) },
    });
    expect([backwards.status, backwards.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});


describe('a claim made with a leaked key does not outlive the owner cutting that key off', () => {
  async function signUp(name: string) {
    const device = createPasskeyDevice(ORIGIN);
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data;
    return (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: device.create(opts.options) } })).data.token as string;
  }

  it('a key in its grace period cannot claim; rotating with grace 0 from the agent’s side drops the attacker’s claim', async () => {
    const owner = await api.createAgent({ name: 'leaky' });
    const base = `/api/v1/records/${owner.recordId}`;
    await api.request('POST', `${base}/remember`, { key: owner.agentKey, body: { content: 'The vault code is 1234.', path: 'vault', type: 'fact' } });
    const attacker = await signUp('Mallory');
    const leaked = owner.agentKey;
    const claim = (token: string, agentKey: string) => api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(token), body: { agentKey } });
    expect((await claim(attacker, leaked)).status).toBe(201);
    expect((await api.request('GET', `${base}/context`, { headers: passkey(attacker) })).status).toBe(200);

    // the owner rotates with grace 0 (Bearer): the leaked key ends and the attacker's claim with it
    const rotated = await api.request('POST', '/api/v1/agents/keys/rotate', { key: owner.agentKey, body: { graceSeconds: 0 } });
    expect(rotated.status).toBe(200);
    const me = `/api/v1/humans/me/agents/${owner.agentId}`;
    for (const [method, path] of [['GET', `${base}/context`], ['GET', me], ['GET', `${me}/keys`], ['POST', `${me}/keys/rotate`]] as const) {
      const res = await api.request(method, path, { headers: passkey(attacker) });
      expect([method, path, res.status, res.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(attacker) })).data.agents).toEqual([]);
    expect((await api.request('GET', '/api/v1/agents/keys', { key: rotated.data.agentKey })).data.keys).toHaveLength(2); // the attacker rotated nothing
    expect((await claim(attacker, leaked)).code).toBe('FORBIDDEN');

    // a key merely in its grace period does not claim either
    const graced = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: rotated.data.agentKey, body: { graceSeconds: 3600 } })).data;
    expect((await api.request('GET', '/api/v1/agents', { key: rotated.data.agentKey })).status).toBe(200);
    const inGrace = await claim(attacker, rotated.data.agentKey);
    expect([inGrace.status, inGrace.code]).toEqual([403, 'FORBIDDEN']);
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(attacker) })).data.agents).toEqual([]);
    expect((await claim(attacker, graced.agentKey)).status).toBe(201); // the current key still claims
  });

  it('revoking a key from the agent’s side drops a claim; the human’s own revocation does not', async () => {
    const agent = await api.createAgent({ name: 'revoker' });
    const human = await signUp('Rae');
    const me = `/api/v1/humans/me/agents/${agent.agentId}`;
    const claimedBy = async () => (await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(human) })).data.agents.map((a: any) => a.id);
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(human), body: { agentKey: agent.agentKey } })).status).toBe(201);
    // the human rotates with grace 0 and revokes: still its agent
    const byHuman = (await api.request('POST', `${me}/keys/rotate`, { headers: passkey(human), body: { graceSeconds: 0 } })).data;
    const spare = (await api.request('POST', `${me}/keys/rotate`, { headers: passkey(human), body: { graceSeconds: 3600 } })).data;
    expect((await api.request('POST', `${me}/keys/${byHuman.key.id}/revoke`, { headers: passkey(human) })).status).toBe(200);
    expect(await claimedBy()).toEqual([agent.agentId]);
    // the agent rotates with a grace period: still claimed; it revokes a key: released
    const current = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: spare.agentKey, body: { graceSeconds: 60 } })).data;
    expect(await claimedBy()).toEqual([agent.agentId]);
    expect((await api.request('POST', `/api/v1/agents/keys/${spare.key.id}/revoke`, { key: current.agentKey })).status).toBe(200);
    expect(await claimedBy()).toEqual([]);
  });

  it('DELETE /agents/claim: the agent releases a claim itself (key or signature), never with a passkey session', async () => {
    const agent = await api.createAgent({ name: 'self-releasing' });
    const human = await signUp('Sam');
    const release = (headers: Record<string, string>) => api.request('DELETE', '/api/v1/agents/claim', { headers });
    expect((await release({ authorization: `Bearer ${agent.agentKey}` })).data).toEqual({ released: false });
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(human), body: { agentKey: agent.agentKey } })).status).toBe(201);
    const bySession = await release(passkey(human));
    expect([bySession.status, bySession.code]).toEqual([403, 'FORBIDDEN']);
    expect((await release({})).code).toBe('UNAUTHORIZED');
    expect((await release({ authorization: `Bearer ${agent.agentKey}` })).data).toEqual({ released: true });
    expect((await api.request('GET', `/api/v1/humans/me/agents/${agent.agentId}`, { headers: passkey(human) })).code).toBe('NOT_FOUND');
    expect((await release({ authorization: `Bearer ${agent.agentKey}` })).data).toEqual({ released: false });

    // a local agent with its wallet signature
    const wallet = privateKeyToAccount(generatePrivateKey());
    const local = await createAgentWithWallet(api, wallet, { name: 'local self-releasing', mode: 'local' });
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(human), body: { agentKey: local.agentKey } })).status).toBe(201);
    expect((await signedRequest(wallet, 'DELETE', '/api/v1/agents/claim')).data).toEqual({ released: true });
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(human) })).data.agents).toEqual([]);
  });
});

describe('the HTTP edge', () => {
  it('sets security headers on API answers and leaves the Swagger UI working', async () => {
    for (const res of [await fetch(`${server.url}/api/v1/agents`), await fetch(`${server.url}/api/v1/nothing`)]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-security-policy')).toBeNull();
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    const doc = (await (await fetch(`${server.url}/docs/openapi.json`)).json()) as any;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/agents/keys/rotate', '/api/v1/auth/passkey/login/verify', '/api/v1/humans/me/agents']));
  });

  it('caps each route’s body before parsing it, with a message naming the limit', async () => {
    const { agentKey: key, recordId } = await api.createAgent({ name: 'edge' });
    const big = await api.request('POST', '/api/v1/records', { key, body: { name: 'x'.repeat(70 * 1024) } });
    expect([big.status, big.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(big.body.success === false && big.body.error.message).toMatch(/at most 65536 bytes on this endpoint/);
    // remember takes up to 50 KB of content written with JSON escapes
    const escaped = await api.request('POST', `/api/v1/records/${recordId}/remember`, { key, rawBody: `{"content":"${'\\u00e9'.repeat(25_600)}","type":"fact"}`, contentType: 'application/json' });
    expect(escaped.status).toBe(200);
  });
});
