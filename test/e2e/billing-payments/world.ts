import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { PaymentEnvSchema, paymentOptionsFromEnv, PaymentProtocol } from '@agent-memory/gateway';
import { ApiClient } from '@agent-memory/testing';
import { LocalPaymentSettlement, PaymentTestClient, startStandaloneServer, type TestServer } from '@agent-memory/test-support';

/**
 * The server and helpers of the payments suites (docs/billing.md): standalone, BILLING_MODE=enforce, with
 * a local settlement in place of the chain. Credentials are real: mppx's client signs EIP-3009
 * authorizations with viem local accounts (the agents' own wallets). Rate limits stay on: the parallel
 * test makes 50 context calls on one record, within the 60 queries per minute per record and 100
 * requests per agent. Used by billing-payments.e2e-spec.ts, billing-payments-balance.e2e-spec.ts and
 * billing-payments-failures.e2e-spec.ts.
 */
export const SECRET = 'billing-e2e-secret-0123456789abcdefghijklmnop';
export const RECIPIENT = privateKeyToAccount(generatePrivateKey()).address;
export const ENV = { BILLING_MODE: 'enforce', PAYMENT_SECRET_KEY: SECRET, PAYMENT_RECIPIENT: RECIPIENT, BILLING_SANDBOX_CREDIT_USD: '0.50' };

export let server: TestServer;
export let api: ApiClient;
export const settlement = new LocalPaymentSettlement();

/** Registers the suite's hooks: `beforeAll` starts a standalone server with {@link ENV} and the local settlement, `afterAll` removes it. */
export function usePaymentsServer(): void {
  beforeAll(async () => {
    server = await startStandaloneServer({ env: ENV, paymentSettlement: settlement });
    api = new ApiClient(server.url);
  }, 120_000);
  afterAll(() => server?.close({ removeData: true }));
}

/** A live agent whose wallet the service generated; its key, record and a payment client on that wallet. */
export async function liveAgent() {
  const a = await api.createAgent({ name: `payer ${Math.random()}` });
  return { ...a, wallet: new PaymentTestClient({ privateKey: a.walletPrivateKey as `0x${string}` }) };
}

/** Another minter of challenges with this server's parameters, for credentials the server must refuse. */
export function minter(overrides: { secretKey?: string; challengeTtlSeconds?: number } = {}) {
  const payments = { ...paymentOptionsFromEnv(PaymentEnvSchema.parse(ENV)), ...overrides };
  return new PaymentProtocol({ rateLimitsEnabled: true, anonymousPerMinute: 100, billingMode: 'enforce', signatureWindowSeconds: 300, payments }, settlement);
}

export function receiptOf(res: { headers: Headers }) {
  const header = res.headers.get('payment-receipt');
  return header ? JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) : undefined;
}

export async function usage(key: string, query = '') {
  return (await api.request('GET', `/api/v1/billing/usage${query}`, { key })).data;
}

export async function balance(key: string) {
  return (await api.request('GET', '/api/v1/billing/balance', { key })).data;
}

/** 402 with a Payment challenge: the challenge header. */
export async function challengeOf(res: { status: number; code?: string; headers: Headers }) {
  expect(res.status).toBe(402);
  expect(res.code).toBe('PAYMENT_REQUIRED');
  const header = res.headers.get('www-authenticate');
  expect(header).toMatch(/^Payment /);
  return header!;
}
