import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { z } from 'zod';
import { BUS_REQUEST_TIMEOUT_MS, BUS_TRANSPORT_CLIENT, BusClient } from './bus-client';
import { BusEdge, messageClass, schemaOfMessageClass } from './bus-edge';
import { InProcessBus, InProcessClient, InProcessContext, InProcessServer } from './in-process.transport';
import { connectMicroserviceWith } from '../ops/hybrid-microservice';

const EchoSchema = z.object({ text: z.string().min(1), times: z.number().int().positive().default(1) });
class EchoMessage extends messageClass(EchoSchema) {}
const subjects = { echo: 'edge-test.v1.echo', untyped: 'edge-test.v1.untyped', context: 'edge-test.v1.context' };

@BusEdge()
class EdgeHandlers {
  @MessagePattern(subjects.echo)
  echo(@Payload() m: EchoMessage) {
    // `times` arrives with its default applied: the handler gets the parsed message.
    return { text: m.text.repeat(m.times) };
  }

  @MessagePattern(subjects.untyped)
  untyped(@Payload() m: { text: string }) {
    return { text: m.text };
  }

  @MessagePattern(subjects.context)
  context(@Payload() m: EchoMessage, @Ctx() ctx: InProcessContext) {
    return { text: `${m.text}@${ctx.getSubject()}` };
  }
}

describe('BusEdge: bus handlers validate their payload by its message class', () => {
  let app: NestFastifyApplication;
  let bus: BusClient;
  const reply = z.object({ text: z.string() });

  beforeAll(async () => {
    const inProcess = new InProcessBus();
    @Global()
    @Module({
      providers: [{ provide: BUS_TRANSPORT_CLIENT, useValue: new InProcessClient(inProcess) }, { provide: BUS_REQUEST_TIMEOUT_MS, useValue: 2_000 }, BusClient],
      exports: [BUS_TRANSPORT_CLIENT, BusClient],
    })
    class TestPlatformModule {}
    @Module({ imports: [TestPlatformModule], controllers: [EdgeHandlers] })
    class EdgeModule {}
    app = await NestFactory.create<NestFastifyApplication>(EdgeModule, new FastifyAdapter(), { logger: false });
    connectMicroserviceWith(app, { strategy: new InProcessServer(inProcess) }, {});
    await app.startAllMicroservices();
    await app.init();
    bus = app.get(BusClient);
  });

  afterAll(async () => {
    await app.close();
  });

  it('hands the handler the parsed message (defaults applied)', async () => {
    await expect(bus.request(subjects.echo, { text: 'ab' }, reply)).resolves.toEqual({ text: 'ab' });
    await expect(bus.request(subjects.echo, { text: 'ab', times: 2 }, reply)).resolves.toEqual({ text: 'abab' });
  });

  it('answers VALIDATION_ERROR naming the field, without running the handler', async () => {
    await expect(bus.request(subjects.echo, { text: '' }, reply)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('text') });
    await expect(bus.request(subjects.echo, { text: 'a', times: -1 }, reply)).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('times') });
  });

  it('refuses a handler whose payload is not declared with a message class (it would run unchecked)', async () => {
    await expect(bus.request(subjects.untyped, { text: 'a' }, reply)).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('passes other parameters (the context) through', async () => {
    await expect(bus.request(subjects.context, { text: 'a' }, reply)).resolves.toEqual({ text: `a@${subjects.context}` });
  });

  it('keeps the schema on the class and nowhere else', () => {
    expect(schemaOfMessageClass(EchoMessage)).toBe(EchoSchema);
    expect(schemaOfMessageClass(class Plain {})).toBeUndefined();
    expect(schemaOfMessageClass(undefined)).toBeUndefined();
  });
});
