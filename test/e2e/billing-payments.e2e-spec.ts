import { requestDigest } from '@agent-memory/gateway';
import { parsePaymentChallenge, PaymentTestClient } from '@agent-memory/test-support';
import { RECIPIENT, server, api, settlement, liveAgent, minter, receiptOf, usage, balance, challengeOf, usePaymentsServer } from './billing-payments/world';

// Payments and billing end to end (docs/billing.md), standalone, BILLING_MODE=enforce, with a local
// settlement in place of the chain (billing-payments/world.ts): prices and challenges, and paying a call
// with a Payment credential. Prepaid balances are in billing-payments-balance.e2e-spec.ts, failures after
// the money moved in billing-payments-failures.e2e-spec.ts.

usePaymentsServer();

describe('prices and challenges', () => {
  it('lists the price list and the payment parameters, without auth', async () => {
    const prices = (await api.request('GET', '/api/v1/billing/prices')).data;
    expect(prices.billingMode).toBe('enforce');
    expect(prices.paid.map((p: any) => [p.operation, p.priceMicroUsd, p.priceUsd])).toEqual([
      ['recall', 50_000, '0.05'],
      ['remember', 50_000, '0.05'],
      ['forget', 50_000, '0.05'],
      ['read_file', 50_000, '0.05'],
      ['write_file', 50_000, '0.05'],
      ['context', 50_000, '0.05'],
      ['list_memories', 50_000, '0.05'],
    ]);
    expect(prices.payment).toMatchObject({ scheme: 'Payment', method: 'evm', intent: 'charge', chainId: 84532, recipient: RECIPIENT, decimals: 6 });
  });

  it('answers a paid call without payment with 402 in the envelope and a challenge stating 0.05 USD for that operation', async () => {
    const { recordId, agentKey } = await liveAgent();
    const res = await api.request('POST', `/api/v1/records/${recordId}/recall`, { body: { query: 'anything' } });
    expect(res.body).toEqual({ success: false, error: { code: 'PAYMENT_REQUIRED', message: expect.stringContaining('0.05 USD') } });
    const c = parsePaymentChallenge(await challengeOf(res));
    expect(c.params).toMatchObject({ method: 'evm', intent: 'charge', realm: 'localhost', description: expect.stringContaining('recall: 0.05 USD per query') });
    expect(c.request).toMatchObject({ amount: '50000', recipient: RECIPIENT, methodDetails: { chainId: 84532, decimals: 6 } });
    // The scope binds the operation, the record and this exact request (method, path and query, raw body).
    const digest = requestDigest({ method: 'POST', url: `/api/v1/records/${recordId}/recall`, body: JSON.stringify({ query: 'anything' }) });
    expect(c.opaque).toMatchObject({ _mppx_scope: `call:recall:${recordId}:${digest}` });
    expect(res.headers.get('cache-control')).toBe('no-store');

    // A live key with an empty balance gets the same kind of challenge for its operation.
    const withKey = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    expect(parsePaymentChallenge(await challengeOf(withKey)).opaque).toMatchObject({ _mppx_scope: `call:context:${recordId}:${requestDigest({ method: 'GET', url: `/api/v1/records/${recordId}/context` })}` });
    expect(withKey.body).toMatchObject({ error: { message: expect.stringContaining('Insufficient balance: 0.00 USD available, 0.05 USD needed') } });
    // Free endpoints stay free, and unauthenticated free calls are still 401.
    expect((await api.request('GET', '/api/v1/records', { key: agentKey })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/records')).status).toBe(401);
    expect((await usage(agentKey)).total).toBe(0);
  });
});

describe('paying a call with a Payment credential', () => {
  it('verifies the credential, runs the call, answers Payment-Receipt, and records one ledger entry', async () => {
    const { recordId, agentKey, wallet, walletAddress } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember`;
    const body = { content: 'Paid memories are still memories.', path: 'notes/paid' };
    const header = await challengeOf(await api.request('POST', url, { key: agentKey, body }));
    const credential = await wallet.credentialFor(header);
    expect(credential).toMatch(/^Payment /);
    const before = settlement.settled.length;

    const paid = await api.request('POST', url, { headers: { authorization: credential }, body });
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ path: 'notes/paid', type: expect.any(String) });
    expect(receiptOf(paid)).toMatchObject({ method: 'evm', status: 'success', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(settlement.settled.slice(before)).toEqual([
      expect.objectContaining({ chainId: 84532, authorization: expect.objectContaining({ from: walletAddress, to: RECIPIENT, value: '50000' }) }),
    ]);
    const u = await usage(agentKey);
    expect(u.entries).toEqual([expect.objectContaining({ operation: 'remember', amountMicroUsd: 50_000, paymentMethod: 'payment', environment: 'live', recordId })]);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);

    // The same credential again: refused (replay), nothing settled, nothing charged, nothing written.
    const replay = await api.request('POST', url, { headers: { authorization: credential }, body });
    await challengeOf(replay);
    expect(replay.body).toMatchObject({ error: { message: expect.stringContaining('already used') } });
    // With another body it is not even this request's credential.
    const other = await api.request('POST', url, { headers: { authorization: credential }, body: { content: 'A replayed write.', path: 'notes/replayed' } });
    await challengeOf(other);
    expect(other.body).toMatchObject({ error: { message: expect.stringContaining('scope does not match') } });
    expect(settlement.settled.length).toBe(before + 1);
    expect((await usage(agentKey)).total).toBe(1);
    const ctx: any = await (await wallet.fetch(`${server.url}/api/v1/records/${recordId}/context`)).json();
    expect(Object.values(ctx.data).flat().map((m: any) => m.path)).toEqual(['notes/paid']);
  });

  it('refuses a credential for another operation, another record, less than the price, expired, not issued here, or from another wallet', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const other = (await api.request('POST', '/api/v1/records', { key: agentKey, body: { name: 'second' } })).data.id;
    const recall = `/api/v1/records/${recordId}/recall`;
    const body = { query: 'what do I know?' };
    const before = settlement.settled.length;
    const refuse = async (credential: string, reason: RegExp) => {
      const res = await api.request('POST', recall, { headers: { authorization: credential }, body });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: expect.stringMatching(reason) } });
    };

    const contextChallenge = await challengeOf(await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey }));
    await refuse(await wallet.credentialFor(contextChallenge), /scope|does not match/);
    const otherRecordChallenge = await challengeOf(await api.request('POST', `/api/v1/records/${other}/recall`, { key: agentKey, body }));
    await refuse(await wallet.credentialFor(otherRecordChallenge), /scope|does not match/);

    const target = minter().callTarget('recall', recordId, { method: 'POST', url: recall, body: JSON.stringify(body) });
    await refuse(await wallet.credentialFor(await minter().challenge({ ...target, amountMicroUsd: 10_000 })), /amount/);
    const shortLived = minter({ challengeTtlSeconds: 1 });
    const expiring = await wallet.credentialFor(await shortLived.challenge(target));
    await new Promise((r) => setTimeout(r, 1_500));
    await refuse(expiring, /expired/i);
    await refuse(await wallet.credentialFor(await minter({ secretKey: 'another-server-secret-0123456789abcdef' }).challenge(target)), /not issued by this server/);

    // A valid challenge paid by a wallet that is not the record's agent: as for another agent's record.
    const stranger = new PaymentTestClient();
    const valid = await challengeOf(await api.request('POST', recall, { key: agentKey, body }));
    const strangerPaid = await api.request('POST', recall, { headers: { authorization: await stranger.credentialFor(valid) }, body });
    expect(strangerPaid.status).toBe(404);
    expect(strangerPaid.code).toBe('NOT_FOUND');

    expect(settlement.settled.length).toBe(before);
    expect((await usage(agentKey)).total).toBe(0);
  });

  it('refuses a credential sent with another body or query than the request its challenge was issued for, and changes nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const base = `/api/v1/records/${recordId}`;
    const before = settlement.settled.length;
    const refused = async (method: string, asked: { url: string; body?: unknown }, sent: { url: string; body?: unknown }) => {
      const credential = await wallet.credentialFor(await challengeOf(await api.request(method, asked.url, { key: agentKey, body: asked.body })));
      const res = await api.request(method, sent.url, { headers: { authorization: credential }, body: sent.body });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: expect.stringMatching(/scope|does not match/) } });
      return credential;
    };
    // forget ?path=a paid, sent as forget ?path=b; write of one file paid, sent as another; recall with another query text.
    await refused('DELETE', { url: `${base}/remember?path=notes/a` }, { url: `${base}/remember?path=notes/b` });
    await refused('POST', { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless' } }, { url: `${base}/write`, body: { path: 'b.txt', content: 'overwritten' } });
    await refused('POST', { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless' } }, { url: `${base}/write`, body: { path: 'a.txt', content: 'harmless', idempotency_key: 'k' } });
    await refused('POST', { url: `${base}/recall`, body: { query: 'one' } }, { url: `${base}/recall`, body: { query: 'two' } });
    expect(settlement.settled.length).toBe(before);
    expect((await usage(agentKey)).total).toBe(0);
    // Nothing was written: a paid read of b.txt finds no file (and its price goes back to the balance).
    expect((await wallet.fetch(`${server.url}${base}/read?path=b.txt`)).status).toBe(404);
  });

  it("lets mppx's payment-aware fetch discover the price and pay, with no agent key", async () => {
    const { recordId, wallet, agentKey } = await liveAgent();
    const res = await wallet.fetch(`${server.url}/api/v1/records/${recordId}/context`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, data: { identity: [], fact: [] } });
    expect(receiptOf(res)).toMatchObject({ status: 'success' });
    expect((await usage(agentKey)).entries).toEqual([expect.objectContaining({ operation: 'context', paymentMethod: 'payment' })]);
  });

  it('does not charge a paid call that fails or is an idempotent replay: the settled amount goes to the live balance', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const pay = async (method: string, url: string, body?: unknown) =>
      api.request(method, url, { headers: { authorization: await wallet.credentialFor(await challengeOf(await api.request(method, url, { key: agentKey, body }))) }, body });

    const write = { path: 'a.txt', content: 'once', idempotency_key: 'w-1' };
    const first = await pay('POST', `/api/v1/records/${recordId}/write`, write);
    expect(first.status).toBe(200);

    const missing = await pay('DELETE', `/api/v1/records/${recordId}/remember?path=nothing/here`);
    expect(missing.status).toBe(404);
    expect(receiptOf(missing)).toMatchObject({ status: 'success' });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);

    // An idempotent replay paid from the balance: reserved, then voided.
    const replay = await api.request('POST', `/api/v1/records/${recordId}/write`, { key: agentKey, body: write });
    expect(replay.data).toEqual(first.data);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);
    // An idempotent replay paid with a credential (challenge from an unauthenticated call): settled, then refunded.
    const challenge = await challengeOf(await api.request('POST', `/api/v1/records/${recordId}/write`, { body: write }));
    const paidReplay = await api.request('POST', `/api/v1/records/${recordId}/write`, { headers: { authorization: await wallet.credentialFor(challenge) }, body: write });
    expect(paidReplay.data).toEqual(first.data);
    expect(receiptOf(paidReplay)).toMatchObject({ status: 'success' });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(100_000);
    const u = await usage(agentKey);
    expect(u.entries.map((e: any) => [e.operation, e.paymentMethod])).toEqual([['write_file', 'payment']]);
  });

  it('answers 402 when settlement fails, and charges nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/context`;
    settlement.failWith = 'the payer has insufficient funds';
    try {
      const res = await api.request('GET', url, { headers: { authorization: await wallet.credentialFor(await challengeOf(await api.request('GET', url, { key: agentKey }))) } });
      await challengeOf(res);
      expect(res.body).toMatchObject({ error: { message: 'Payment could not be settled: the payer has insufficient funds' } });
    } finally {
      settlement.failWith = undefined;
    }
    expect((await usage(agentKey)).total).toBe(0);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
  });
});
