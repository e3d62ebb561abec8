import { generateKeyPairSync } from 'node:crypto';
import { loadClusterConfig, natsAuthOf } from './cluster.config';

const KEYS = generateKeyPairSync('ed25519');
const PUBLIC = { BUS_SIGNING_PUBLIC_KEY: KEYS.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
const S3 = { S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b', ...PUBLIC };
const SECRET = { PAYMENT_SECRET_KEY: 'x'.repeat(32), BUS_SIGNING_PRIVATE_KEY: KEYS.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64') };

describe('cluster configuration (fails fast, naming the variable)', () => {
  it('gives every process the documented defaults', () => {
    const c = loadClusterConfig('gateway', { ...SECRET });
    expect(c.env).toMatchObject({ NATS_URL: 'nats://127.0.0.1:4222', REDIS_URL: 'redis://127.0.0.1:6379', PORT: 8080, OPS_PORT: 9090, BILLING_MODE: 'enforce', MIGRATIONS: 'apply' });
    expect(c.options).toMatchObject({ agentKeyPrefix: 'amk', rateLimitsEnabled: true, embedder: { kind: 'use-lite' } });
    expect(c.options.billing).toEqual({ sandboxCreditMicroUsd: 100_000_000, reservationSweepIntervalMs: 60_000, reservationMaxAgeMs: 600_000 });
    expect(loadClusterConfig('files', S3).s3).toMatchObject({ requestTimeoutMs: 30_000 });
  });

  it('takes the reservation sweeper and the S3 request timeout from the environment', () => {
    const billing = loadClusterConfig('billing', { ...PUBLIC, BILLING_RESERVATION_SWEEP_INTERVAL_MS: '0', BILLING_RESERVATION_MAX_AGE_MS: '120000' }).options.billing;
    expect(billing).toMatchObject({ reservationSweepIntervalMs: 0, reservationMaxAgeMs: 120_000 });
    expect(loadClusterConfig('memory', { ...S3, S3_REQUEST_TIMEOUT_MS: '5000' }).s3).toMatchObject({ requestTimeoutMs: 5_000 });
  });

  it.each([
    ['an unknown process', 'worker', {}, /Unknown process "worker"/],
    ['a bad port', 'agents', { OPS_PORT: '70000' }, /OPS_PORT: must be a number from 1 to 65535/],
    ['a port that is not a number', 'agents', { OPS_PORT: 'abc' }, /OPS_PORT: .*\(got "abc"\)/],
    ['a bad database URL', 'records', { DATABASE_URL: 'mysql://x' }, /DATABASE_URL: must be a postgres:\/\/ URL/],
    ['files without S3', 'files', {}, /S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY are required by the files process/],
    ['a gateway without the shared payment secret', 'gateway', {}, /PAYMENT_SECRET_KEY is required by a cluster gateway/],
    ['a gateway in ledger mode without it too (top-ups take credentials in every mode)', 'gateway', { BILLING_MODE: 'ledger' }, /PAYMENT_SECRET_KEY/],
    ['a bad billing mode', 'billing', { BILLING_MODE: 'free' }, /BILLING_MODE/],
    ['a reservation age below one minute (a running paid call could lose its charge)', 'billing', { BILLING_RESERVATION_MAX_AGE_MS: '30000' }, /BILLING_RESERVATION_MAX_AGE_MS/],
    ['an S3 request timeout that is not a number', 'files', { ...S3, S3_REQUEST_TIMEOUT_MS: 'soon' }, /S3_REQUEST_TIMEOUT_MS/],
    ['a gateway whose ops port is its API port (/metrics would be public)', 'gateway', { ...SECRET, PORT: '8080', OPS_PORT: '8080' }, /OPS_PORT: must differ from PORT/],
    ['a gateway without the bus signing key', 'gateway', { PAYMENT_SECRET_KEY: 'x'.repeat(32) }, /BUS_SIGNING_PRIVATE_KEY is required by the gateway process/],
    ['a service without the key to verify the gateway with', 'memory', { S3_ENDPOINT: 'http://127.0.0.1:9000', S3_ACCESS_KEY: 'a', S3_SECRET_KEY: 'b' }, /BUS_SIGNING_PUBLIC_KEY is required by the memory process/],
    ['a signing key that is not an Ed25519 key', 'gateway', { ...SECRET, BUS_SIGNING_PRIVATE_KEY: 'bm90IGEga2V5' }, /BUS_SIGNING_PRIVATE_KEY: must be an Ed25519 private key/],
    ['a public key given where the private one belongs', 'gateway', { ...SECRET, BUS_SIGNING_PRIVATE_KEY: PUBLIC.BUS_SIGNING_PUBLIC_KEY }, /BUS_SIGNING_PRIVATE_KEY/],
    ['an OpenAI-compatible embedder without its URL', 'memory', { ...S3, EMBEDDER: 'openai-compatible' }, /EMBEDDINGS_URL, EMBEDDINGS_MODEL, EMBEDDINGS_DIMENSION/],
  ])('refuses %s', (_label, name, env, message) => {
    expect(() => loadClusterConfig(name, env as NodeJS.ProcessEnv)).toThrow(message);
  });

  it('lets the other processes start without the payment secret, and S3-free processes without S3', () => {
    for (const p of ['agents', 'records', 'billing', 'vector-index', 'migrate']) expect(loadClusterConfig(p, { ...PUBLIC }).s3).toBeUndefined();
    expect(loadClusterConfig('memory', S3).s3).toMatchObject({ bucket: 'agent-memory', region: 'us-east-1' });
  });

  it('gives each process its NATS user and only the key it needs', () => {
    const gateway = natsAuthOf(loadClusterConfig('gateway', { ...SECRET, NATS_PASSWORD: 'pw' }));
    expect(gateway).toMatchObject({ user: 'gateway', pass: 'pw' });
    expect(gateway.signer).toBeDefined();
    expect(gateway.verifier).toBeUndefined();
    const billing = natsAuthOf(loadClusterConfig('billing', { ...PUBLIC, NATS_PASSWORD: 'pw', NATS_USER: 'billing-eu' }));
    expect(billing).toMatchObject({ user: 'billing-eu', pass: 'pw' });
    expect(billing.signer).toBeUndefined();
    expect(billing.verifier).toBeDefined();
    // without a password the connection is anonymous (a NATS server without authorization)
    expect(natsAuthOf(loadClusterConfig('records', { ...PUBLIC })).user).toBeUndefined();
  });
});
