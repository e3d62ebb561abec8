import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoggerModule, Logger as PinoLogger } from 'nestjs-pino';
import { AgentsModule } from '@agent-memory/agents';
import { BillingModule } from '@agent-memory/billing';
import { FilesModule } from '@agent-memory/files';
import { configureGatewayApp, createGatewayHttpAdapter, GatewayModule, inMemoryRateLimiters, LOG_REDACT_PATHS, type PaymentSettlement } from '@agent-memory/gateway';
import { MemoryModule } from '@agent-memory/memory';
import { BusMetricsInterceptor, busLogFields, BusPrincipalInterceptor, connectMicroserviceWith, InProcessBus, InProcessServer, OpsModule, PlatformModule } from '@agent-memory/platform';
import { RecordsModule } from '@agent-memory/records';
import { preparePrivateDataDirectory } from './data-directory';
import type { StandaloneConfig } from './standalone.config';

@Module({})
class StandaloneModule {
  static forRoot(config: StandaloneConfig, bus: InProcessBus, overrides: StandaloneOverrides): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            genReqId: (req) => (req as unknown as { id: string }).id,
            redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
            mixin: () => busLogFields(), // request id and, once authenticated, agent id on every line
            customProps: () => ({ mode: 'standalone' }),
            autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
          },
        }),
        PlatformModule.standalone({ dataDir: config.dataDir, busRequestTimeoutMs: config.busRequestTimeoutMs, bus }),
        // The API port is public: /metrics only on the ops listener (OPS_PORT), /healthz and /readyz on both.
        OpsModule.forService({ service: 'standalone', metricsOnHttp: false, listen: config.ops }),
        AgentsModule.forRoot({ keyPrefix: config.agentKeyPrefix, keyRotationGraceSeconds: config.auth.keyRotationGraceSeconds, passkeys: config.auth.passkeys, signatureRealm: { domain: config.signatureDomain, chainId: config.payments.chainId } }),
        RecordsModule,
        MemoryModule.forRoot({ embedder: config.embedder, vectorIndex: { kind: 'embedded', directory: join(config.dataDir, 'vectors'), memoryBudgetBytes: config.vectorIndexMemoryBudgetBytes }, enrichment: config.enrichment, quota: config.quotas.memory, admission: config.memoryAdmission, vacuumDelayMs: config.forgetVacuumDelayMs }),
        FilesModule.forRoot({ quota: config.quotas.files, vacuumDelayMs: config.forgetVacuumDelayMs }),
        BillingModule.forRoot(config.billing),
        GatewayModule.forRoot(
          {
            rateLimitsEnabled: config.rateLimitsEnabled,
            anonymousPerMinute: config.anonymousPerMinute,
            billingMode: config.billingMode,
            payments: config.payments,
            signatureWindowSeconds: config.signatureWindowSeconds,
            signatureDomain: config.signatureDomain,
          },
          { rateLimiters: inMemoryRateLimiters(config.anonymousPerMinute), paymentSettlement: overrides.paymentSettlement },
        ),
      ],
    };
  }
}

/** Adapters a test may put in place of the configured ones. */
export interface StandaloneOverrides {
  /** Settlement of Payment credentials (tests: a local one instead of the chain; docs/billing.md). */
  paymentSettlement?: PaymentSettlement;
}

/**
 * Builds the standalone application (DESIGN.md §2): every service module in one process, joined by the
 * in-process bus, on embedded adapters under `config.dataDir`. Call `listen` on the result to serve.
 */
export async function createStandaloneApp(config: StandaloneConfig, overrides: StandaloneOverrides = {}): Promise<NestFastifyApplication> {
  // Before anything under the data directory is opened: 0700 directories, 0600 files (umask, and tightening).
  await preparePrivateDataDirectory(config.dataDir);
  const bus = new InProcessBus();
  const app = await NestFactory.create<NestFastifyApplication>(StandaloneModule.forRoot(config, bus, overrides), createGatewayHttpAdapter(), {
    bufferLogs: true,
    rawBody: true,
    // Throw start-up errors to the caller instead of exiting the process.
    abortOnError: false,
  });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks();
  // The gateway's envelope and filter stay off the bus handlers (inheritAppConfig false); they get the bus metrics.
  // The same principal check as the cluster's services: a handler acts only for the agent the gateway authenticated.
  connectMicroserviceWith(app, { strategy: new InProcessServer(bus) }, { interceptors: [new BusPrincipalInterceptor(), app.get(BusMetricsInterceptor)] });
  configureGatewayApp(app, { security: { hstsMaxAgeSeconds: config.hstsMaxAgeSeconds } });
  await app.startAllMicroservices();
  await app.init();
  return app;
}
