import { randomBytes } from 'node:crypto';
import { randomBase62 } from '@agent-memory/shared';
import { ApiClient, createPasskeyDevice, type E2eServer, startE2eServer, walletProof } from '@agent-memory/testing';
import {
  account,
  type Agent,
  expectAllRefused,
  F403,
  fingerprint,
  type HostileRequest,
  N404,
  type Refusal,
  reportHostileCount,
  settledFingerprint,
  signatureHeader,
  tryHostile,
  U401,
  V400,
  type Watched,
} from './security/hostile';

/**
 * The security suite (docs/authentication.md): every case is an attack or a malformed call that must be
 * refused with the right code, and after each group the stores must be exactly as before (records,
 * memories, files and raw blobs, keys, claims, usage ledger, vector index). Rate limits are off here so
 * that the hundreds of refusals are answered by the check under test, not by 429 (rate limits have
 * their own suite); billing is in ledger mode. The `Payment` credential cases are in
 * security-payments.e2e-spec.ts (a server of their own, BILLING_MODE=enforce).
 */
const ORIGIN = 'http://localhost:8080';
let server: E2eServer;
let api: ApiClient;

const walletL = account(); // the local agent
const walletL2 = account(); // another local agent
const walletC = account(); // a cloud agent's (client-held) wallet
const stranger = account(); // no agent has it

let victim: Agent; // live, cloud: the target of most attacks
let attacker: Agent; // live, cloud
let tester: Agent; // test environment
let revoked: Agent; // its only key revoked
let expired: Agent & { oldKey: string }; // rotated with grace 0
let local: Agent; // live, local, signs with walletL
let local2: Agent; // live, local, signs with walletL2
let cloudWithWallet: Agent;
let owner: { humanId: string; token: string }; // claimed the victim
let outsider: { humanId: string; token: string }; // claimed nothing
let signedOut: { humanId: string; token: string };
let replays: Array<{ label: string; request: HostileRequest }>;
let watched: Watched;
let baseline: Record<string, unknown>;

async function makeAgent(body: Record<string, unknown>): Promise<Agent> {
  const created = await api.createAgent(body);
  const keyId = (await api.request('GET', '/api/v1/agents/keys', { key: created.agentKey })).data.keys[0].id;
  return { ...created, keyId };
}

async function signUp(name: string) {
  const device = createPasskeyDevice(ORIGIN);
  const options = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data.options;
  const session = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: device.create(options) } })).data;
  return { humanId: session.human.id as string, token: session.token as string, device };
}

beforeAll(async () => {
  server = await startE2eServer({ env: { RATE_LIMITS: 'off', RATE_LIMITS_ENABLED: 'false', BILLING_MODE: 'ledger', PASSKEY_ORIGINS: ORIGIN, PASSKEY_RP_ID: 'localhost' } });
  api = new ApiClient(server.url);
  victim = await makeAgent({ name: 'victim' });
  attacker = await makeAgent({ name: 'attacker' });
  tester = await makeAgent({ name: 'tester', environment: 'test' });
  revoked = await makeAgent({ name: 'revoked' });
  const e = await makeAgent({ name: 'expired' });
  const rotated = (await api.request('POST', '/api/v1/agents/keys/rotate', { key: e.agentKey, body: { graceSeconds: 0 } })).data;
  expired = { ...e, oldKey: e.agentKey, agentKey: rotated.agentKey };
  local = await makeAgent({ name: 'local', mode: 'local', ...(await walletProof(api, walletL)) });
  local2 = await makeAgent({ name: 'local 2', mode: 'local', ...(await walletProof(api, walletL2)) });
  cloudWithWallet = await makeAgent({ name: 'cloud with wallet', ...(await walletProof(api, walletC)) });

  const v = `/api/v1/records/${victim.recordId}`;
  await api.request('POST', `${v}/remember`, { key: victim.agentKey, body: { content: 'The secret plan is to ship on Friday.', path: 'plan', type: 'fact' } });
  await api.request('POST', `${v}/write`, { key: victim.agentKey, body: { path: 'f.txt', content: 'secret file' } });
  await api.request('POST', '/api/v1/records', { key: victim.agentKey, body: { name: 'child', parentRecordId: victim.recordId } });
  await api.request('POST', `/api/v1/records/${tester.recordId}/remember`, { key: tester.agentKey, body: { content: 'test data', path: 'plan', type: 'fact' } });
  await api.request('POST', `/api/v1/records/${revoked.recordId}/remember`, { key: revoked.agentKey, body: { content: 'revoked agent data', path: 'plan', type: 'fact' } });
  await api.request('POST', `/api/v1/agents/keys/${revoked.keyId}/revoke`, { key: revoked.agentKey });
  const l = `/api/v1/records/${local.recordId}`;
  await api.request('POST', `${l}/remember`, { key: local.agentKey, body: { content: 'local agent memory', path: 'plan', type: 'fact' } });
  await api.request('POST', `${l}/write`, { key: local.agentKey, body: { path: 'f.txt', content: 'local file' } });
  const rawBody = JSON.stringify({ path: 'blob.bin', content: Buffer.from('raw bytes').toString('base64') });
  await api.request('POST', `${l}/raw`, { headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/raw`, body: rawBody }) }, rawBody, contentType: 'application/json' });

  const o = await signUp('owner');
  owner = { humanId: o.humanId, token: o.token };
  expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: { authorization: `Passkey ${owner.token}` }, body: { agentKey: victim.agentKey } })).status).toBe(201);
  const out = await signUp('outsider');
  outsider = { humanId: out.humanId, token: out.token };
  const gone = await signUp('signed out');
  signedOut = { humanId: gone.humanId, token: gone.token };
  await api.request('POST', '/api/v1/auth/logout', { headers: { authorization: `Passkey ${signedOut.token}` } });

  // Requests that succeed once now; their replays below must fail (a past timestamp keeps them distinct from the cases' own signatures).
  const ts = Math.floor(Date.now() / 1000) - 5;
  const ctxPath = `${l}/context`;
  const rememberBody = JSON.stringify({ content: 'written once', path: 'once', type: 'fact' });
  replays = [
    { label: 'replayed GET context', request: { method: 'GET', path: ctxPath, headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'GET', path: ctxPath }, { timestamp: ts }) } } },
    { label: 'replayed remember', request: { method: 'POST', path: `${l}/remember`, rawBody: rememberBody, contentType: 'application/json', headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/remember`, body: rememberBody }, { timestamp: ts }) } } },
  ];
  for (const r of replays) expect((await api.request(r.request.method, r.request.path, { headers: r.request.headers, rawBody: r.request.rawBody, contentType: r.request.contentType })).status).toBe(200);

  watched = { agents: [victim, attacker, tester, revoked, expired, local, local2, cloudWithWallet], humans: [owner.humanId, outsider.humanId, signedOut.humanId] };
  baseline = await settledFingerprint(server, watched);
}, 240_000);

