import { ApiClient, createPasskeyDevice } from '@agent-memory/testing';
import { type E2eServer, startE2eServer, walletProof } from '@agent-memory/test-support';
import {
  account,
  type Agent,
  fingerprint,
  type HostileRequest,
  type Refusal,
  reportHostileCount,
  settledFingerprint,
  signatureHeader,
  tryHostile,
  type Watched,
} from './hostile';

/**
 * The world of the security suites (docs/authentication.md): one server and the agents, humans, stored
 * data and replayable requests they attack, the endpoints under test and the hostile calls on them.
 * Rate limits are off so that the hundreds of refusals are answered by the check under test, not by 429
 * (rate limits have their own suite); billing is in ledger mode. After each group the stores must be
 * exactly as before (records, memories, files and raw blobs, keys, claims, usage ledger, vector index).
 * Used by security.e2e-spec.ts (authentication and authorization) and security-input.e2e-spec.ts
 * (input validation); the `Payment` credential cases are in security-payments.e2e-spec.ts.
 */
export const ORIGIN = 'http://localhost:8080';
export let server: E2eServer;
export let api: ApiClient;

export const walletL = account(); // the local agent
export const walletL2 = account(); // another local agent
export const walletC = account(); // a cloud agent's (client-held) wallet
export const stranger = account(); // no agent has it

export let victim: Agent; // live, cloud: the target of most attacks
export let attacker: Agent; // live, cloud
export let tester: Agent; // test environment
export let revoked: Agent; // its only key revoked
export let expired: Agent & { oldKey: string }; // rotated with grace 0
export let local: Agent; // live, local, signs with walletL
export let local2: Agent; // live, local, signs with walletL2
export let cloudWithWallet: Agent;
export let owner: { humanId: string; token: string }; // claimed the victim
export let outsider: { humanId: string; token: string }; // claimed nothing
export let signedOut: { humanId: string; token: string };
export let replays: Array<{ label: string; request: HostileRequest }>;
export let watched: Watched;
export let baseline: Record<string, unknown>;

export async function makeAgent(body: Record<string, unknown>): Promise<Agent> {
  const created = await api.createAgent(body);
  const keyId = (await api.request('GET', '/api/v1/agents/keys', { key: created.agentKey })).data.keys[0].id;
  return { ...created, keyId };
}

export async function signUp(name: string) {
  const device = createPasskeyDevice(ORIGIN);
  const options = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data.options;
  const session = (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: device.create(options) } })).data;
  return { humanId: session.human.id as string, token: session.token as string, device };
}


/**
 * Registers the suite's hooks: `beforeAll` starts the server and builds the world above, `afterEach`
 * asserts that no store changed, `afterAll` prints the hostile cases tried (under `suite`) and stops the
 * server.
 */
export function useSecurityWorld(suite: string): void {
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
    reportHostileCount(suite);
    await server?.close({ removeData: true });
  });
}

// --- the endpoints ---

export type Scope = 'agent' | 'record' | 'raw' | 'human' | 'human-agent';
export interface Endpoint {
  name: string;
  scope: Scope;
  method: string;
  path: (t: { recordId: string; keyId: string; agentId: string }) => string;
  /** A valid body (hostile cases vary it). */
  body?: unknown;
  /** Record reads a claimed agent's human may call with a passkey session. */
  passkeyRead?: boolean;
  /** Erasures (forget, delete record) the human who claimed the agent may make with a passkey session (free; docs/authentication.md). */
  passkeyErase?: boolean;
}

