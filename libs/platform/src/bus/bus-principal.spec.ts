/**
 * The principal check on the in-process bus (standalone mode): the same BusPrincipalInterceptor as on
 * NATS, fed by the gateway's own request context instead of verified signatures.
 */
import 'reflect-metadata';
import { Controller, type INestApplication, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { z } from 'zod';
import { SUBJECTS } from '@agent-memory/shared';
import { connectMicroserviceWith } from '../ops/hybrid-microservice';
import { BusClient } from './bus-client';
import { runWithBusHeaders } from './bus-context';
import { BusPrincipalInterceptor, principalRefusal } from './bus-principal';
import { InProcessBus, InProcessClient, InProcessServer } from './in-process.transport';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';

@Controller()
@UseFilters(RpcDomainExceptionFilter)
class StandIn {
  @MessagePattern(SUBJECTS.memory.context)
  context(@Payload() m: { agentId: string }) {
    return { servedFor: m.agentId };
  }

  @MessagePattern(SUBJECTS.records.create)
  create(@Payload() m: { agentId: string }) {
    return { servedFor: m.agentId };
  }

  @MessagePattern(SUBJECTS.agents.authenticateKey)
  authenticate() {
    return { servedFor: 'anyone' };
  }
}
@Module({ controllers: [StandIn] })
class StandInModule {}

const Reply = z.object({ servedFor: z.string() });
let app: INestApplication;
let bus: BusClient;

beforeAll(async () => {
  const inProcess = new InProcessBus();
  app = await NestFactory.create(StandInModule, new FastifyAdapter(), { logger: false });
  connectMicroserviceWith(app, { strategy: new InProcessServer(inProcess) }, { interceptors: [new BusPrincipalInterceptor()] });
  await app.startAllMicroservices();
  await app.init();
  bus = new BusClient(new InProcessClient(inProcess), 2_000);
});
afterAll(() => app.close());

const as = (agentId: string | undefined, subject: string, body: unknown) =>
  runWithBusHeaders(agentId ? { requestId: 'r', agentId, keyEnvironment: 'test' } : { requestId: 'r' }, () => bus.request(subject, body, Reply));

describe('BusPrincipalInterceptor on the in-process bus', () => {
  it('runs a message acting for its own principal', async () => {
    await expect(as('agt_alice', SUBJECTS.memory.context, { agentId: 'agt_alice', recordId: 'rec_1', limit: 10 })).resolves.toEqual({ servedFor: 'agt_alice' });
  });

  it('refuses a body naming another agent (FORBIDDEN) and a missing principal (UNAUTHORIZED)', async () => {
    await expect(as('agt_mallory', SUBJECTS.memory.context, { agentId: 'agt_alice', recordId: 'rec_1', limit: 10 })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(as(undefined, SUBJECTS.memory.context, { agentId: 'agt_alice', recordId: 'rec_1', limit: 10 })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('lets records.create run without a principal (the agents service creating an agent) but not for another one', async () => {
    await expect(as(undefined, SUBJECTS.records.create, { agentId: 'agt_new' })).resolves.toEqual({ servedFor: 'agt_new' });
    await expect(as('agt_mallory', SUBJECTS.records.create, { agentId: 'agt_alice' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('leaves subjects without an acting agent alone', async () => {
    await expect(as(undefined, SUBJECTS.agents.authenticateKey, { agentKey: 'amk_x' })).resolves.toEqual({ servedFor: 'anyone' });
  });
});

describe('principalRefusal', () => {
  it('is undefined for unbound subjects and for a matching principal, a DomainError otherwise', () => {
    expect(principalRefusal('vector-index.v1.count', { agentId: 'x' }, undefined)).toBeUndefined();
    expect(principalRefusal(SUBJECTS.billing.credit, { agentId: 'agt_a' }, 'agt_a')).toBeUndefined();
    expect(principalRefusal(SUBJECTS.billing.credit, { agentId: 'agt_b' }, 'agt_a')?.code).toBe('FORBIDDEN');
    expect(principalRefusal(SUBJECTS.billing.credit, null, 'agt_a')?.code).toBe('FORBIDDEN');
    expect(principalRefusal(SUBJECTS.billing.credit, { agentId: 'agt_b' }, undefined)?.code).toBe('UNAUTHORIZED');
  });
});