afterEach(async () => {
  // Every group only sends refused requests: nothing in any store may have changed.
  expect(await fingerprint(server, watched)).toEqual(baseline);
});

afterAll(async () => {
  reportHostileCount('security suite');
  await server?.close({ removeData: true });
});

// --- the endpoints ---

type Scope = 'agent' | 'record' | 'raw' | 'human' | 'human-agent';
interface Endpoint {
  name: string;
  scope: Scope;
  method: string;
  path: (t: { recordId: string; keyId: string; agentId: string }) => string;
  /** A valid body (hostile cases vary it). */
  body?: unknown;
  /** Record reads a claimed agent's human may call with a passkey session. */
  passkeyRead?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'get agent', scope: 'agent', method: 'GET', path: () => '/api/v1/agents' },
  { name: 'list keys', scope: 'agent', method: 'GET', path: () => '/api/v1/agents/keys' },
  { name: 'release claim', scope: 'agent', method: 'DELETE', path: () => '/api/v1/agents/claim' },
  { name: 'rotate key', scope: 'agent', method: 'POST', path: () => '/api/v1/agents/keys/rotate', body: { graceSeconds: 60 } },
  { name: 'revoke key', scope: 'agent', method: 'POST', path: (t) => `/api/v1/agents/keys/${t.keyId}/revoke` },
  { name: 'create record', scope: 'agent', method: 'POST', path: () => '/api/v1/records', body: { name: 'intruder' } },
  { name: 'list records', scope: 'agent', method: 'GET', path: () => '/api/v1/records' },
  { name: 'get record', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}`, passkeyRead: true },
  { name: 'update record', scope: 'record', method: 'PATCH', path: (t) => `/api/v1/records/${t.recordId}`, body: { name: 'pwned' } },
  { name: 'delete record', scope: 'record', method: 'DELETE', path: (t) => `/api/v1/records/${t.recordId}?cascade=true` },
  { name: 'recall', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/recall`, body: { query: 'secret plan' }, passkeyRead: true },
  { name: 'remember', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/remember`, body: { content: 'injected', path: 'plan', type: 'fact' } },
  { name: 'forget', scope: 'record', method: 'DELETE', path: (t) => `/api/v1/records/${t.recordId}/remember?path=plan` },
  { name: 'read file', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/read?path=f.txt`, passkeyRead: true },
  { name: 'write file', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/write`, body: { path: 'f.txt', content: 'overwritten' } },
  { name: 'context', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/context`, passkeyRead: true },
  { name: 'raw put', scope: 'raw', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/raw`, body: { path: 'blob.bin', content: 'AAAA' } },
  { name: 'raw get', scope: 'raw', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/raw?path=blob.bin` },
  { name: 'me', scope: 'human', method: 'GET', path: () => '/api/v1/humans/me' },
  { name: 'my agents', scope: 'human', method: 'GET', path: () => '/api/v1/humans/me/agents' },
  { name: 'claim', scope: 'human', method: 'POST', path: () => '/api/v1/humans/me/agents', body: { agentKey: 'amk_live_' + 'A'.repeat(43) } },
  { name: 'logout', scope: 'human', method: 'POST', path: () => '/api/v1/auth/logout' },
  { name: 'claimed agent', scope: 'human-agent', method: 'GET', path: (t) => `/api/v1/humans/me/agents/${t.agentId}` },
  { name: 'release agent', scope: 'human-agent', method: 'DELETE', path: (t) => `/api/v1/humans/me/agents/${t.agentId}` },
  { name: 'agent records', scope: 'human-agent', method: 'GET', path: (t) => `/api/v1/humans/me/agents/${t.agentId}/records` },
  { name: 'agent usage', scope: 'human-agent', method: 'GET', path: (t) => `/api/v1/humans/me/agents/${t.agentId}/usage` },
  { name: 'agent keys', scope: 'human-agent', method: 'GET', path: (t) => `/api/v1/humans/me/agents/${t.agentId}/keys` },
  { name: 'agent key rotate', scope: 'human-agent', method: 'POST', path: (t) => `/api/v1/humans/me/agents/${t.agentId}/keys/rotate` },
  { name: 'agent key revoke', scope: 'human-agent', method: 'POST', path: (t) => `/api/v1/humans/me/agents/${t.agentId}/keys/${t.keyId}/revoke` },
];
const byScope = (...scopes: Scope[]) => ENDPOINTS.filter((e) => scopes.includes(e.scope));
const targetOf = (a: Agent) => ({ recordId: a.recordId, keyId: a.keyId, agentId: a.agentId });
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const passkey = (token: string) => ({ authorization: `Passkey ${token}` });

