import { launcherEnvSchema, ServiceOptionsEnvSchema, serviceOptionsFromEnv } from './service-options';

const LauncherEnv = launcherEnvSchema({ host: '127.0.0.1', dataDir: './data', billingMode: 'ledger', busRequestTimeoutMs: 30_000 });

/** The deployment's signature domain (docs/configuration.md, `SIGNATURE_DOMAIN`). */
describe('SIGNATURE_DOMAIN', () => {
  const options = (env: Record<string, string>, port = 8080) => serviceOptionsFromEnv(LauncherEnv.parse({ ...env, PORT: String(port) }));

  it('defaults to the host (with port) of the first passkey origin, itself http://localhost:<PORT> by default', () => {
    expect(options({}, 9000).signatureDomain).toBe('localhost:9000');
    expect(options({ PASSKEY_ORIGINS: 'https://Memory.Example.com, https://other.example.com' }).signatureDomain).toBe('memory.example.com');
    expect(options({ PASSKEY_ORIGINS: 'https://memory.example.com:8443' }).signatureDomain).toBe('memory.example.com:8443');
  });

  it('takes a configured host name, IPv4 address or localhost, in lower case; with the payment chain id', () => {
    const o = options({ SIGNATURE_DOMAIN: 'API.Memory.Example.com', PAYMENT_CHAIN_ID: '8453', PASSKEY_ORIGINS: 'https://dashboard.example.com' });
    expect([o.signatureDomain, o.payments.chainId]).toEqual(['api.memory.example.com', 8453]);
    expect(options({ SIGNATURE_DOMAIN: '10.0.0.7:8080' }).signatureDomain).toBe('10.0.0.7:8080');
    expect(options({ SIGNATURE_DOMAIN: 'localhost' }).signatureDomain).toBe('localhost');
  });

  it('refuses what cannot be an EIP-4361 domain: a URL, a path, a single label, a bad address', () => {
    for (const bad of ['https://memory.example.com', 'memory.example.com/api', 'intranet', '300.1.1.1', 'memory.example.c0m', '']) {
      expect(() => ServiceOptionsEnvSchema.parse({ SIGNATURE_DOMAIN: bad })).toThrow();
    }
  });

  it('asks for SIGNATURE_DOMAIN when the passkey origin host cannot be its default', () => {
    expect(() => options({ PASSKEY_ORIGINS: 'http://intranet:8080' })).toThrow(/SIGNATURE_DOMAIN: not set/);
    expect(options({ PASSKEY_ORIGINS: 'http://intranet:8080', SIGNATURE_DOMAIN: 'memory.example.com' }).signatureDomain).toBe('memory.example.com');
  });
});

/** The realm of the Payment challenges (docs/billing.md, "The realm"; docs/configuration.md). */
describe('PAYMENT_REALM', () => {
  const options = (env: Record<string, string>, port = 8080) => serviceOptionsFromEnv(LauncherEnv.parse({ ...env, PORT: String(port) }));

  it('defaults to the host name of SIGNATURE_DOMAIN without its port, the name an MPP client compares it with', () => {
    expect(options({}, 9000).payments.realm).toBe('localhost');
    expect(options({ SIGNATURE_DOMAIN: 'memory.example.com:8443' }).payments.realm).toBe('memory.example.com');
    expect(options({ SIGNATURE_DOMAIN: '127.0.0.1' }).payments.realm).toBe('127.0.0.1');
    expect(options({ PASSKEY_ORIGINS: 'https://dashboard.example.com' }).payments.realm).toBe('dashboard.example.com');
  });

  it('takes a configured realm over the derived one, e.g. a parent domain of several API hosts', () => {
    expect(options({ SIGNATURE_DOMAIN: 'api.example.com', PAYMENT_REALM: 'example.com' }).payments.realm).toBe('example.com');
  });
});

/** The engine of the use-lite embedder and its model cache (docs/configuration.md, `EMBEDDER_RUNTIME`). */
describe('EMBEDDER_RUNTIME', () => {
  const options = (env: Record<string, string>) => serviceOptionsFromEnv(LauncherEnv.parse(env));

  it('defaults to auto, with the converted model cached under <DATA_DIR>/models (absolute)', () => {
    expect(options({ DATA_DIR: '/srv/memory' }).embedder).toEqual({ kind: 'use-lite', runtime: 'auto', precision: 'int8', modelCacheDirectory: '/srv/memory/models' });
    expect(options({}).embedder).toMatchObject({ modelCacheDirectory: `${process.cwd()}/data/models` });
  });

  it('takes onnx or tfjs and refuses anything else', () => {
    expect(options({ EMBEDDER_RUNTIME: 'tfjs' }).embedder).toMatchObject({ kind: 'use-lite', runtime: 'tfjs' });
    expect(options({ EMBEDDER_RUNTIME: 'onnx' }).embedder).toMatchObject({ runtime: 'onnx' });
    expect(() => LauncherEnv.parse({ EMBEDDER_RUNTIME: 'wasm' })).toThrow();
  });

  it('EMBEDDER_PRECISION: int8 by default, fp32 on request, nothing else', () => {
    expect(options({ EMBEDDER_PRECISION: 'fp32' }).embedder).toMatchObject({ kind: 'use-lite', precision: 'fp32' });
    expect(() => LauncherEnv.parse({ EMBEDDER_PRECISION: 'int4' })).toThrow();
  });
});
