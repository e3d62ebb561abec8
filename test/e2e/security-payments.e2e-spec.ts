import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { PaymentEnvSchema, paymentOptionsFromEnv, PaymentProtocol } from '@agent-memory/gateway';
import { BUS_TRANSPORT_CLIENT, FilesystemBlobStore } from '@agent-memory/platform';
import { ApiClient, OperatorBusClient } from '@agent-memory/testing';
import { type E2eServer, e2eMode, LocalPaymentSettlement, PaymentTestClient, startE2eServer, startStandaloneServer, TestChainRpcServer } from '@agent-memory/test-support';
import { account, type Agent, expectAllRefused, F403, fingerprint, N404, type Refusal, reportHostileCount, settledFingerprint, tryHostile, U401, type Watched } from './security/hostile';

/**
 * The security suite's payment part (docs/billing.md; the rest is in security.e2e-spec.ts): a server
 * with BILLING_MODE=enforce (standalone: a LocalPaymentSettlement injected in place of the chain; cluster:
 * the gateway process's own chain settlement against a {@link TestChainRpcServer}) is sent replayed,
 * under-priced, misdirected, expired, tampered, foreign-wallet and malformed `Payment` credentials. Each
 * must be refused, and after each group nothing may have changed in any store nor any money have moved.
 * A file of its own so that a cluster run holds one cluster at a time.
 */

afterAll(() => reportHostileCount('security suite (payment credentials)'));

/** Settlements a payment server made, whichever settles them: a local settlement or the test chain. */
interface SettlementView {
  readonly settled: readonly unknown[];
  totalBaseUnits(): bigint;
}

/**
 * A second server for the payment cases, in the suite's mode, seen through the same {@link E2eServer} view
 * as the suite's own, with what it settled. Standalone: `local` is injected as its settlement. Cluster: the
 * gateway process settles on a {@link TestChainRpcServer} through its real chain adapter
 * (PAYMENT_RPC_URL, a settler key), and the view is the chain's.
 */
async function startPaymentServer(env: Record<string, string>, local: LocalPaymentSettlement): Promise<{ server: E2eServer; settlements: SettlementView; close(): Promise<void> }> {
  if (e2eMode() === 'cluster') {
    const chain = await TestChainRpcServer.start();
    const server = await startE2eServer({ mode: 'cluster', env: { ...env, PAYMENT_RPC_URL: chain.url, PAYMENT_SETTLER_PRIVATE_KEY: generatePrivateKey() } }).catch(async (err) => {
      await chain.close();
      throw err;
    });
    return { server, settlements: chain, close: async () => void (await Promise.allSettled([server.close({ removeData: true }), chain.close()])) };
  }
  const s = await startStandaloneServer({ env, paymentSettlement: local });
  const blobs = new FilesystemBlobStore(join(s.dataDir, 'blobs'));
  const server: E2eServer = {
    mode: 'standalone',
    url: s.url,
    blobKeys: (prefix) => blobs.list(prefix),
    vectorIndexDir: join(s.dataDir, 'vectors'),
    signatureRealm: s.signatureRealm,
    bus: () => new OperatorBusClient(s.app.get(BUS_TRANSPORT_CLIENT), 30_000),
    restart: () => Promise.reject(new Error('the payment server is not restarted')),
    close: (o) => s.close(o),
  };
  return { server, settlements: local, close: () => s.close({ removeData: true }) };
}

type WireCredential = { challenge: Record<string, unknown> & { request: string; opaque?: string }; payload: Record<string, unknown>; source?: string };
const b64json = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const unb64json = (value: string) => JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));

/** `credential` (an `Authorization: Payment …` value) with its wire JSON edited by `edit`, re-encoded as sent (nothing re-signed, no HMAC recomputed). */
function tamper(credential: string, edit: (c: WireCredential) => void): string {
  const wire = unb64json(credential.replace(/^Payment\s+/, '')) as WireCredential;
  edit(wire);
  return `Payment ${b64json(wire)}`;
}

