/**
 * The security suite (docs/authentication.md), authentication and authorization: every case is an attack
 * that must be refused with the right code (missing, malformed, foreign, revoked and expired credentials,
 * passkey sessions, wallet signatures), and after each group the stores must be exactly as before
 * (security/world.ts). Input validation is in security-input.e2e-spec.ts; the `Payment` credential
 * cases are in security-payments.e2e-spec.ts (a server of their own, BILLING_MODE=enforce).
 */
import { randomBytes } from 'node:crypto';
import { randomBase62 } from '@agent-memory/shared';
import { createPasskeyDevice } from '@agent-memory/testing';
import { expectAllRefused, F403, N404, tryHostile, U401 } from './security/hostile';
import {
  ORIGIN,
  api,
  walletL,
  walletL2,
  walletC,
  stranger,
  victim,
  attacker,
  tester,
  revoked,
  expired,
  local,
  local2,
  cloudWithWallet,
  owner,
  outsider,
  signedOut,
  replays,
  type Endpoint,
  ENDPOINTS,
  byScope,
  targetOf,
  bearer,
  passkey,
  call,
  signedCall,
} from './security/world';
import { useSecurityWorld } from './security/world';

useSecurityWorld('security suite');

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
  it('reach only the records of claimed agents, to read and erase (the owner’s erasures are tested in humans-dashboard.e2e-spec.ts), and nothing of an agent’s own routes', async () => {
    await expectAllRefused([
      ...byScope('record').filter((e) => e.passkeyRead || e.passkeyErase).map((e) => call('passkey: unclaimed agent', e, victim, passkey(outsider.token), N404)),
      ...byScope('record').filter((e) => !e.passkeyRead && !e.passkeyErase).map((e) => call('passkey: writes', e, victim, passkey(outsider.token), F403, '(outsider)')),
      ...byScope('record').filter((e) => !e.passkeyRead && !e.passkeyErase).map((e) => call('passkey: writes', e, victim, passkey(owner.token), F403, '(owner)')),
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
      ...byScope('record').filter((e) => e.passkeyRead || e.passkeyErase).map((e) => call('signed-out session', e, victim, passkey(signedOut.token), U401)),
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
    const forgedHeader = (_e: Endpoint) => ({ authorization: `Signature ${now()}:${walletL.address}:0x${randomBytes(65).toString('hex')}` });
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
          tryHostile(api, 'signatures', `${r.label} (${how === 'v' ? 'v as 00/01' : 'high s'})`, { ...r.request, headers: { authorization: reencoded(r.request.headers!.authorization, how) } }, U401)),
      ]),
    );
  });

  it('signatures do not open the human routes', async () => {
    await expectAllRefused(byScope('human', 'human-agent').map((e) => signedCall('signatures', '(on a human route)', e, local, walletL, U401)));
  });
});