/** A hostile call of `e` on `target` with `headers`; JSON body `e.body` unless given. */
function call(group: string, e: Endpoint, target: Agent, headers: Record<string, string> | undefined, expected: Refusal, label = '') {
  return () => tryHostile(api, group, `${e.name} ${label}`.trim(), { method: e.method, path: e.path(targetOf(target)), headers, body: e.body }, expected);
}

/** A call of `e` on `target` signed by `signer` (over `signed`, which defaults to what is sent). */
function signedCall(group: string, label: string, e: Endpoint, target: Agent, signer: ReturnType<typeof account>, expected: Refusal, options: { offsetSeconds?: number; address?: string; sign?: { method?: string; path?: string; body?: string }; send?: { path?: string; body?: string } } = {}) {
  return async () => {
    const path = options.send?.path ?? e.path(targetOf(target));
    const body = options.send?.body ?? (e.body === undefined ? undefined : JSON.stringify(e.body));
    // The timestamp is taken when the case runs, not when the list of cases is built.
    const timestamp = Math.floor(Date.now() / 1000) + (options.offsetSeconds ?? 0);
    const header = await signatureHeader(signer, server.signatureRealm, { method: options.sign?.method ?? e.method, path: options.sign?.path ?? path, body: options.sign?.body ?? body }, { timestamp, address: options.address });
    return tryHostile(api, group, `${e.name} ${label}`, { method: e.method, path, headers: { authorization: header }, rawBody: body, contentType: body === undefined ? undefined : 'application/json' }, expected);
  };
}

// --- authentication and authorization ---

describe('every endpoint without credentials, or with malformed, unknown or foreign-scheme ones: 401', () => {
  const badHeaders = (): Array<[string, Record<string, string> | undefined]> => [
    ['no header', undefined],
    ['empty Bearer', { authorization: 'Bearer' }],
    ['malformed key', { authorization: 'Bearer nope' }],
    ['unknown key of the right shape', bearer(`amk_live_${randomBase62(43)}`)],
    ['altered valid key', bearer(`${victim.agentKey.slice(0, -1)}${victim.agentKey.endsWith('A') ? 'B' : 'A'}`)],
    ['key with the wrong environment', bearer(victim.agentKey.replace('_live_', '_test_'))],
    ['Basic scheme', { authorization: 'Basic dXNlcjpwYXNzd29yZA==' }],
    ['unknown session', passkey(`amk_session_${randomBase62(43)}`)],
    ['malformed signature', { authorization: 'Signature garbage' }],
    ['signature with a short signature', { authorization: `Signature ${Math.floor(Date.now() / 1000)}:${walletL.address}:0x1234` }],
  ];
  it('answers UNAUTHORIZED on all of them', async () => {
    const cases = ENDPOINTS.flatMap((e) =>
      badHeaders()
        // a valid-looking Passkey or Signature is a 401 too, except on routes that check the scheme after the session (none here)
        .map(([label, headers]) => call('no or malformed credentials', e, victim, headers, U401, `(${label})`)),
    );
    await expectAllRefused(cases);
  });
});

describe('another agent’s key, revoked and expired keys, a test key on live data', () => {
  it('another agent’s key: its records are NOT_FOUND, its keys NOT_FOUND, the human routes UNAUTHORIZED', async () => {
    await expectAllRefused([
      ...byScope('record').map((e) => call('another agent’s key', e, victim, bearer(attacker.agentKey), N404)),
      call('another agent’s key', ENDPOINTS.find((e) => e.name === 'revoke key')!, victim, bearer(attacker.agentKey), N404),
      ...byScope('raw', 'human', 'human-agent').map((e) => call('another agent’s key', e, victim, bearer(attacker.agentKey), U401)),
    ]);
  });

  it('a revoked key and a key expired after rotation are UNAUTHORIZED everywhere', async () => {
    await expectAllRefused([
      ...byScope('agent', 'record').map((e) => call('revoked key', e, revoked, bearer(revoked.agentKey), U401)),
      ...byScope('agent', 'record').map((e) => call('expired key', e, expired, bearer(expired.oldKey), U401)),
    ]);
  });

  it('a test key is FORBIDDEN on live data and on records that do not exist alike; a live key on test data is NOT_FOUND (no existence oracle)', async () => {
    const nowhere = { ...victim, recordId: 'rec_0000000000000000000000' };
    await expectAllRefused([
      ...byScope('record').map((e) => call('test key on live data', e, victim, bearer(tester.agentKey), F403)),
      ...byScope('record').map((e) => call('test key on a record that does not exist', e, nowhere, bearer(tester.agentKey), F403)),
      ...byScope('record').map((e) => call('live key on test data', e, tester, bearer(attacker.agentKey), N404)),
      ...byScope('record').map((e) => call('live key on a record that does not exist', e, nowhere, bearer(attacker.agentKey), N404)),
    ]);
  });
});

