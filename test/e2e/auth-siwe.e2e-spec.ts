/**
 * Sign in with Ethereum for humans end to end (docs/authentication.md, "Sign in with Ethereum (humans)"),
 * over HTTP against a standalone server: a viem local account holding a `local` agent's wallet asks for
 * the message, signs it (`account.signMessage`), gets a passkey session with the agent claimed, uses it
 * on the human routes, adds a passkey to the wallet-only account, and cannot replay the message.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ApiClient, type ApiResponse, createPasskeyDevice } from '@agent-memory/testing';
import { createAgentWithWallet, startStandaloneServer, type TestServer } from '@agent-memory/test-support';

const ORIGIN = 'http://localhost:8080';
let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startStandaloneServer({ env: { PASSKEY_ORIGINS: ORIGIN, PASSKEY_RP_ID: 'localhost', BILLING_MODE: 'ledger' } });
  api = new ApiClient(server.url);
}, 180_000);
afterAll(() => server?.close({ removeData: true }));

const passkey = (token: string) => ({ authorization: `Passkey ${token}` });
const errorMessage = (res: ApiResponse) => (res.body.success ? undefined : res.body.error.message);

describe('Sign in with Ethereum', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  let agentId: string;
  let message: string;
  let signature: string;
  let token: string;
  let humanId: string;

  beforeAll(async () => {
    ({ agentId } = await createAgentWithWallet(api, account, { name: 'wallet agent', mode: 'local' }));
  });

  it('prepares the EIP-4361 message for this deployment and the wallet', async () => {
    const res = await api.request('POST', '/api/v1/auth/siwe/nonce', { headers: { origin: ORIGIN }, body: { address: account.address.toLowerCase() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"client";q=\d+;w=60$/); // the per-client limit, like the passkey ceremonies
    message = res.data.message;
    const lines = message.split('\n');
    expect(lines[0]).toBe(`${server.signatureRealm.domain} wants you to sign in with your Ethereum account:`);
    expect(server.signatureRealm.domain).toBe('localhost:8080');
    expect(lines[1]).toBe(account.address);
    expect(lines).toEqual(expect.arrayContaining([`URI: ${ORIGIN}`, 'Version: 1', `Chain ID: ${server.signatureRealm.chainId}`, `Nonce: ${res.data.nonce}`, `Expiration Time: ${res.data.expiresAt}`]));
    signature = await account.signMessage({ message });
  });

  it('signs in a new wallet-only human with the agent claimed; the session reads GET /humans/me/agents', async () => {
    const res = await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message, signature } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"client";q=\d+;w=60$/);
    expect(res.data).toMatchObject({
      token: expect.stringMatching(/^amk_session_/),
      human: { id: expect.stringMatching(/^hum_/), name: `Wallet ${account.address.slice(0, 6)}…${account.address.slice(-4)}`, passkeys: [] },
      agent: { id: agentId, mode: 'local', walletAddress: account.address, claimedAt: expect.any(String) },
    });
    expect(Date.parse(res.data.expiresAt) - Date.now()).toBeGreaterThan(11.9 * 3600_000);
    ({ token } = res.data);
    humanId = res.data.human.id;
    const agents = await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(token) });
    expect(agents.status).toBe(200);
    expect(agents.data.agents.map((a: { id: string }) => a.id)).toEqual([agentId]);
  });

  it('refuses the same signed message again (the nonce is used up): 401, one line', async () => {
    const res = await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message, signature } });
    expect([res.status, res.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(errorMessage(res)).toBe('The Sign in with Ethereum message could not be verified');
  });

  it('a malformed body is 400; a wallet no agent has is 401', async () => {
    expect((await api.request('POST', '/api/v1/auth/siwe/nonce', { body: { address: 'not-an-address' } })).status).toBe(400);
    expect((await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message, signature: '0x1234' } })).status).toBe(400);
    // an Authorization that is not a valid passkey session: 401 before anything is checked
    expect((await api.request('POST', '/api/v1/auth/siwe/verify', { headers: passkey('amk_session_nope'), body: { message, signature } })).status).toBe(401);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const { message: m } = (await api.request('POST', '/api/v1/auth/siwe/nonce', { body: { address: stranger.address } })).data;
    const res = await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message: m, signature: await stranger.signMessage({ message: m }) } });
    expect([res.status, res.code, errorMessage(res)]).toEqual([401, 'UNAUTHORIZED', 'No agent has this wallet']);
  });

  it('signs in the same human next time; the wallet-only account adds a passkey with its session and signs in with it', async () => {
    const { message: again } = (await api.request('POST', '/api/v1/auth/siwe/nonce', { body: { address: account.address } })).data;
    const second = await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message: again, signature: await account.signMessage({ message: again }) } });
    expect(second.data.human.id).toBe(humanId);

    const device = createPasskeyDevice(ORIGIN);
    const opts = await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(token), body: {} });
    expect(opts.status).toBe(200);
    const added = await api.request('POST', '/api/v1/auth/passkey/register/verify', { headers: passkey(token), body: { response: device.create(opts.data.options) } });
    expect(added.status).toBe(200);
    expect(added.data.human).toMatchObject({ id: humanId, passkeys: [expect.any(Object)] });
    // now that the account has a passkey, its Sign in with Ethereum session may neither add nor delete one
    const more = await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(token), body: {} });
    expect([more.status, more.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorMessage(more)).toMatch(/^Sign in with a passkey to manage passkeys/);
    const drop = await api.request('DELETE', `/api/v1/humans/me/passkeys/${added.data.human.passkeys[0].id}`, { headers: passkey(token) });
    expect([drop.status, drop.code]).toEqual([403, 'FORBIDDEN']);
    const login = (await api.request('POST', '/api/v1/auth/passkey/login/options', { body: {} })).data;
    const withPasskey = await api.request('POST', '/api/v1/auth/passkey/login/verify', { body: { response: device.get(login.options) } });
    expect(withPasskey.data.human.id).toBe(humanId);
    // a passkey session of the same account may
    expect((await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(withPasskey.data.token), body: {} })).status).toBe(200);

    const out = await api.request('POST', '/api/v1/auth/logout', { headers: passkey(token) });
    expect(out.data).toEqual({ loggedOut: true });
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(token) })).status).toBe(401);
  });
});

describe('a wallet does not open its owner’s account', () => {
  const signed = async (account: ReturnType<typeof privateKeyToAccount>, session?: string) => {
    const headers = session ? passkey(session) : {};
    const { message } = (await api.request('POST', '/api/v1/auth/siwe/nonce', { headers, body: { address: account.address } })).data;
    return api.request('POST', '/api/v1/auth/siwe/verify', { headers, body: { message, signature: await account.signMessage({ message }) } });
  };
  async function signUp(name: string) {
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data;
    return (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: createPasskeyDevice(ORIGIN).create(opts.options) } })).data as { token: string; human: { id: string } };
  }

  it('an agent its owner claimed with the key: the wallet alone, or with another human’s session, is 403 and opens no session; the owner signed in may sign with it', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { agentKey } = await createAgentWithWallet(api, account, { name: 'owned agent', mode: 'local' });
    const owner = await signUp('Owner');
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(owner.token), body: { agentKey } })).status).toBe(201);
    const bystander = await signUp('Bystander');
    for (const session of [undefined, bystander.token]) {
      const res = await signed(account, session);
      expect([res.status, res.code, errorMessage(res)]).toEqual([403, 'FORBIDDEN', "This agent belongs to another account; sign in with that account's passkey"]);
      expect(JSON.stringify(res.body)).not.toMatch(/amk_session_/);
    }
    const own = await signed(account, owner.token);
    expect([own.status, own.data.human.id]).toEqual([200, owner.human.id]);
  });

  it('an agent a signed-in human claimed by signing with its wallet: the wallet then signs that human in; after the release, no longer', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { agentId, agentKey } = await createAgentWithWallet(api, account, { name: 'linked agent', mode: 'local' });
    const human = await signUp('Linker');
    expect((await signed(account, human.token)).data.agent.id).toBe(agentId);
    expect((await signed(account)).data.human.id).toBe(human.human.id);
    expect((await api.request('DELETE', `/api/v1/humans/me/agents/${agentId}`, { headers: passkey(human.token) })).status).toBe(200);
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(human.token), body: { agentKey } })).status).toBe(201);
    expect((await signed(account)).code).toBe('FORBIDDEN');
  });

  it('the nonce is bound to who asked: asked with a session, relayed without it or with another’s, is 401', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await createAgentWithWallet(api, account, { name: 'relayed agent', mode: 'local' });
    const [asker, relayer] = [await signUp('Asker'), await signUp('Relayer')];
    for (const [askedWith, sentWith] of [
      [asker.token, undefined],
      [asker.token, relayer.token],
      [undefined, relayer.token],
    ]) {
      const { message } = (await api.request('POST', '/api/v1/auth/siwe/nonce', { headers: askedWith ? passkey(askedWith) : {}, body: { address: account.address } })).data;
      const res = await api.request('POST', '/api/v1/auth/siwe/verify', { headers: sentWith ? passkey(sentWith) : {}, body: { message, signature: await account.signMessage({ message }) } });
      expect([res.status, res.code]).toEqual([401, 'UNAUTHORIZED']);
    }
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(relayer.token) })).data.agents).toEqual([]);
  });

  it('a message longer than 1,024 characters is 400', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = `${'x'.repeat(1025)}`;
    const res = await api.request('POST', '/api/v1/auth/siwe/verify', { body: { message, signature: await account.signMessage({ message }) } });
    expect([res.status, res.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('a Sign in with Ethereum session reaches only the agents of its wallet', () => {
  const OTHER_AGENT = "This session signed in with another agent's wallet; sign in with a passkey to manage this agent";
  const signed = async (account: ReturnType<typeof privateKeyToAccount>, session?: string) => {
    const headers = session ? passkey(session) : {};
    const { message } = (await api.request('POST', '/api/v1/auth/siwe/nonce', { headers, body: { address: account.address } })).data;
    return api.request('POST', '/api/v1/auth/siwe/verify', { headers, body: { message, signature: await account.signMessage({ message }) } });
  };
  async function signUp(name: string) {
    const opts = (await api.request('POST', '/api/v1/auth/passkey/register/options', { body: { name } })).data;
    return (await api.request('POST', '/api/v1/auth/passkey/register/verify', { body: { response: createPasskeyDevice(ORIGIN).create(opts.options) } })).data as { token: string; human: { id: string } };
  }
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

  it('agent A’s wallet signs the owner in, but the session lists and manages A only: every route on agent B is 403 and changes nothing; claiming is 403', async () => {
    // the owner signed in with a passkey linked A's wallet (signing with it) and claimed B with its key; B remembers something
    const walletA = privateKeyToAccount(generatePrivateKey());
    const agentA = await createAgentWithWallet(api, walletA, { name: 'agent A', mode: 'local' });
    const agentB = await api.createAgent({ name: 'agent B' });
    const owner = await signUp('Owner of A and B');
    expect((await signed(walletA, owner.token)).status).toBe(200);
    expect((await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(owner.token), body: { agentKey: agentB.agentKey } })).status).toBe(201);
    await api.request('POST', `/api/v1/records/${agentB.recordId}/remember`, { headers: bearer(agentB.agentKey), body: { content: 'The vault code is 4711.', path: 'secrets/vault' } });
    await api.request('POST', `/api/v1/records/${agentB.recordId}/write`, { headers: bearer(agentB.agentKey), body: { path: 'notes.md', content: 'private' } });

    // agent A's wallet alone (a compromised agent A) signs the owner in
    const byWallet = await signed(walletA);
    expect([byWallet.status, byWallet.data.human.id]).toEqual([200, owner.human.id]);
    const token = byWallet.data.token as string;
    const me = await api.request('GET', '/api/v1/humans/me', { headers: passkey(token) });
    expect(me.data.session).toEqual({ method: 'siwe', walletAddress: walletA.address, expiresAt: byWallet.data.expiresAt });
    expect((await api.request('GET', '/api/v1/humans/me', { headers: passkey(owner.token) })).data.session).toMatchObject({ method: 'passkey', walletAddress: null });
    const listed = await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(token) });
    expect(listed.data.agents.map((a: { id: string }) => a.id)).toEqual([agentA.agentId]);
    const all = await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(owner.token) });
    expect(all.data.agents.map((a: { id: string }) => a.id).sort()).toEqual([agentA.agentId, agentB.agentId].sort());

    const keyIdOfB = (await api.request('GET', `/api/v1/humans/me/agents/${agentB.agentId}/keys`, { headers: passkey(owner.token) })).data.keys[0].id;
    const onB: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', `/api/v1/humans/me/agents/${agentB.agentId}`],
      ['GET', `/api/v1/humans/me/agents/${agentB.agentId}/records`],
      ['GET', `/api/v1/humans/me/agents/${agentB.agentId}/usage`],
      ['GET', `/api/v1/humans/me/agents/${agentB.agentId}/keys`],
      ['POST', `/api/v1/humans/me/agents/${agentB.agentId}/keys/rotate`, { graceSeconds: 0 }],
      ['POST', `/api/v1/humans/me/agents/${agentB.agentId}/keys/${keyIdOfB}/revoke`, {}],
      ['DELETE', `/api/v1/humans/me/agents/${agentB.agentId}`],
      ['GET', `/api/v1/records/${agentB.recordId}`],
      ['GET', `/api/v1/records/${agentB.recordId}/memories`],
      ['GET', `/api/v1/records/${agentB.recordId}/files`],
      ['GET', `/api/v1/records/${agentB.recordId}/context`],
      ['GET', `/api/v1/records/${agentB.recordId}/read?path=notes.md`],
      ['POST', `/api/v1/records/${agentB.recordId}/recall`, { query: 'vault code' }],
      ['DELETE', `/api/v1/records/${agentB.recordId}/remember`, { path: 'secrets/vault' }],
      ['DELETE', `/api/v1/records/${agentB.recordId}`],
    ];
    for (const [method, path, body] of onB) {
      const res = await api.request(method, path, { headers: passkey(token), ...(body ? { body } : {}) });
      expect([method, path, res.status, res.code, errorMessage(res)]).toEqual([method, path, 403, 'FORBIDDEN', OTHER_AGENT]);
    }
    // nothing changed: B is still claimed, its key works, its memory and file are there
    expect((await api.request('GET', `/api/v1/humans/me/agents/${agentB.agentId}`, { headers: passkey(owner.token) })).status).toBe(200);
    const recalled = await api.request('POST', `/api/v1/records/${agentB.recordId}/recall`, { headers: bearer(agentB.agentKey), body: { query: 'vault code' } });
    expect(recalled.data.memories.map((m: { path: string }) => m.path)).toContain('secrets/vault');
    expect((await api.request('GET', `/api/v1/records/${agentB.recordId}/read?path=notes.md`, { headers: bearer(agentB.agentKey) })).status).toBe(200);

    // agent A itself is managed as before
    for (const path of [`/api/v1/humans/me/agents/${agentA.agentId}`, `/api/v1/humans/me/agents/${agentA.agentId}/records`, `/api/v1/humans/me/agents/${agentA.agentId}/keys`, `/api/v1/records/${agentA.recordId}`]) {
      expect([path, (await api.request('GET', path, { headers: passkey(token) })).status]).toEqual([path, 200]);
    }

    // it may not claim another agent with a key
    const agentC = await api.createAgent({ name: 'agent C' });
    const claim = await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(token), body: { agentKey: agentC.agentKey } });
    expect([claim.status, claim.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorMessage(claim)).toMatch(/^Sign in with a passkey to claim more agents/);
    expect((await api.request('GET', '/api/v1/humans/me/agents', { headers: passkey(owner.token) })).data.agents).toHaveLength(2);
  });

  it('a wallet-only account: its session may not claim more agents (with a key or another wallet), and adds its first passkey', async () => {
    const [walletA, walletD] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    await createAgentWithWallet(api, walletA, { name: 'only agent', mode: 'local' });
    const agentD = await createAgentWithWallet(api, walletD, { name: 'agent D', mode: 'local' });
    const token = (await signed(walletA)).data.token as string;
    const byKey = await api.request('POST', '/api/v1/humans/me/agents', { headers: passkey(token), body: { agentKey: agentD.agentKey } });
    expect([byKey.status, byKey.code]).toEqual([403, 'FORBIDDEN']);
    const byWallet = await signed(walletD, token);
    expect([byWallet.status, byWallet.code]).toEqual([403, 'FORBIDDEN']);
    expect(errorMessage(byWallet)).toMatch(/^Sign in with a passkey to claim more agents/);
    expect(JSON.stringify(byWallet.body)).not.toMatch(/amk_session_/);
    // agent D stays unclaimed: its own wallet signs in a new account of its own
    expect((await signed(walletD)).data.agent.id).toBe(agentD.agentId);

    const opts = await api.request('POST', '/api/v1/auth/passkey/register/options', { headers: passkey(token), body: {} });
    expect(opts.status).toBe(200);
    const added = await api.request('POST', '/api/v1/auth/passkey/register/verify', { headers: passkey(token), body: { response: createPasskeyDevice(ORIGIN).create(opts.data.options) } });
    expect([added.status, added.data.human.passkeys.length]).toEqual([200, 1]);
  });
});
