import 'reflect-metadata';
import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientProxyFactory, type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { BLOB_STORE } from './blob-store/blob-store.port';
import { FilesystemBlobStore } from './blob-store/filesystem.blob-store';
import { BUS_REQUEST_TIMEOUT_MS, BUS_TRANSPORT_CLIENT, BusClient } from './bus/bus-client';
import { env, parseEnv } from './config/parse-env';
import { DATABASE } from './database/database.port';
import { PgliteDatabase } from './database/pglite.database';
import { InProcessJobQueue } from './jobs/in-process.job-queue';
import { JOB_QUEUE } from './jobs/job-queue.port';
import { DATA_DIR } from './platform.module';

/** Environment of one service running alone (its `main.ts`). */
export const ServiceEnvSchema = z.object({
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  DATA_DIR: z.string().min(1).default('./data'),
  BUS_REQUEST_TIMEOUT_MS: env.int(30_000, 100),
});

/**
 * Platform of a service running as its own process: NATS for the bus (requests in a queue group, so N
 * replicas share them), and, until the cluster adapters land, the embedded database, blob store and job
 * queue under `DATA_DIR/<service>`.
 */
@Module({})
export class ServicePlatformModule {
  static forService(service: string, e: z.output<typeof ServiceEnvSchema>): DynamicModule {
    const dir = join(resolve(e.DATA_DIR), service);
    return {
      module: ServicePlatformModule,
      global: true,
      providers: [
        { provide: DATA_DIR, useValue: dir },
        { provide: DATABASE, useFactory: () => PgliteDatabase.open(join(dir, 'postgres')) },
        { provide: BLOB_STORE, useValue: new FilesystemBlobStore(join(dir, 'blobs')) },
        { provide: JOB_QUEUE, useValue: new InProcessJobQueue() },
        { provide: BUS_TRANSPORT_CLIENT, useFactory: () => ClientProxyFactory.create({ transport: Transport.NATS, options: { servers: [e.NATS_URL] } }) },
        { provide: BUS_REQUEST_TIMEOUT_MS, useValue: e.BUS_REQUEST_TIMEOUT_MS },
        BusClient,
      ],
      exports: [DATA_DIR, DATABASE, BLOB_STORE, JOB_QUEUE, BUS_TRANSPORT_CLIENT, BusClient],
    };
  }
}

/**
 * Runs one service module alone as a NATS microservice in queue group `service` (each service's
 * `main.ts`). Resolves once it listens.
 */
export async function runServiceAlone(
  service: string,
  serviceModule: Type<unknown> | DynamicModule | ((ctx: { dataDir: string }) => DynamicModule),
): Promise<void> {
  const e = parseEnv(ServiceEnvSchema);
  const root = typeof serviceModule === 'function' && !('prototype' in serviceModule) ? (serviceModule as (ctx: { dataDir: string }) => DynamicModule)({ dataDir: join(resolve(e.DATA_DIR), service) }) : (serviceModule as Type<unknown> | DynamicModule);
  @Module({ imports: [ServicePlatformModule.forService(service, e), root] })
  class ServiceRootModule {}
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(ServiceRootModule, {
    transport: Transport.NATS,
    options: { servers: [e.NATS_URL], queue: service },
  });
  app.enableShutdownHooks();
  await app.listen();
  process.stdout.write(`agent-memory ${service} service listening on ${e.NATS_URL} (queue group "${service}")\n`);
}
