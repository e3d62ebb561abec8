import { launcherEnvSchema, serviceOptionsFromEnv } from './service-options';
import { serviceModuleOptions } from './module-options';

const Env = launcherEnvSchema({ host: '127.0.0.1', dataDir: './data', billingMode: 'ledger', busRequestTimeoutMs: 30_000 });
const options = (env: Record<string, string>) => serviceOptionsFromEnv(Env.parse(env));

describe('serviceModuleOptions: what each service module gets from the environment', () => {
  it('gives the agents and the gateway the same signature realm (domain and payment chain)', () => {
    const m = serviceModuleOptions(options({ SIGNATURE_DOMAIN: 'memory.example.com', PAYMENT_CHAIN_ID: '8453', PAYMENT_SECRET_KEY: 'x'.repeat(32) }));
    expect(m.agents.signatureRealm).toEqual({ domain: 'memory.example.com', chainId: 8453 });
    expect([m.gateway.signatureDomain, m.gateway.payments.chainId]).toEqual(['memory.example.com', 8453]);
  });

  it('passes quotas, the forget rewrite delay and the billing mode to the services that use them', () => {
    const m = serviceModuleOptions(options({ QUOTA_FILES_PER_AGENT: '7', QUOTA_MEMORIES_PER_AGENT: '9', FORGET_VACUUM_DELAY_MS: '1000', BILLING_MODE: 'enforce', PAYMENT_SECRET_KEY: 'x'.repeat(32) }));
    expect(m.files).toEqual({ quota: { maxFiles: 7, maxBytes: 1024 ** 3 }, vacuumDelayMs: 1000 });
    expect(m.memory).toMatchObject({ quota: { maxMemories: 9 }, vacuumDelayMs: 1000, embedder: { kind: 'use-lite' } });
    expect(m.gateway.billingMode).toBe('enforce');
    expect(m.billing).toEqual({ sandboxCreditMicroUsd: 100_000_000, reservationSweepIntervalMs: 60_000, reservationMaxAgeMs: 600_000 });
  });
});