describe('passkey sessions', () => {
  it('reach only the records of claimed agents, read-only, and nothing of an agent’s own routes', async () => {
    await expectAllRefused([
      ...byScope('record').filter((e) => e.passkeyRead).map((e) => call('passkey: unclaimed agent', e, victim, passkey(outsider.token), N404)),
      ...byScope('record').filter((e) => !e.passkeyRead).map((e) => call('passkey: writes', e, victim, passkey(outsider.token), F403, '(outsider)')),
      ...byScope('record').filter((e) => !e.passkeyRead).map((e) => call('passkey: writes', e, victim, passkey(owner.token), F403, '(owner)')),
      ...byScope('agent').map((e) => call('passkey: agent routes', e, victim, passkey(owner.token), F403)),
      ...byScope('raw').map((e) => call('passkey: raw', e, victim, passkey(owner.token), U401)),
      ...byScope('human-agent').map((e) => call('passkey: another human’s agent', e, victim, passkey(outsider.token), N404)),
      ...byScope('human-agent').map((e) => call('passkey: unclaimed agent', e, attacker, passkey(owner.token), N404, '(never claimed)')),
      call('passkey: another agent’s key id', ENDPOINTS.find((e) => e.name === 'agent key revoke')!, { ...victim, keyId: attacker.keyId }, passkey(owner.token), N404),
    ]);
  });

  it('a signed-out session is UNAUTHORIZED everywhere', async () => {
    await expectAllRefused([
      ...byScope('human', 'human-agent').map((e) => call('signed-out session', e, victim, passkey(signedOut.token), U401)),
      ...byScope('record').filter((e) => e.passkeyRead).map((e) => call('signed-out session', e, victim, passkey(signedOut.token), U401)),
    ]);
  });

  it('claims need a valid key of an unowned agent', async () => {
    const claim = (agentKey: string) => ({ method: 'POST', path: '/api/v1/humans/me/agents', headers: passkey(outsider.token), body: { agentKey } });
    await expectAllRefused([
      () => tryHostile(api, 'claims', 'claim an agent another human owns', claim(victim.agentKey), F403),
      () => tryHostile(api, 'claims', 'claim with a revoked key', claim(revoked.agentKey), F403),
      () => tryHostile(api, 'claims', 'claim with an expired key', claim(expired.oldKey), F403),
      () => tryHostile(api, 'claims', 'claim with an unknown key', claim(`amk_live_${randomBase62(43)}`), F403),
    ]);
  });

  it('forged, replayed and mismatched passkey ceremonies are UNAUTHORIZED', async () => {
    const device = createPasskeyDevice(ORIGIN);
    const fresh = async (kind: 'register' | 'login') =>
      (await api.request('POST', `/api/v1/auth/passkey/${kind}/options`, { body: kind === 'register' ? { name: 'mallory' } : {} })).data.options;
    const forgedClientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: randomBytes(32).toString('base64url'), origin: ORIGIN })).toString('base64url');
    const forged = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: forgedClientData, authenticatorData: 'AAAA', signature: 'AAAA' }, clientExtensionResults: {} };
    // a real registration to replay, and a real assertion of the owner's device would need its device: use a new account's
    const regOptions = await fresh('register');
    const registration = device.create(regOptions);
    const mallory = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: registration } })).data;
    await api.request('POST', '/api/v1/auth/logout', { headers: passkey(mallory.token) });
    const loginOptions = await fresh('login');
    const assertion = device.get(loginOptions) as { response: Record<string, string> };
    const used = (await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: assertion } })).data;
    await api.request('POST', '/api/v1/auth/logout', { headers: passkey(used.token) });
    const tampered = device.get(await fresh('login')) as { response: Record<string, string> };
    tampered.response.signature = Buffer.from(randomBytes(70)).toString('base64url');
    const otherOrigin = device.get(await fresh('login'), 'http://evil.localhost:8080');
    const regAsLogin = createPasskeyDevice(ORIGIN).create(await fresh('register'));
    const verify = (kind: string, response: unknown) => ({ method: 'POST', path: `/api/v1/auth/passkey/${kind}/verify`, body: { response } });
    await expectAllRefused([
      () => tryHostile(api, 'passkey ceremonies', 'forged assertion', verify('login', forged), U401),
      () => tryHostile(api, 'passkey ceremonies', 'forged registration', verify('register', { ...forged, response: { clientDataJSON: forgedClientData, attestationObject: 'AAAA' } }), U401),
      () => tryHostile(api, 'passkey ceremonies', 'replayed registration', verify('register', registration), U401),
      () => tryHostile(api, 'passkey ceremonies', 'replayed assertion', verify('login', assertion), U401),
      () => tryHostile(api, 'passkey ceremonies', 'assertion with a tampered signature', verify('login', tampered), U401),
      () => tryHostile(api, 'passkey ceremonies', 'assertion from another origin', verify('login', otherOrigin), U401),
      () => tryHostile(api, 'passkey ceremonies', 'a registration posted as a sign-in', verify('login', regAsLogin), U401),
      () => tryHostile(api, 'passkey ceremonies', 'register options with a bad session', { method: 'POST', path: '/api/v1/auth/passkey/register/options', headers: passkey(`amk_session_${randomBase62(43)}`), body: {} }, U401),
      () => tryHostile(api, 'passkey ceremonies', 'register options with a Bearer key', { method: 'POST', path: '/api/v1/auth/passkey/register/options', headers: bearer(victim.agentKey), body: { name: 'x' } }, U401),
    ]);
  });
});

