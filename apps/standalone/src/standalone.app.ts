import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoggerModule, Logger as PinoLogger } from 'nestjs-pino';
import { AgentsModule } from '@agent-memory/agents';
import { BillingModule } from '@agent-memory/billing';
import { FilesModule } from '@agent-memory/files';
import { configureGatewayApp, createGatewayHttpAdapter, GatewayModule, inMemoryRateLimiters } from '@agent-memory/gateway';
import { MemoryModule } from '@agent-memory/memory';
import { InProcessBus, InProcessServer, PlatformModule } from '@agent-memory/platform';
import { RecordsModule } from '@agent-memory/records';
import type { StandaloneConfig } from './standalone.config';

@Module({})
class StandaloneModule {
  static forRoot(config: StandaloneConfig, bus: InProcessBus): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            genReqId: (req) => (req as unknown as { id: string }).id,
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.agentKey', '*.walletPrivateKey'], censor: '[redacted]' },
            customProps: () => ({ mode: 'standalone' }),
            autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
          },
        }),
        PlatformModule.standalone({ dataDir: config.dataDir, busRequestTimeoutMs: config.busRequestTimeoutMs, bus }),
        AgentsModule.forRoot({ keyPrefix: config.agentKeyPrefix }),
        RecordsModule,
        MemoryModule.forRoot({ embedder: config.embedder, vectorIndex: { kind: 'embedded', directory: join(config.dataDir, 'vectors') } }),
        FilesModule,
        BillingModule,
        GatewayModule.forRoot(
          {
            rateLimitsEnabled: config.rateLimitsEnabled,
            anonymousPerMinute: config.anonymousPerMinute,
            billingMode: config.billingMode,
            signatureWindowSeconds: config.signatureWindowSeconds,
          },
          { rateLimiters: inMemoryRateLimiters(config.anonymousPerMinute), readiness: async () => ({ services: 'up' }) },
        ),
      ],
    };
  }
}

/**
 * Builds the standalone application (DESIGN.md §2): every service module in one process, joined by the
 * in-process bus, on embedded adapters under `config.dataDir`. Call `listen` on the result to serve.
 */
export async function createStandaloneApp(config: StandaloneConfig): Promise<NestFastifyApplication> {
  const bus = new InProcessBus();
  const app = await NestFactory.create<NestFastifyApplication>(StandaloneModule.forRoot(config, bus), createGatewayHttpAdapter(), {
    bufferLogs: true,
    rawBody: true,
    // Throw start-up errors to the caller instead of exiting the process.
    abortOnError: false,
  });
  app.useLogger(app.get(PinoLogger));
  app.enableShutdownHooks();
  app.connectMicroservice({ strategy: new InProcessServer(bus) }, { inheritAppConfig: false });
  configureGatewayApp(app);
  await app.startAllMicroservices();
  await app.init();
  return app;
}