export const ENDPOINTS: Endpoint[] = [
  { name: 'get agent', scope: 'agent', method: 'GET', path: () => '/api/v1/agents' },
  { name: 'list keys', scope: 'agent', method: 'GET', path: () => '/api/v1/agents/keys' },
  { name: 'release claim', scope: 'agent', method: 'DELETE', path: () => '/api/v1/agents/claim' },
  { name: 'rotate key', scope: 'agent', method: 'POST', path: () => '/api/v1/agents/keys/rotate', body: { graceSeconds: 60 } },
  { name: 'revoke key', scope: 'agent', method: 'POST', path: (t) => `/api/v1/agents/keys/${t.keyId}/revoke` },
  { name: 'create record', scope: 'agent', method: 'POST', path: () => '/api/v1/records', body: { name: 'intruder' } },
  { name: 'list records', scope: 'agent', method: 'GET', path: () => '/api/v1/records' },
  { name: 'get record', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}`, passkeyRead: true },
  { name: 'update record', scope: 'record', method: 'PATCH', path: (t) => `/api/v1/records/${t.recordId}`, body: { name: 'pwned' } },
  { name: 'delete record', scope: 'record', method: 'DELETE', path: (t) => `/api/v1/records/${t.recordId}?cascade=true`, passkeyErase: true },
  { name: 'recall', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/recall`, body: { query: 'secret plan' }, passkeyRead: true },
  { name: 'remember', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/remember`, body: { content: 'injected', path: 'plan', type: 'fact' } },
  { name: 'forget', scope: 'record', method: 'DELETE', path: (t) => `/api/v1/records/${t.recordId}/remember?path=plan`, passkeyErase: true },
  { name: 'read file', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/read?path=f.txt`, passkeyRead: true },
  { name: 'write file', scope: 'record', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/write`, body: { path: 'f.txt', content: 'overwritten' } },
  { name: 'context', scope: 'record', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/context`, passkeyRead: true },
  { name: 'raw put', scope: 'raw', method: 'POST', path: (t) => `/api/v1/records/${t.recordId}/raw`, body: { path: 'blob.bin', content: 'AAAA' } },
  { name: 'raw get', scope: 'raw', method: 'GET', path: (t) => `/api/v1/records/${t.recordId}/raw?path=blob.bin` },
  { name: 'me', scope: 'human', method: 'GET', path: () => '/api/v1/humans/me' },
  { name: 'my agents', scope: 'human', method: 'GET', path: () => '/api/v1/humans/me/agents' },
  { name: 'delete passkey', scope: 'human', method: 'DELETE', path: () => '/api/v1/humans/me/passkeys/bm8tc3VjaC1wYXNza2V5' },
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
export const byScope = (...scopes: Scope[]) => ENDPOINTS.filter((e) => scopes.includes(e.scope));
export const targetOf = (a: Agent) => ({ recordId: a.recordId, keyId: a.keyId, agentId: a.agentId });
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const passkey = (token: string) => ({ authorization: `Passkey ${token}` });

/** A hostile call of `e` on `target` with `headers`; JSON body `e.body` unless given. */
export function call(group: string, e: Endpoint, target: Agent, headers: Record<string, string> | undefined, expected: Refusal, label = '') {
  return () => tryHostile(api, group, `${e.name} ${label}`.trim(), { method: e.method, path: e.path(targetOf(target)), headers, body: e.body }, expected);
}

/** A call of `e` on `target` signed by `signer` (over `signed`, which defaults to what is sent). */
export function signedCall(group: string, label: string, e: Endpoint, target: Agent, signer: ReturnType<typeof account>, expected: Refusal, options: { offsetSeconds?: number; address?: string; sign?: { method?: string; path?: string; body?: string }; send?: { path?: string; body?: string } } = {}) {
  return async () => {
    const path = options.send?.path ?? e.path(targetOf(target));
    const body = options.send?.body ?? (e.body === undefined ? undefined : JSON.stringify(e.body));
    // The timestamp is taken when the case runs, not when the list of cases is built.
    const timestamp = Math.floor(Date.now() / 1000) + (options.offsetSeconds ?? 0);
    const header = await signatureHeader(signer, server.signatureRealm, { method: options.sign?.method ?? e.method, path: options.sign?.path ?? path, body: options.sign?.body ?? body }, { timestamp, address: options.address });
    return tryHostile(api, group, `${e.name} ${label}`, { method: e.method, path, headers: { authorization: header }, rawBody: body, contentType: body === undefined ? undefined : 'application/json' }, expected);
  };
}