describe('wallet signatures', () => {
  const signatureEndpoints = () => byScope('agent', 'record', 'raw');
  const now = () => Math.floor(Date.now() / 1000);

  it('forged, expired, future-dated, foreign-wallet and cloud-wallet signatures are refused on every endpoint that takes them', async () => {
    const forgedHeader = (e: Endpoint) => ({ authorization: `Signature ${now()}:${walletL.address}:0x${randomBytes(65).toString('hex')}` });
    await expectAllRefused(
      signatureEndpoints().flatMap((e) => [
        () => tryHostile(api, 'signatures', `${e.name} (forged)`, { method: e.method, path: e.path(targetOf(local)), headers: forgedHeader(e), body: e.body }, U401),
        signedCall('signatures', '(expired: 302 s old)', e, local, walletL, U401, { offsetSeconds: -302 }),
        signedCall('signatures', '(future-dated: +302 s)', e, local, walletL, U401, { offsetSeconds: 302 }),
        signedCall('signatures', '(a wallet no agent has)', e, local, stranger, U401),
        signedCall('signatures', '(signed by a stranger, claiming the agent’s address)', e, local, stranger, U401, { address: walletL.address }),
        signedCall('signatures', '(a cloud agent’s wallet)', e, cloudWithWallet, walletC, F403),
        ...(e.scope === 'agent' ? [] : [signedCall('signatures', '(the local agent on another agent’s record)', e, victim, walletL, N404), signedCall('signatures', '(another local agent’s wallet)', e, local, walletL2, N404)]),
      ]),
    );
  });

  it('a signature over another method, path, query or body is refused', async () => {
    const withBody = signatureEndpoints().filter((e) => e.body !== undefined);
    const other = `/api/v1/records/${local2.recordId}`;
    const e = (name: string) => ENDPOINTS.find((x) => x.name === name)!;
    await expectAllRefused([
      ...withBody.map((x) => signedCall('signatures', '(body tampered)', x, local, walletL, U401, { sign: { body: JSON.stringify({ ...(x.body as object), tampered: 1 }) } })),
      ...byScope('record', 'raw').map((x) => signedCall('signatures', '(signed for another record)', x, local, walletL, U401, { sign: { path: x.path(targetOf(local2)) } })),
      signedCall('signatures', '(signed as GET)', e('delete record'), local, walletL, U401, { sign: { method: 'GET' } }),
      signedCall('signatures', '(signed as GET)', e('forget'), local, walletL, U401, { sign: { method: 'GET' } }),
      signedCall('signatures', '(signed as PUT)', e('write file'), local, walletL, U401, { sign: { method: 'PUT' } }),
      signedCall('signatures', '(query tampered)', e('read file'), local, walletL, U401, { sign: { path: `/api/v1/records/${local.recordId}/read?path=other.txt` } }),
      signedCall('signatures', '(query tampered)', e('raw get'), local, walletL, U401, { sign: { path: `/api/v1/records/${local.recordId}/raw?path=other.bin` } }),
      signedCall('signatures', '(query tampered)', e('forget'), local, walletL, U401, { sign: { path: `/api/v1/records/${local.recordId}/remember?path=other` } }),
      signedCall('signatures', '(query added)', e('context'), local, walletL, U401, { sign: { path: `/api/v1/records/${local.recordId}/context?limit=1` } }),
      signedCall('signatures', '(path tampered)', e('get record'), local, walletL, U401, { sign: { path: other } }),
    ]);
  });

  it('a replayed signature is refused, also re-encoded (v as 00/01, high s)', async () => {
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n; // secp256k1's group order
    const reencoded = (header: string, how: 'v' | 's') => {
      const [scheme, sig] = [header.slice(0, header.lastIndexOf(':') + 1), header.slice(header.lastIndexOf(':') + 1)];
      const r = sig.slice(2, 66);
      const v = sig.slice(130);
      if (how === 'v') return `${scheme}0x${r}${sig.slice(66, 130)}${v === '1b' ? '00' : '01'}`;
      return `${scheme}0x${r}${(N - BigInt(`0x${sig.slice(66, 130)}`)).toString(16).padStart(64, '0')}${v === '1b' ? '1c' : '1b'}`;
    };
    await expectAllRefused(
      replays.flatMap((r) => [
        () => tryHostile(api, 'signatures', r.label, r.request, U401),
        ...(['v', 's'] as const).map((how) => () =>
          tryHostile(api, 'signatures', `${r.label} (${how === 'v' ? 'v as 00/01' : 'high s'})`, { ...r.request, headers: { authorization: reencoded(r.request.headers!.authorization!, how) } }, U401)),
      ]),
    );
  });

  it('signatures do not open the human routes', async () => {
    await expectAllRefused(byScope('human', 'human-agent').map((e) => signedCall('signatures', '(on a human route)', e, local, walletL, U401)));
  });
});

// --- input validation ---

const TRAVERSAL_AND_CONTROL = [
  '../x', 'a/../../etc/passwd', '..', './a', 'a/./b', '/etc/passwd', 'a//b', 'a/', '', 'a\\b', '..\\..\\windows',
  'a\u0000b', 'a\u0007b', 'a\u001bb', 'a\nb', 'a\rb', 'a\tb', 'a\u007fb', 'a\u0085b', 'x'.repeat(257),
];

