import { GetPaymentUseCase, SweepReservationsUseCase } from '@agent-memory/billing';
import { BusClient } from '@agent-memory/platform';
import { DomainError, SUBJECTS } from '@agent-memory/shared';
import { server, api, settlement, liveAgent, receiptOf, usage, balance, challengeOf, usePaymentsServer } from './billing-payments/world';

// Payments and billing end to end (docs/billing.md), standalone, BILLING_MODE=enforce, with a local
// settlement (billing-payments/world.ts): when the bus or the settlement fails after the money moved or
// was held.

usePaymentsServer();

describe('when the bus or the settlement fails after the money moved or was held', () => {
  type Fault = 'dropped' | 'lost-reply' | 'late';
  /**
   * Fault injection on the real server's bus: the next requests on `subject` (whose payload matches `when`)
   * fail as a NATS timeout would, one per entry of `faults`: `dropped` (never handled), `lost-reply`
   * (handled, the reply lost) or `late` (handled 300 ms after the sender gave up, as a queued message).
   */
  function injectBusFaults(subject: string, faults: Fault[], when: (payload: any) => boolean = () => true) {
    const bus = server.app.get(BusClient);
    const original = bus.request.bind(bus);
    const left = [...faults];
    const late: Promise<unknown>[] = [];
    const spy = jest.spyOn(bus, 'request').mockImplementation(async (s: string, payload: unknown, schema: any) => {
      const fault = s === subject && when(payload) ? left.shift() : undefined;
      if (fault === 'lost-reply') await original(s, payload, schema);
      if (fault === 'late') late.push(new Promise((r) => setTimeout(r, 300)).then(() => original(s, payload, schema).catch(() => undefined)));
      if (fault) throw new DomainError('INTERNAL_ERROR', `The service did not answer in time (${s})`);
      return original(s, payload, schema);
    });
    return {
      injected: () => faults.length - left.length,
      restore: async () => {
        spy.mockRestore();
        await Promise.all(late);
      },
    };
  }
  const challengeIdOf = (credential: string) => JSON.parse(Buffer.from(credential.replace(/^Payment\s+/, ''), 'base64url').toString('utf8')).challenge.id as string;
  const paymentRow = (credential: string) => server.app.get(GetPaymentUseCase).execute({ challengeId: challengeIdOf(credential) });

  it('credits a settled top-up exactly once although its completion is lost twice on the bus (retried); its reference is stored', async () => {
    const { agentKey, wallet } = await liveAgent();
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.50' } })));
    const faults = injectBusFaults(SUBJECTS.billing.completePayment, ['lost-reply', 'dropped'], (p) => p.outcome === 'settled');
    const paid = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '0.50' } }).finally(faults.restore);
    expect(faults.injected()).toBe(2);
    expect(paid.status).toBe(200);
    expect(paid.data).toMatchObject({ balanceMicroUsd: 500_000, creditedMicroUsd: 500_000 });
    expect(await paymentRow(credential)).toMatchObject({ status: 'settled', reference: paid.data.reference });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(500_000);
  });

  it('refunds a failed paid call exactly once although the refund credit is lost twice on the bus (retried)', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember?path=nothing/here`;
    const credential = await wallet.credentialFor(await challengeOf(await api.request('DELETE', url, { key: agentKey })));
    const faults = injectBusFaults(SUBJECTS.billing.credit, ['lost-reply', 'lost-reply']);
    const missing = await api.request('DELETE', url, { headers: { authorization: credential } }).finally(faults.restore);
    expect(faults.injected()).toBe(2);
    expect(missing.status).toBe(404);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(50_000);
    expect((await usage(agentKey)).total).toBe(0);
  });

  it('a settlement not confirmed in time answers 402 without a challenge, leaves the payment claimed with its reference, and runs and charges nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const url = `/api/v1/records/${recordId}/remember`;
    const body = { content: 'Written only if paid.', path: 'notes/pending' };
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', url, { key: agentKey, body })));
    const topUp = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '1' } })));
    settlement.pendingWith = 'no receipt within 60000 ms';
    let call, top;
    try {
      call = await api.request('POST', url, { headers: { authorization: credential }, body });
      top = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: topUp }, body: { amount: '1' } });
    } finally {
      settlement.pendingWith = undefined;
    }
    for (const [res, cred] of [[call, credential], [top, topUp]] as const) {
      expect([res.status, res.code]).toEqual([402, 'PAYMENT_REQUIRED']);
      expect(res.headers.get('www-authenticate')).toBeNull();
      expect((res.body as any).error.message).toMatch(/^Payment submitted as 0x[0-9a-f]{64} but not confirmed yet .*being reconciled. Do not pay again/);
      const row = await paymentRow(cred);
      expect(row).toMatchObject({ status: 'claimed', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect((res.body as any).error.message).toContain(row!.reference);
    }
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
    expect((await usage(agentKey)).total).toBe(0);
    expect((await api.request('GET', `/api/v1/records/${recordId}`, { key: agentKey })).status).toBe(200);
    // The credential stays used: paying it again is refused.
    const again = await api.request('POST', url, { headers: { authorization: credential }, body });
    expect(again.body).toMatchObject({ error: { message: expect.stringContaining('already used') } });
  });

  it('a settled top-up whose credit cannot be recorded after every retry answers 402 "being reconciled", with its receipt; the payment stays claimed with its reference', async () => {
    const { agentKey, wallet } = await liveAgent();
    const credential = await wallet.credentialFor(await challengeOf(await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.10' } })));
    const faults = injectBusFaults(SUBJECTS.billing.completePayment, ['dropped', 'dropped', 'dropped', 'dropped', 'dropped'], (p) => p.outcome === 'settled');
    const res = await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: credential }, body: { amount: '0.10' } }).finally(faults.restore);
    expect(faults.injected()).toBe(5);
    expect([res.status, res.code]).toEqual([402, 'PAYMENT_REQUIRED']);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(receiptOf(res)).toMatchObject({ status: 'success' });
    expect((res.body as any).error.message).toContain('being reconciled');
    expect(await paymentRow(credential)).toMatchObject({ status: 'claimed', reference: receiptOf(res).reference });
    expect((await balance(agentKey)).balanceMicroUsd).toBe(0);
  });

  it('a reserve that arrives after the gateway gave up and released it debits nothing and holds nothing', async () => {
    const { recordId, agentKey, wallet } = await liveAgent();
    const ask = await api.request('POST', '/api/v1/billing/top-up', { key: agentKey, body: { amount: '0.50' } });
    await api.request('POST', '/api/v1/billing/top-up', { headers: { authorization: await wallet.credentialFor(await challengeOf(ask)) }, body: { amount: '0.50' } });
    const faults = injectBusFaults(SUBJECTS.billing.reserve, ['late', 'lost-reply']);
    const first = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    const second = await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey });
    await faults.restore();
    expect([first.status, second.status]).toEqual([500, 500]);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(500_000);
    expect(await server.app.get(SweepReservationsUseCase).execute({ olderThanMs: 0 })).toMatchObject({ voided: 0 });
    expect((await api.request('GET', `/api/v1/records/${recordId}/context`, { key: agentKey })).status).toBe(200);
    expect((await balance(agentKey)).balanceMicroUsd).toBe(450_000);
  });
});
