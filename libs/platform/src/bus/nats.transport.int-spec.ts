/**
 * The cluster bus on a real nats-server (a private one with JetStream, so the test may stop it): the
 * correlation id crosses in NATS headers, a subject nobody serves fails fast, and events are durable
 * (published while the consumer is down, delivered when it starts).
 */
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import type { ClientProxy } from '@nestjs/microservices';
import { z } from 'zod';
import { DomainError } from '@agent-memory/shared';
import { generateBusCredentials, startNatsServer, type TestInfraServer } from '@agent-memory/testing';
import { connectMicroserviceWith } from '../ops/hybrid-microservice';
import { BusClient } from './bus-client';
import { BUS_REPLY_GRACE_MS, currentBusHeaders, runWithBusHeaders, setBusPrincipal } from './bus-context';
import { BusSigner, BusVerifier } from './bus-signature';
import { DrainingNatsServer, JetStreamEventServer, NatsBusClient, NatsBusContextInterceptor } from './nats.transport';

const seen: Array<{ event: unknown; requestId?: string }> = [];

@Controller()
class EchoHandler {
  @MessagePattern('test.v1.echo')
  echo(@Payload() data: { text: string }) {
    const h = currentBusHeaders();
    return { text: data.text, requestId: h?.requestId, agentId: h?.agentId ?? null, keyEnvironment: h?.keyEnvironment ?? null };
  }

  @MessagePattern('test.v1.deadline')
  deadline() {
    return { deadline: currentBusHeaders()?.deadline ?? null };
  }

  @MessagePattern('test.v1.slow')
  async slow(@Payload() data: { ms: number }) {
    await new Promise((r) => setTimeout(r, data.ms));
    return { done: true };
  }

  @EventPattern('test.v1.happened')
  happened(@Payload() event: unknown, @Ctx() _ctx: unknown) {
    seen.push({ event, requestId: currentBusHeaders()?.requestId });
  }
}

@Module({ controllers: [EchoHandler] })
class EchoModule {}

let nats: TestInfraServer;
let bus: BusClient;
let client: NatsBusClient;
// the principal crosses only signed by the gateway's key and verified by the service (nats-auth.int-spec.ts)
const keys = generateBusCredentials();

async function startService(url: string, withEvents: boolean) {
  const app = await NestFactory.create(EchoModule, new FastifyAdapter(), { logger: false });
  const interceptors = [new NatsBusContextInterceptor()];
  const server = new DrainingNatsServer({ servers: [url], queue: 'test', name: 'test', auth: { verifier: new BusVerifier(keys.signingPublicKey, 60_000) } });
  connectMicroserviceWith(app, { strategy: server }, { interceptors });
  if (withEvents) connectMicroserviceWith(app, { strategy: new JetStreamEventServer({ servers: [url], service: 'test' }) }, { interceptors });
  await app.startAllMicroservices();
  await app.init();
  // the server has seen our subscriptions once a round trip on that connection completed
  await server.unwrap<{ flush(): Promise<void> }>().flush();
  return app;
}

beforeAll(async () => {
  nats = await startNatsServer();
  client = new NatsBusClient([nats.url], 'test-client', 2_000, { signer: new BusSigner(keys.signingPrivateKey) });
  bus = new BusClient(client as unknown as ClientProxy, 2_000);
}, 30_000);
afterAll(async () => {
  await client.close();
  await nats.destroy();
});

describe('NATS request/reply', () => {
  it('carries the request deadline (now + the request timeout) to the handler', async () => {
    const app = await startService(nats.url, false);
    try {
      const before = Date.now();
      const { deadline } = await bus.request('test.v1.deadline', {}, z.object({ deadline: z.number().nullable() }));
      expect(deadline).toBeGreaterThanOrEqual(before + 2_000);
      expect(deadline).toBeLessThanOrEqual(Date.now() + 2_000);
    } finally {
      await app.close();
    }
  });

  it('carries the correlation id in NATS headers to the handler', async () => {
    const app = await startService(nats.url, false);
    try {
      const Reply = z.object({ text: z.string(), requestId: z.string(), agentId: z.string().nullable(), keyEnvironment: z.string().nullable() });
      const reply = await runWithBusHeaders({ requestId: 'req-42' }, () => bus.request('test.v1.echo', { text: 'hi' }, Reply));
      expect(reply).toEqual({ text: 'hi', requestId: 'req-42', agentId: null, keyEnvironment: null });
      // once the gateway has authenticated the caller, the principal rides along too (docs/architecture.md, "Security of the bus")
      const authenticated = await runWithBusHeaders({ requestId: 'req-43' }, async () => {
        setBusPrincipal({ agentId: 'agt_principal', keyEnvironment: 'test' });
        return bus.request('test.v1.echo', { text: 'hi' }, Reply);
      });
      expect(authenticated).toEqual({ text: 'hi', requestId: 'req-43', agentId: 'agt_principal', keyEnvironment: 'test' });
    } finally {
      await app.close();
    }
  });

  it('fails at once with INTERNAL_ERROR when no replica serves the subject (a dead service)', async () => {
    const started = Date.now();
    await expect(bus.request('test.v1.echo', { text: 'hi' }, z.unknown())).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/unavailable/) });
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(bus.request('test.v1.echo', { text: 'x' }, z.unknown())).rejects.toBeInstanceOf(DomainError);
  });

  it('fails with INTERNAL_ERROR after the timeout when the handler is too slow', async () => {
    const app = await startService(nats.url, false);
    try {
      // the client waits the request timeout (2 s) plus BUS_REPLY_GRACE_MS for a late "not applied" reply
      await expect(bus.request('test.v1.slow', { ms: 2_000 + BUS_REPLY_GRACE_MS + 1_000 }, z.unknown())).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/in time/) });
    } finally {
      await app.close();
    }
  });

  it('on close, finishes the request it is handling before it drains (graceful shutdown)', async () => {
    const app = await startService(nats.url, false);
    const pending = bus.request('test.v1.slow', { ms: 500 }, z.object({ done: z.boolean() }));
    await new Promise((r) => setTimeout(r, 100));
    await app.close();
    await expect(pending).resolves.toEqual({ done: true });
  });
});

describe('JetStream events', () => {
  it('delivers an event published while the consumer was down, once, with its correlation id', async () => {
    seen.length = 0;
    // the durable consumer is created on first start; stop it, publish, start again
    const first = await startService(nats.url, true);
    await first.close();
    await runWithBusHeaders({ requestId: 'evt-7' }, () => bus.emit('test.v1.happened', { eventId: 'e-1', n: 1 }));
    await runWithBusHeaders({ requestId: 'evt-7' }, () => bus.emit('test.v1.happened', { eventId: 'e-1', n: 1 })); // an outbox retry: de-duplicated
    expect(seen).toEqual([]);
    const second = await startService(nats.url, true);
    try {
      for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      expect(seen).toEqual([{ event: { eventId: 'e-1', n: 1 }, requestId: 'evt-7' }]);
    } finally {
      await second.close();
    }
  }, 30_000);
});