/** A 0x-hex string with one nibble changed at `index` (after the 0x). */
const flipNibble = (hex: string, index: number) => `${hex.slice(0, 2 + index)}${hex[2 + index] === '0' ? '1' : '0'}${hex.slice(3 + index)}`;

describe(`payment credentials (a ${e2eMode()} server: BILLING_MODE=enforce, ${e2eMode() === 'cluster' ? 'settled on a test chain' : 'a local settlement'})`, () => {
  // Every case sends a Payment credential the server must refuse: 402 PAYMENT_REQUIRED (with a fresh
  // challenge) when the credential does not pay this call, 404 when a valid one is paid by a wallet that
  // is not the record's agent, 403 for a test agent, 401 when no credential follows the scheme name.
  // After each case group nothing may have changed: records, memories, files, ledger, balances (the
  // fingerprint) and the settlements (no money moved).
  const paymentEnv = { PAYMENT_SECRET_KEY: `security-payments-${randomBytes(16).toString('hex')}`, PAYMENT_RECIPIENT: account().address };
  const settlement = new LocalPaymentSettlement(); // standalone: the server's settlement; both modes: the minter's (never settles)
  let settlements: SettlementView; // what the payment server settled (the local settlement or the test chain)
  let closePayServer: (() => Promise<void>) | undefined;
  const P402: Refusal = { status: 402, code: 'PAYMENT_REQUIRED' };
  type Payer = Agent & { wallet: PaymentTestClient };
  let pay: E2eServer;
  let papi: ApiClient;
  let payer: Payer; // live, service-generated wallet, 0.90 USD on its balance
  let payerRecord2: string; // the payer's second record
  let other: Payer; // another live agent
  let sandboxed: Payer; // a test agent (no real funds)
  let usedCall: { path: string; body: Record<string, unknown>; credential: string }; // paid one call
  let usedTopUp: { body: Record<string, unknown>; credential: string }; // paid one top-up
  let payWatched: Watched;
  let payBaseline: Record<string, unknown>;

  const payState = async (stores?: Record<string, unknown>) => ({ stores: stores ?? (await fingerprint(pay, payWatched)), settled: settlements.settled.length, settledUnits: settlements.totalBaseUnits().toString() });
  /** Another minter of challenges with the payment server's parameters (same secret unless overridden). */
  const minter = (overrides: { secretKey?: string; challengeTtlSeconds?: number } = {}) =>
    new PaymentProtocol({ rateLimitsEnabled: false, anonymousPerMinute: 100, billingMode: 'enforce', signatureWindowSeconds: 300, payments: { ...paymentOptionsFromEnv(PaymentEnvSchema.parse(paymentEnv)), ...overrides } }, settlement);
  /** The challenge (`WWW-Authenticate` value) of a paid call asked without credentials, or of a top-up asked with `key`. */
  const challengeOf = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await papi.request(method, path, { body, key });
    expect([res.status, res.code]).toEqual([402, 'PAYMENT_REQUIRED']);
    return res.headers.get('www-authenticate')!;
  };
  const recallOf = (recordId: string) => `/api/v1/records/${recordId}/recall`;
  const RECALL = { query: 'what is the plan?' };
  const paid = (group: string, label: string, method: string, path: string, credential: string, expected: Refusal, body?: unknown) => () =>
    tryHostile(papi, `payments: ${group}`, label, { method, path, headers: { authorization: credential }, body }, expected);

  const payerOf = async (body: Record<string, unknown>): Promise<Payer> => {
    const created = await papi.createAgent(body);
    const keyId = (await papi.request('GET', '/api/v1/agents/keys', { key: created.agentKey })).data.keys[0].id;
    return { ...created, keyId, wallet: new PaymentTestClient({ privateKey: created.walletPrivateKey as `0x${string}` }) };
  };

  beforeAll(async () => {
    ({ server: pay, settlements, close: closePayServer } = await startPaymentServer({ RATE_LIMITS: 'off', RATE_LIMITS_ENABLED: 'false', BILLING_MODE: 'enforce', ...paymentEnv }, settlement));
    papi = new ApiClient(pay.url);
    payer = await payerOf({ name: 'payer' });
    other = await payerOf({ name: 'other payer' });
    sandboxed = await payerOf({ name: 'sandboxed payer', environment: 'test' });
    payerRecord2 = (await papi.request('POST', '/api/v1/records', { key: payer.agentKey, body: { name: 'second' } })).data.id;

    // A top-up paid once with a credential (1.00 USD), then two calls from the balance, then one call paid with a credential.
    const topUpBody = { amount: '1.00' };
    usedTopUp = { body: topUpBody, credential: await payer.wallet.credentialFor(await challengeOf('POST', '/api/v1/billing/top-up', topUpBody, payer.agentKey)) };
    expect((await papi.request('POST', '/api/v1/billing/top-up', { headers: { authorization: usedTopUp.credential }, body: topUpBody })).data.balanceMicroUsd).toBe(1_000_000);
    const p = `/api/v1/records/${payer.recordId}`;
    expect((await papi.request('POST', `${p}/remember`, { key: payer.agentKey, body: { content: 'The payment plan is secret.', path: 'plan', type: 'fact' } })).status).toBe(200);
    expect((await papi.request('POST', `${p}/write`, { key: payer.agentKey, body: { path: 'f.txt', content: 'paid file' } })).status).toBe(200);
    const callBody = { content: 'Paid once with a credential.', path: 'paid', type: 'fact' };
    usedCall = { path: `${p}/remember`, body: callBody, credential: await payer.wallet.credentialFor(await challengeOf('POST', `${p}/remember`, callBody)) };
    const first = await papi.request('POST', usedCall.path, { headers: { authorization: usedCall.credential }, body: callBody });
    expect(first.status).toBe(200);
    expect(first.headers.get('payment-receipt')).toBeTruthy();
    expect(settlements.settled).toHaveLength(2);

    payWatched = { agents: [payer, other, sandboxed] };
    payBaseline = await payState(await settledFingerprint(pay, payWatched));
    expect(payBaseline.stores).toMatchObject({ [payer.agentId]: { balances: { live: 900_000 }, ledger: { total: 3 } } });
  }, 180_000);

  afterEach(async () => {
    expect(await payState()).toEqual(payBaseline);
  });

  afterAll(async () => {
    await closePayServer?.();
  });

  it('a replayed credential (of a paid call, of a top-up) is refused and moves no money', async () => {
    const r = (label: string, method: string, path: string, credential: string, body: unknown) => paid('replayed', label, method, path, credential, P402, body);
    await expectAllRefused([
      r('the paid call again, same request', 'POST', usedCall.path, usedCall.credential, usedCall.body),
      r('the paid call again, another body', 'POST', usedCall.path, usedCall.credential, { content: 'A replayed write.', path: 'replayed', type: 'fact' }),
      r('the paid call again, with an idempotency key', 'POST', usedCall.path, usedCall.credential, { ...usedCall.body, idempotency_key: 'replay-1' }),
      r('the top-up again, same request', 'POST', '/api/v1/billing/top-up', usedTopUp.credential, usedTopUp.body),
      r('the top-up again, another amount', 'POST', '/api/v1/billing/top-up', usedTopUp.credential, { amount: '15.00' }),
      r('the top-up credential on a paid call', 'POST', recallOf(payer.recordId), usedTopUp.credential, RECALL),
      r('the paid call’s credential as a top-up', 'POST', '/api/v1/billing/top-up', usedCall.credential, { amount: '0.05' }),
    ]);
  });

  it('an under-priced credential (below 0.05 USD a call, below the top-up amount) is refused', async () => {
    const target = minter().callTarget('recall', payer.recordId, { method: 'POST', url: recallOf(payer.recordId), body: JSON.stringify(RECALL) });
    const under = async (micro: number) => payer.wallet.credentialFor(await minter().challenge({ ...target, amountMicroUsd: micro }));
    const smallTopUp = await payer.wallet.credentialFor(await challengeOf('POST', '/api/v1/billing/top-up', { amount: '0.05' }, payer.agentKey));
    const u = (label: string, credential: string, body: unknown = RECALL, path = recallOf(payer.recordId)) => paid('under-priced', label, 'POST', path, credential, P402, body);
    await expectAllRefused([
      u('recall paid 0.049999 USD', await under(49_999)),
      u('recall paid 0.01 USD', await under(10_000)),
      u('recall paid 1 micro-USD', await under(1)),
      u('a 0.05 USD top-up credential sent for 1.00 USD', smallTopUp, { amount: '1.00' }, '/api/v1/billing/top-up'),
      u('a 0.05 USD top-up credential sent for 0.06 USD', smallTopUp, { amount: '0.06' }, '/api/v1/billing/top-up'),
    ]);
  });

  it('a credential for another operation or another record is refused', async () => {
    const p = `/api/v1/records/${payer.recordId}`;
    const contextCredential = await payer.wallet.credentialFor(await challengeOf('GET', `${p}/context`));
    const rememberCredential = await payer.wallet.credentialFor(await challengeOf('POST', `${p}/remember`, { content: 'x' }));
    const recall2 = await payer.wallet.credentialFor(await challengeOf('POST', recallOf(payerRecord2), RECALL));
    const recallOwn = await payer.wallet.credentialFor(await challengeOf('POST', recallOf(payer.recordId), RECALL));
    const otherRecall = await other.wallet.credentialFor(await challengeOf('POST', recallOf(other.recordId), RECALL));
    const forgetOther = await payer.wallet.credentialFor(await challengeOf('DELETE', `${p}/remember?path=nothing`));
    const writeHarmless = await payer.wallet.credentialFor(await challengeOf('POST', `${p}/write`, { path: 'g.txt', content: 'harmless' }));
    const a = (label: string, method: string, path: string, credential: string, body?: unknown) => paid('another operation or record', label, method, path, credential, P402, body);
    await expectAllRefused([
      a('a context credential on recall', 'POST', recallOf(payer.recordId), contextCredential, RECALL),
      a('a context credential on read file', 'GET', `${p}/read?path=f.txt`, contextCredential),
      a('a remember credential on forget', 'DELETE', `${p}/remember?path=plan`, rememberCredential),
      a('a remember credential on write file', 'POST', `${p}/write`, rememberCredential, { path: 'f.txt', content: 'overwritten' }),
      a('a recall credential of the second record on the first', 'POST', recallOf(payer.recordId), recall2, RECALL),
      a('a recall credential of the first record on the second', 'POST', recallOf(payerRecord2), recallOwn, RECALL),
      a('another agent’s recall credential (its own wallet) on this record', 'POST', recallOf(payer.recordId), otherRecall, RECALL),
      a('a forget credential for ?path=nothing sent with ?path=plan (the query is bound)', 'DELETE', `${p}/remember?path=plan`, forgetOther),
      a('a write credential for g.txt sent to overwrite f.txt (the body is bound)', 'POST', `${p}/write`, writeHarmless, { path: 'f.txt', content: 'overwritten' }),
      a('a recall credential sent with another query text', 'POST', recallOf(payer.recordId), recallOwn, { query: 'something else' }),
    ]);
  });

  it('an expired credential (of a call, of a top-up) is refused', async () => {
    const shortLived = minter({ challengeTtlSeconds: 1 });
    const call = await payer.wallet.credentialFor(await shortLived.challenge(shortLived.callTarget('recall', payer.recordId, { method: 'POST', url: recallOf(payer.recordId), body: JSON.stringify(RECALL) })));
    const topUp = await payer.wallet.credentialFor(await shortLived.challenge(shortLived.topUpTarget(payer.agentId, 1_000_000)));
    const context = await payer.wallet.credentialFor(await shortLived.challenge(shortLived.callTarget('context', payer.recordId, { method: 'GET', url: `/api/v1/records/${payer.recordId}/context` })));
    await new Promise((r) => setTimeout(r, 2_100));
    await expectAllRefused([
      paid('expired', 'recall, challenge expired', 'POST', recallOf(payer.recordId), call, P402, RECALL),
      paid('expired', 'context, challenge expired', 'GET', `/api/v1/records/${payer.recordId}/context`, context, P402),
      paid('expired', 'top-up, challenge expired', 'POST', '/api/v1/billing/top-up', topUp, P402, { amount: '1.00' }),
    ]);
  });

  it('a credential with a tampered signature, payload or challenge, or not issued by this server, is refused', async () => {
    const path = recallOf(payer.recordId);
    const fresh = async () => payer.wallet.credentialFor(await challengeOf('POST', path, RECALL));
    const stranger = new PaymentTestClient();
    const strangers = await stranger.credentialFor(await challengeOf('POST', path, RECALL));
    const topUp = await payer.wallet.credentialFor(await challengeOf('POST', '/api/v1/billing/top-up', { amount: '1.00' }, payer.agentKey));
    const foreign = await payer.wallet.credentialFor(await minter({ secretKey: 'another-server-secret-0123456789abcdef' }).challenge(minter().callTarget('recall', payer.recordId, { method: 'POST', url: path, body: JSON.stringify(RECALL) })));
    const t = (label: string, credential: string, body: unknown = RECALL, p = path) => paid('tampered', label, 'POST', p, credential, P402, body);
    const sig = (c: WireCredential) => c.payload.signature as string;
    const editRequest = (c: WireCredential, edit: (r: Record<string, any>) => void) => {
      const r = unb64json(c.challenge.request);
      edit(r);
      c.challenge.request = b64json(r);
    };
    await expectAllRefused([
      t('signature: one nibble of r changed', tamper(await fresh(), (c) => (c.payload.signature = flipNibble(sig(c), 10)))),
      t('signature: one nibble of s changed', tamper(await fresh(), (c) => (c.payload.signature = flipNibble(sig(c), 80)))),
      t('signature: v changed', tamper(await fresh(), (c) => (c.payload.signature = `${sig(c).slice(0, -2)}${sig(c).endsWith('1b') ? '1c' : '1b'}`))),
      t('signature: 65 random bytes', tamper(await fresh(), (c) => (c.payload.signature = `0x${randomBytes(65).toString('hex')}`))),
      t('signature: truncated', tamper(await fresh(), (c) => (c.payload.signature = sig(c).slice(0, 66)))),
      t('signature: removed', tamper(await fresh(), (c) => delete c.payload.signature)),
      t('payload: value lowered to 1', tamper(await fresh(), (c) => (c.payload.value = '1'))),
      t('payload: recipient changed', tamper(await fresh(), (c) => (c.payload.to = stranger.address))),
      t('payload: validBefore extended', tamper(await fresh(), (c) => (c.payload.validBefore = String(Number(c.payload.validBefore) + 86_400)))),
      t('payload: nonce changed', tamper(await fresh(), (c) => (c.payload.nonce = `0x${randomBytes(32).toString('hex')}`))),
      t('payload: a stranger’s signature, from = the agent’s wallet', tamper(strangers, (c) => ((c.payload.from = payer.wallet.address), delete c.source))),
      t('challenge: amount lowered (HMAC no longer matches)', tamper(await fresh(), (c) => editRequest(c, (r) => (r.amount = '1')))),
      t('challenge: recipient changed', tamper(await fresh(), (c) => editRequest(c, (r) => (r.recipient = stranger.address)))),
      t('challenge: expiry extended', tamper(await fresh(), (c) => (c.challenge.expires = new Date(Date.now() + 86_400_000).toISOString()))),
      t('challenge: scope moved to the second record', tamper(await fresh(), (c) => (c.challenge.opaque = b64json({ _mppx_scope: `call:recall:${payerRecord2}` })))),
      t('challenge: id replaced', tamper(await fresh(), (c) => (c.challenge.id = randomBytes(32).toString('base64url')))),
      t('top-up challenge: bound to another agent', tamper(topUp, (c) => (c.challenge.opaque = b64json({ ...unb64json(c.challenge.opaque!), agent: other.agentId }))), { amount: '1.00' }, '/api/v1/billing/top-up'),
      t('top-up challenge: amount raised to 100 USD', tamper(topUp, (c) => editRequest(c, (r) => (r.amount = '100000000'))), { amount: '100.00' }, '/api/v1/billing/top-up'),
      t('a challenge issued with another server’s secret', foreign),
    ]);
  });

  it('a credential from a wallet that is not the record’s agent is refused (404 as another agent’s record; 403 for a test agent)', async () => {
    const p = `/api/v1/records/${payer.recordId}`;
    const stranger = new PaymentTestClient();
    const recall = await challengeOf('POST', recallOf(payer.recordId), RECALL);
    const remember = await challengeOf('POST', `${p}/remember`, { content: 'injected by a stranger' });
    const context = await challengeOf('GET', `${p}/context`);
    const sandboxContext = await challengeOf('GET', `/api/v1/records/${sandboxed.recordId}/context`);
    const w = (label: string, method: string, path: string, credential: string, expected: Refusal, body?: unknown) => paid('another wallet', label, method, path, credential, expected, body);
    await expectAllRefused([
      w('recall paid by a wallet no agent has', 'POST', recallOf(payer.recordId), await stranger.credentialFor(recall), N404, RECALL),
      w('recall paid by another agent’s wallet', 'POST', recallOf(payer.recordId), await other.wallet.credentialFor(recall), N404, RECALL),
      w('remember paid by a wallet no agent has', 'POST', `${p}/remember`, await stranger.credentialFor(remember), N404, { content: 'injected by a stranger' }),
      w('context paid by another agent’s wallet', 'GET', `${p}/context`, await other.wallet.credentialFor(context), N404),
      w('context paid by the test agent’s wallet', 'GET', `${p}/context`, await sandboxed.wallet.credentialFor(context), N404),
      w('a test agent’s own wallet on its record (no real funds)', 'GET', `/api/v1/records/${sandboxed.recordId}/context`, await sandboxed.wallet.credentialFor(sandboxContext), F403),
    ]);
  });

  it('a malformed Authorization: Payment header is refused on paid calls and top-ups', async () => {
    const valid = await payer.wallet.credentialFor(await challengeOf('POST', recallOf(payer.recordId), RECALL));
    const { challenge } = unb64json(valid.replace(/^Payment\s+/, '')) as WireCredential;
    const variants: Array<[string, string, Refusal]> = [
      ['empty', 'Payment', U401],
      ['only spaces after the scheme', 'Payment    ', U401],
      ['not base64', 'Payment !!!not*base64@@@', P402],
      ['base64 of text that is not JSON', `Payment ${b64json('this is not json')}`, P402],
      ['garbage JSON', `Payment ${b64json('{"challenge": {"id": ')}`, P402],
      ['JSON null', `Payment ${b64json('null')}`, P402],
      ['a JSON array', `Payment ${b64json('[1,2,3]')}`, P402],
      ['an empty JSON object', `Payment ${b64json({})}`, P402],
      ['empty challenge and payload', `Payment ${b64json({ challenge: {}, payload: {} })}`, P402],
      ['a valid challenge without payload', `Payment ${b64json({ challenge })}`, P402],
      ['a payload of wrong types', `Payment ${b64json({ challenge, payload: { from: 1, signature: ['0x'], value: null } })}`, P402],
      ['a challenge whose request is not base64 JSON', `Payment ${b64json({ challenge: { ...challenge, request: '%%%' }, payload: {} })}`, P402],
      ['4,000 characters of noise', `Payment ${'A'.repeat(4000)}`, P402],
      ['two credentials, the first garbage', `Payment xyz, ${valid}`, P402],
    ];
    const routes: Array<[string, string, string, unknown]> = [
      ['recall', 'POST', recallOf(payer.recordId), RECALL],
      ['context', 'GET', `/api/v1/records/${payer.recordId}/context`, undefined],
      ['top-up', 'POST', '/api/v1/billing/top-up', { amount: '1.00' }],
    ];
    await expectAllRefused(routes.flatMap(([name, method, path, body]) => variants.map(([label, header, expected]) => paid('malformed header', `${name}: ${label}`, method, path, header, expected, body))));
  });
});
