import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AgentsModule } from '@agent-memory/agents';
import { BillingModule } from '@agent-memory/billing';
import { serviceModuleOptions } from '@agent-memory/config';
import { FilesModule } from '@agent-memory/files';
import { configureGatewayApp, createGatewayHttpAdapter, GatewayModule, inMemoryRateLimiters, LOG_REDACT_PATHS, type PaymentSettlement } from '@agent-memory/gateway';
import { MemoryModule } from '@agent-memory/memory';
import { createLauncherLog, InProcessBus, InProcessServer, launchApp, type LauncherLog, OpsModule, PlatformModule } from '@agent-memory/platform';
import { RecordsModule } from '@agent-memory/records';
import { preparePrivateDataDirectory } from './data-directory';
import type { StandaloneConfig } from './standalone.config';

/** Adapters a test may put in place of the configured ones, and what `npm start` adds. */
export interface StandaloneOverrides {
  /** Settlement of Payment credentials (tests: a local one instead of the chain; docs/billing.md). */
  paymentSettlement?: PaymentSettlement;
  /** The process's logger when the caller already writes to it (`npm start`'s progress lines); default one from `config`. */
  log?: LauncherLog;
  /**
   * Load the embedding model, the classifier and the summariser before the app is ready, instead of on the
   * first remember or recall (`npm start`: the first remember does not stall). Default false (tests start faster).
   */
  warmUp?: boolean;
}

/** The standalone process's logger from its configuration (`LOG_LEVEL`, `LOG_FORMAT`), credentials redacted. */
export function standaloneLog(config: StandaloneConfig): LauncherLog {
  return createLauncherLog({ level: config.logLevel, format: config.logFormat, props: { mode: 'standalone' }, redactPaths: LOG_REDACT_PATHS });
}

/**
 * Builds the standalone application (docs/architecture.md, "Launchers"): every service module in one
 * process, joined by the in-process bus, on embedded adapters under `config.dataDir` (PGlite, filesystem
 * blobs, in-process jobs, the embedded vector index). Call `listen` on the result to serve.
 */
export async function createStandaloneApp(config: StandaloneConfig, overrides: StandaloneOverrides = {}): Promise<NestFastifyApplication> {
  // Before anything under the data directory is opened: 0700 directories, 0600 files (umask, and tightening).
  await preparePrivateDataDirectory(config.dataDir);
  const bus = new InProcessBus();
  const m = serviceModuleOptions(config);
  return launchApp({
    log: overrides.log ?? standaloneLog(config),
    imports: [
      PlatformModule.standalone({ dataDir: config.dataDir, busRequestTimeoutMs: config.busRequestTimeoutMs, bus }),
      // The API port is public: /metrics only on the ops listener (OPS_PORT), /healthz and /readyz on both.
      OpsModule.forService({ service: 'standalone', metricsOnHttp: false, listen: config.ops }),
      AgentsModule.forRoot(m.agents),
      RecordsModule,
      // The index's upserts are not fdatasync'ed: PGlite runs with fsync = off, so a row is no more durable
      // than its vector (docs/configuration.md, "The embedded database").
      MemoryModule.forRoot({
        ...m.memory,
        warmUp: overrides.warmUp === true,
        vectorIndex: { kind: 'embedded', directory: join(config.dataDir, 'vectors'), memoryBudgetBytes: config.vectorIndexMemoryBudgetBytes, syncWrites: false },
      }),
      FilesModule.forRoot(m.files),
      BillingModule.forRoot(m.billing),
      GatewayModule.forRoot(m.gateway, { rateLimiters: inMemoryRateLimiters(config.anonymousPerMinute), paymentSettlement: overrides.paymentSettlement }),
    ],
    httpAdapter: createGatewayHttpAdapter(),
    rawBody: true,
    busServers: [new InProcessServer(bus)],
    configure: (app) => configureGatewayApp(app, { security: { hstsMaxAgeSeconds: config.hstsMaxAgeSeconds }, dashboard: { directory: config.dashboardDirectory, passkeyRpId: config.auth.passkeys.rpId } }),
  });
}
