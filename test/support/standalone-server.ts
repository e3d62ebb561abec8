import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { SignatureRealm } from '@agent-memory/gateway';
import { createStandaloneApp, loadStandaloneConfig, type StandaloneOverrides } from '@agent-memory/standalone';

/** A standalone server started for a test, on a random port, with its own data directory. */
export interface TestServer {
  url: string;
  dataDir: string;
  app: NestFastifyApplication;
  /** The deployment wallet signatures must name (its `SIGNATURE_DOMAIN`, by default from `PASSKEY_ORIGINS`, and chain id). */
  signatureRealm: SignatureRealm;
  /** Stops the server; keeps the data directory unless `removeData` is set. */
  close(options?: { removeData?: boolean }): Promise<void>;
}

/**
 * Starts the real standalone application (every service, embedded adapters) on 127.0.0.1 and a free
 * port (or `port`: then `PORT` and the default `PASSKEY_ORIGINS` name it). `env` overrides the environment (e.g. `RATE_LIMITS: 'off'`); `dataDir` reuses a directory to
 * test restarts; `paymentSettlement` replaces the chain settlement of Payment credentials (docs/billing.md).
 * The anonymous (create agent) limit is raised so that suites can create many agents.
 */
export async function startStandaloneServer(options: { env?: Record<string, string>; dataDir?: string; port?: number } & StandaloneOverrides = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'agent-memory-test-'));
  const config = loadStandaloneConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000', ...options.env, DATA_DIR: dataDir, PORT: String(options.port ?? 1) });
  const app = await createStandaloneApp(config, { paymentSettlement: options.paymentSettlement });
  try {
    await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  } catch (err) {
    // e.g. EADDRINUSE on a fixed port another process took meanwhile: free what the app opened.
    await app.close().catch(() => undefined);
    throw err;
  }
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    url,
    dataDir,
    app,
    signatureRealm: { domain: config.signatureDomain, chainId: config.payments.chainId },
    async close({ removeData = false } = {}) {
      await app.close();
      if (removeData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
