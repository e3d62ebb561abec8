import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { z } from 'zod';
import { env, parseEnv, ServicePlatformModule, ServiceEnvSchema } from '@agent-memory/platform';
import { GatewayModule, inMemoryRateLimiters } from './gateway.module';
import { configureGatewayApp, createGatewayHttpAdapter } from './http-app';

const GatewayEnvSchema = ServiceEnvSchema.extend({ PORT: env.port(8080), HOST: z.string().min(1).default('127.0.0.1') });

/** The gateway as its own process: HTTP in, NATS requests out to the services. */
async function main(): Promise<void> {
  const e = parseEnv(GatewayEnvSchema);
  @Module({
    imports: [
      ServicePlatformModule.forService('gateway', e),
      GatewayModule.forRoot(
        { rateLimitsEnabled: true, anonymousPerMinute: 100, billingMode: 'ledger', signatureWindowSeconds: 300 },
        { rateLimiters: inMemoryRateLimiters(100), readiness: async () => ({ bus: 'up' }) },
      ),
    ],
  })
  class GatewayRootModule {}
  const app = await NestFactory.create<NestFastifyApplication>(GatewayRootModule, createGatewayHttpAdapter(), { rawBody: true, abortOnError: false });
  app.enableShutdownHooks();
  configureGatewayApp(app);
  await app.listen({ port: e.PORT, host: e.HOST });
  process.stdout.write(`agent-memory gateway listening on http://${e.HOST}:${e.PORT}, services over ${e.NATS_URL}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