describe('path traversal and control characters in every path field', () => {
  it('answers VALIDATION_ERROR for memory, file and raw paths in bodies and query strings', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const l = `/api/v1/records/${local.recordId}`;
    const q = (p: string) => encodeURIComponent(p);
    const k = bearer(victim.agentKey);
    const cases = TRAVERSAL_AND_CONTROL.flatMap((p) => [
      () => tryHostile(api, 'paths', `remember path ${JSON.stringify(p)}`, { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', path: p } }, V400),
      () => tryHostile(api, 'paths', `forget body path ${JSON.stringify(p)}`, { method: 'DELETE', path: `${v}/remember`, headers: k, body: { path: p } }, V400),
      () => tryHostile(api, 'paths', `forget query path ${JSON.stringify(p)}`, { method: 'DELETE', path: `${v}/remember?path=${q(p)}`, headers: k }, V400),
      () => tryHostile(api, 'paths', `read query path ${JSON.stringify(p)}`, { method: 'GET', path: `${v}/read?path=${q(p)}`, headers: k }, V400),
      () => tryHostile(api, 'paths', `write path ${JSON.stringify(p)}`, { method: 'POST', path: `${v}/write`, headers: k, body: { path: p, content: 'x' } }, V400),
      async () => {
        const body = JSON.stringify({ path: p, content: 'AAAA' });
        const headers = { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/raw`, body }) };
        return tryHostile(api, 'paths', `raw put path ${JSON.stringify(p)}`, { method: 'POST', path: `${l}/raw`, headers, rawBody: body, contentType: 'application/json' }, V400);
      },
      async () => {
        const path = `${l}/raw?path=${q(p)}`;
        return tryHostile(api, 'paths', `raw get query path ${JSON.stringify(p)}`, { method: 'GET', path, headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'GET', path }) } }, V400);
      },
    ]);
    // encoded traversal in the query string, and a forget id that is not an id
    cases.push(
      () => tryHostile(api, 'paths', 'read %2e%2e%2f', { method: 'GET', path: `${v}/read?path=%2e%2e%2fetc%2fpasswd`, headers: k }, V400),
      () => tryHostile(api, 'paths', 'read %00', { method: 'GET', path: `${v}/read?path=f.txt%00.md`, headers: k }, V400),
      () => tryHostile(api, 'paths', 'forget id traversal', { method: 'DELETE', path: `${v}/remember`, headers: k, body: { id: '../mem_x' } }, V400),
      () => tryHostile(api, 'paths', 'forget id with control character', { method: 'DELETE', path: `${v}/remember?id=mem_a%07b`, headers: k }, V400),
    );
    await expectAllRefused(cases);
  });

  it('answers VALIDATION_ERROR for NUL and control characters in stored text (names, tags, categories, idempotency keys, memory content)', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const c = (label: string, request: HostileRequest) => () => tryHostile(api, 'control characters in text', label, request, V400);
    await expectAllRefused(
      ['\u0000', '\u0007', '\n', '\u001b', '\u007f', '\u0085'].flatMap((ch) => {
        const x = JSON.stringify(ch);
        return [
          c(`agent name with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: `a${ch}b` } }),
          c(`agent tag with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: 'a', tags: [`t${ch}`] } }),
          c(`agent category with ${x}`, { method: 'POST', path: '/api/v1/agents', body: { name: 'a', category: `c${ch}` } }),
          c(`record name with ${x}`, { method: 'POST', path: '/api/v1/records', headers: k, body: { name: `a${ch}b` } }),
          c(`record rename with ${x}`, { method: 'PATCH', path: v, headers: k, body: { name: `a${ch}b` } }),
          c(`record tag with ${x}`, { method: 'PATCH', path: v, headers: k, body: { tags: [`t${ch}`] } }),
          c(`record category with ${x}`, { method: 'PATCH', path: v, headers: k, body: { category: `c${ch}` } }),
          c(`remember idempotency key with ${x}`, { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', idempotency_key: `k${ch}` } }),
          c(`write idempotency key with ${x}`, { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'f.txt', content: 'x', idempotency_key: `k${ch}` } }),
          c(`human name with ${x}`, { method: 'POST', path: '/api/v1/auth/passkey/register/options', body: { name: `h${ch}` } }),
        ];
      }).concat([c('memory content with NUL', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'hello\u0000world' } })]),
    );
  });

  it('answers NOT_FOUND for traversal and control characters in record, key and agent ids of the URL', async () => {
    const k = bearer(victim.agentKey);
    const ids = ['..%2F..%2Fetc%2Fpasswd', '%2e%2e', 'rec_abc%00', 'rec_a%07b', `${victim.recordId}%2F..%2F${attacker.recordId}`, `rec_${'a'.repeat(90)}`, 'rec_%E2%80%AE', '%20'];
    await expectAllRefused([
      ...ids.flatMap((id) => [
        () => tryHostile(api, 'ids in the URL', `context of record ${id}`, { method: 'GET', path: `/api/v1/records/${id}/context`, headers: k }, N404),
        () => tryHostile(api, 'ids in the URL', `update record ${id}`, { method: 'PATCH', path: `/api/v1/records/${id}`, headers: k, body: { name: 'x' } }, N404),
        () => tryHostile(api, 'ids in the URL', `revoke key ${id}`, { method: 'POST', path: `/api/v1/agents/keys/${id.replace('rec_', 'key_')}/revoke`, headers: k }, N404),
        () => tryHostile(api, 'ids in the URL', `claimed agent ${id}`, { method: 'GET', path: `/api/v1/humans/me/agents/${id.replace('rec_', 'agt_')}/keys`, headers: passkey(owner.token) }, N404),
      ]),
    ]);
  });
});

describe('sizes and counts at the documented limits', () => {
  it('refuses one byte or one item more than each limit', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const KB50 = 50 * 1024;
    const MB = 1024 * 1024;
    const l = `/api/v1/records/${local.recordId}`;
    const rawTooBig = JSON.stringify({ path: 'big.bin', content: Buffer.alloc(MB + 1).toString('base64') });
    const c = (label: string, request: HostileRequest) => () => tryHostile(api, 'sizes and counts', label, request, V400);
    await expectAllRefused([
      c('memory content 50 KB + 1 byte', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x'.repeat(KB50 + 1) } }),
      c('memory content 50 KB + 1 byte of 2-byte characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'é'.repeat(KB50 / 2) + 'x' } }),
      c('empty memory content', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: '' } }),
      c('file content 1 MB + 1 byte', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'big', content: 'x'.repeat(MB + 1) } }),
      c('file content 1 MB + 1 byte of 3-byte characters', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'big', content: '€'.repeat(MB / 3 + 1) } }),
      async () => c('raw blob 1 MB + 1 byte', { method: 'POST', path: `${l}/raw`, headers: { authorization: await signatureHeader(walletL, server.signatureRealm, { method: 'POST', path: `${l}/raw`, body: rawTooBig }) }, rawBody: rawTooBig, contentType: 'application/json' })(),
      c('recall query of 1,001 characters', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'q'.repeat(1001) } }),
      c('empty recall query', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: '' } }),
      c('recall limit 51', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'x', limit: 51 } }),
      c('recall limit 0', { method: 'POST', path: `${v}/recall`, headers: k, body: { query: 'x', limit: 0 } }),
      c('11 tags on create record', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('11 tags on update record', { method: 'PATCH', path: v, headers: k, body: { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('11 tags on create agent', { method: 'POST', path: '/api/v1/agents', body: { name: 'x', tags: Array.from({ length: 11 }, (_, i) => `t${i}`) } }),
      c('a tag of 65 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', tags: ['t'.repeat(65)] } }),
      c('record name of 129 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'n'.repeat(129) } }),
      c('empty record name', { method: 'PATCH', path: v, headers: k, body: { name: '' } }),
      c('agent name of 129 characters', { method: 'POST', path: '/api/v1/agents', body: { name: 'n'.repeat(129) } }),
      c('category of 33 characters', { method: 'POST', path: '/api/v1/records', headers: k, body: { name: 'x', category: 'c'.repeat(33) } }),
      c('memory path of 257 characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', path: 'p'.repeat(257) } }),
      c('file path of 257 characters', { method: 'POST', path: `${v}/write`, headers: k, body: { path: 'p'.repeat(257), content: 'x' } }),
      c('idempotency key of 256 characters', { method: 'POST', path: `${v}/remember`, headers: k, body: { content: 'x', idempotency_key: 'k'.repeat(256) } }),
      c('context ?limit=201', { method: 'GET', path: `${v}/context?limit=201`, headers: k }),
      c('list records ?limit=101', { method: 'GET', path: '/api/v1/records?limit=101', headers: k }),
      c('rotation grace of 7 days + 1 s', { method: 'POST', path: '/api/v1/agents/keys/rotate', headers: k, body: { graceSeconds: 604_801 } }),
      c('claim key of 513 characters', { method: 'POST', path: '/api/v1/humans/me/agents', headers: passkey(outsider.token), body: { agentKey: 'a'.repeat(513) } }),
      c('human name of 65 characters', { method: 'POST', path: '/api/v1/auth/passkey/register/options', body: { name: 'n'.repeat(65) } }),
    ]);
  });
});

// --- the body itself ---

interface BodyRoute {
  name: string;
  method: string;
  path: () => string;
  headers: () => Promise<Record<string, string>> | Record<string, string>;
  valid: Record<string, unknown>;
  /** Fields with a value of the wrong type each. */
  wrongTypes: Array<Record<string, unknown>>;
  /** Whether the signature must cover the (hostile) body. */
  signed?: boolean;
}

const BODY_ROUTES = (): BodyRoute[] => {
  const v = `/api/v1/records/${victim.recordId}`;
  const k = () => bearer(victim.agentKey);
  return [
    { name: 'create agent', method: 'POST', path: () => '/api/v1/agents', headers: () => ({}), valid: { name: 'x' }, wrongTypes: [{ name: 1 }, { name: 'x', mode: 2 }, { name: 'x', tags: [3] }, { name: 'x', tags: 'a' }, { name: 'x', category: 4 }, { name: 'x', walletAddress: 5 }, { name: 'x', environment: 6 }, { name: ['x'] }, { name: 'x', walletAddress: walletL.address, walletProof: 7 }, { name: 'x', walletAddress: walletL.address, walletProof: { message: 8, signature: `0x${'a'.repeat(130)}` } }] },
    { name: 'wallet challenge', method: 'POST', path: () => '/api/v1/agents/wallet-challenge', headers: () => ({}), valid: { walletAddress: walletL.address }, wrongTypes: [{ walletAddress: 1 }, { walletAddress: [walletL.address] }, { walletAddress: null }] },
    { name: 'create record', method: 'POST', path: () => '/api/v1/records', headers: k, valid: { name: 'x' }, wrongTypes: [{ name: 42 }, { name: 'x', tags: [1] }, { name: 'x', category: 7 }, { name: 'x', parentRecordId: 5 }, { name: null }, { name: { $gt: '' } }] },
    { name: 'update record', method: 'PATCH', path: () => v, headers: k, valid: { name: 'x' }, wrongTypes: [{ name: 1 }, { tags: [2] }, { parentRecordId: 3 }, { category: false }] },
    { name: 'recall', method: 'POST', path: () => `${v}/recall`, headers: k, valid: { query: 'x' }, wrongTypes: [{ query: 1 }, { query: 'x', limit: '5' }, { query: 'x', limit: 1.5 }, { query: 'x', types: 'fact' }, { query: 'x', types: [1] }, { query: ['x'] }] },
    { name: 'remember', method: 'POST', path: () => `${v}/remember`, headers: k, valid: { content: 'x' }, wrongTypes: [{ content: 12 }, { content: 'x', type: 3 }, { content: 'x', path: 4 }, { content: 'x', idempotency_key: 5 }, { content: ['x'] }, { content: { toString: 'x' } }] },
    { name: 'forget (body)', method: 'DELETE', path: () => `${v}/remember`, headers: k, valid: { path: 'plan' }, wrongTypes: [{ path: 1 }, { id: 2 }, { path: ['plan'] }] },
    { name: 'write file', method: 'POST', path: () => `${v}/write`, headers: k, valid: { path: 'f.txt', content: 'x' }, wrongTypes: [{ path: 1, content: 'x' }, { path: 'f.txt', content: 2 }, { path: 'f.txt', content: 'x', idempotency_key: 3 }, { path: 'f.txt', content: null }] },
    { name: 'rotate key', method: 'POST', path: () => '/api/v1/agents/keys/rotate', headers: k, valid: {}, wrongTypes: [{ graceSeconds: '60' }, { graceSeconds: 1.5 }, { graceSeconds: null }] },
    { name: 'claim', method: 'POST', path: () => '/api/v1/humans/me/agents', headers: () => passkey(outsider.token), valid: { agentKey: victim.agentKey }, wrongTypes: [{ agentKey: 123 }, { agentKey: [victim.agentKey] }] },
    { name: 'register options', method: 'POST', path: () => '/api/v1/auth/passkey/register/options', headers: () => ({}), valid: { name: 'x' }, wrongTypes: [{ name: 1 }] },
    { name: 'login verify', method: 'POST', path: () => '/api/v1/auth/passkey/login/verify', headers: () => ({}), valid: { response: { id: 'AA', rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA' } } }, wrongTypes: [{ response: 'x' }, { response: { id: 1, rawId: 'AA', type: 'public-key', response: { clientDataJSON: 'AA' } } }] },
    { name: 'raw put', method: 'POST', path: () => `/api/v1/records/${local.recordId}/raw`, headers: () => ({}), valid: { path: 'b.bin', content: 'AAAA' }, wrongTypes: [{ path: 1, content: 'AAAA' }, { path: 'b.bin', content: 2 }, { path: 'b.bin', content: 'AAAA', contentType: 3 }, { path: 'b.bin', content: 'not base64!' }], signed: true },
  ];
};

/** Sends a raw body to a body route (signing it for the raw route). */
async function rawCase(group: string, r: BodyRoute, label: string, rawBody: string | Buffer, contentType: string | undefined, expected: Refusal) {
  let headers = await r.headers();
  if (r.signed) headers = { authorization: await signatureHeader(walletL, server.signatureRealm, { method: r.method, path: r.path(), body: rawBody.toString() }) };
  return tryHostile(api, group, `${r.name}: ${label}`, { method: r.method, path: r.path(), headers, rawBody, contentType }, expected);
}

describe('bodies: oversized, malformed JSON, wrong content types, unknown fields, wrong types', () => {
  it('refuses bodies over each route’s cap before parsing them', async () => {
    const caps: Record<string, number> = { remember: 380 * 1024, 'write file': 6.2 * 1024 * 1024, 'raw put': 1.5 * 1024 * 1024 };
    await expectAllRefused(
      BODY_ROUTES().map((r) => () => rawCase('oversized bodies', r, 'over the body cap', JSON.stringify({ ...r.valid, pad: 'x'.repeat(caps[r.name] ?? 70 * 1024) }), 'application/json', V400)),
    );
  });

  it('refuses malformed JSON and JSON that is not an object', async () => {
    const bad = ['{"name": ', "{'name':'x'}", '{"name":"x"}x', '{"name":"x",}', 'nul', '{', '[1,2]', '"text"', '42', 'null', 'true', '['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(2000) + '1' + '}'.repeat(2000)];
    await expectAllRefused(BODY_ROUTES().flatMap((r) => bad.map((b) => () => rawCase('malformed JSON', r, JSON.stringify(b.slice(0, 20)), b, 'application/json', V400))));
  });

  it('refuses a body of another content type', async () => {
    const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/octet-stream', 'application/jsonx', 'text/json'];
    const form = (valid: Record<string, unknown>) => new URLSearchParams(Object.entries(valid).filter(([, v]) => typeof v === 'string') as Array<[string, string]>).toString();
    await expectAllRefused(
      BODY_ROUTES().flatMap((r) => [
        ...types.map((t) => () => rawCase('wrong content type', r, t, JSON.stringify(r.valid), t, V400)),
        // what an HTML form on any site could post without a CORS preflight
        ...(form(r.valid) ? [() => rawCase('wrong content type', r, 'a form-encoded body', form(r.valid), 'application/x-www-form-urlencoded', V400)] : []),
        () => rawCase('wrong content type', r, 'a JSON body without Content-Type', Buffer.from(JSON.stringify(r.valid)), undefined, V400),
      ]),
    );
  });

  it('refuses unknown fields, prototype pollution and numbers (or other types) where strings belong', async () => {
    await expectAllRefused(
      BODY_ROUTES().flatMap((r) => [
        () => rawCase('unknown fields', r, 'an unknown field', JSON.stringify({ ...r.valid, admin: true }), 'application/json', V400),
        () => rawCase('unknown fields', r, '__proto__', `{"__proto__":{"admin":true},${JSON.stringify(r.valid).slice(1)}`.replace(',}', '}'), 'application/json', V400),
        () => rawCase('unknown fields', r, 'constructor.prototype', `{"constructor":{"prototype":{"admin":true}}${JSON.stringify(r.valid) === '{}' ? '' : ','}${JSON.stringify(r.valid).slice(1)}`, 'application/json', V400),
        ...r.wrongTypes.map((w) => () => rawCase('wrong types', r, JSON.stringify(w).slice(0, 60), JSON.stringify(w), 'application/json', V400)),
      ]),
    );
  });

  it('refuses unknown, repeated and non-numeric query parameters', async () => {
    const v = `/api/v1/records/${victim.recordId}`;
    const k = bearer(victim.agentKey);
    const me = `/api/v1/humans/me/agents/${victim.agentId}`;
    const c = (label: string, path: string, headers: Record<string, string> = k, method = 'GET') => () => tryHostile(api, 'query strings', label, { method, path, headers }, V400);
    await expectAllRefused([
      c('list records ?extra', '/api/v1/records?extra=1'),
      c('list records ?limit=abc', '/api/v1/records?limit=abc'),
      c('list records ?limit=1.5', '/api/v1/records?limit=1.5'),
      c('list records ?offset=-1', '/api/v1/records?offset=-1'),
      c('list records ?limit=1e3', '/api/v1/records?limit=1e3'),
      c('context ?extra', `${v}/context?extra=1`),
      c('context ?limit=0x10', `${v}/context?limit=0x10`),
      c('read ?path twice', `${v}/read?path=f.txt&path=g.txt`),
      c('read ?extra', `${v}/read?path=f.txt&extra=1`),
      c('read without path', `${v}/read`),
      c('forget ?path and ?id', `${v}/remember?path=plan&id=mem_x`, k, 'DELETE'),
      c('forget ?extra', `${v}/remember?path=plan&extra=1`, k, 'DELETE'),
      c('delete record ?cascade=yes', `${v}?cascade=yes`, k, 'DELETE'),
      c('human: agent records ?extra', `${me}/records?extra=1`, passkey(owner.token)),
      c('human: agent usage ?limit=0', `${me}/usage?limit=0`, passkey(owner.token)),
      c('human: agent usage ?operation=steal', `${me}/usage?operation=steal`, passkey(owner.token)),
    ]);
  });
});
