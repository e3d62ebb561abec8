import 'reflect-metadata';
import { Controller, Global, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { TimeoutError } from 'rxjs';
import { z } from 'zod';
import { DomainError, NotFoundError } from '@agent-memory/shared';
import { BUS_REQUEST_TIMEOUT_MS, BUS_TRANSPORT_CLIENT, BusClient, busTransportErrorKind } from '../bus/bus-client';
import { BUS_REPLY_GRACE_MS } from '../bus/bus-context';
import { InProcessBus, InProcessClient, InProcessServer } from '../bus/in-process.transport';
import { RpcDomainExceptionFilter } from '../bus/rpc-exception.filter';
import { BusMetricsInterceptor } from './bus-metrics.interceptor';
import { connectMicroserviceWith } from './hybrid-microservice';
import { Metrics } from './metrics';
import { OpsModule } from './ops.module';

const subjects = { echo: 'test.v1.echo', fail: 'test.v1.fail', slow: 'test.v1.slow', bad: 'test.v1.bad', event: 'test.v1.happened', absent: 'test.v1.absent' };

@Controller()
class TestHandlers {
  @MessagePattern(subjects.echo)
  echo(data: { text: string }) {
    return { text: data.text };
  }

  @MessagePattern(subjects.fail)
  fail(): never {
    throw new NotFoundError('Record not found');
  }

  @MessagePattern(subjects.slow)
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 100 + BUS_REPLY_GRACE_MS + 300)); // past the timeout and its grace
    return { text: 'late' };
  }

  @MessagePattern(subjects.bad)
  bad() {
    return { wrong: true };
  }

  @EventPattern(subjects.event)
  happened() {
    // handled
  }
}

let initCalls = 0;
@Injectable()
class InitCounter implements OnModuleInit {
  onModuleInit(): void {
    initCalls++;
  }
}

/** Reads one sample value from Prometheus text, or 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('bus metrics in a hybrid app over the in-process transport', () => {
  let app: NestFastifyApplication;
  let bus: BusClient;
  let metrics: Metrics;
  const reply = z.object({ text: z.string() });

  beforeAll(async () => {
    const inProcess = new InProcessBus();
    // Global like PlatformModule, so OpsModule finds the transport client for its `bus` check.
    @Global()
    @Module({
      providers: [
        { provide: BUS_TRANSPORT_CLIENT, useValue: new InProcessClient(inProcess) },
        { provide: BUS_REQUEST_TIMEOUT_MS, useValue: 100 },
        BusClient,
      ],
      exports: [BUS_TRANSPORT_CLIENT, BusClient],
    })
    class TestPlatformModule {}
    @Module({ imports: [TestPlatformModule, OpsModule.forService({ service: 'bus-test' })], controllers: [TestHandlers], providers: [InitCounter] })
    class HybridModule {}
    app = await NestFactory.create<NestFastifyApplication>(HybridModule, new FastifyAdapter(), { logger: false });
    connectMicroserviceWith(app, { strategy: new InProcessServer(inProcess) }, { interceptors: [app.get(BusMetricsInterceptor)], filters: [new RpcDomainExceptionFilter()] });
    await app.startAllMicroservices();
    await app.listen({ port: 0, host: '127.0.0.1' });
    bus = app.get(BusClient);
    metrics = app.get(Metrics);
  });

  afterAll(async () => {
    await app.close();
  });

  it('runs lifecycle hooks once although the microservice was connected deferred', async () => {
    expect(initCalls).toBe(1);
    const url = await app.getUrl();
    await fetch(`${url}/healthz`);
    const text = await metrics.text();
    // One Fastify onResponse hook, not two: one request, one count.
    expect(sample(text, 'agent_memory_http_requests_total', { route: '/healthz' })).toBe(1);
  });

  it('counts handled requests and events with outcome ok or error, and times them', async () => {
    await expect(bus.request(subjects.echo, { text: 'hi' }, reply)).resolves.toEqual({ text: 'hi' });
    await bus.request(subjects.echo, { text: 'again' }, reply);
    await expect(bus.request(subjects.fail, {}, reply)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await bus.emit(subjects.event, { at: 1 });
    const text = await metrics.text();
    expect(sample(text, 'agent_memory_bus_messages_total', { subject: subjects.echo, outcome: 'ok', service: 'bus-test' })).toBe(2);
    expect(sample(text, 'agent_memory_bus_messages_total', { subject: subjects.fail, outcome: 'error' })).toBe(1);
    expect(sample(text, 'agent_memory_bus_messages_total', { subject: subjects.event, outcome: 'ok' })).toBe(1);
    expect(sample(text, 'agent_memory_bus_handler_duration_seconds_count', { subject: subjects.echo })).toBe(2);
    // The service's own error reply is not a transport failure.
    expect(sample(text, 'agent_memory_bus_errors_total', { subject: subjects.fail })).toBe(0);
  });

  it('counts transport failures on the sending side: no responder, timeout, malformed reply', async () => {
    await expect(bus.request(subjects.absent, {}, reply)).rejects.toBeInstanceOf(DomainError);
    await expect(bus.request(subjects.slow, {}, reply)).rejects.toMatchObject({ message: expect.stringMatching(/did not answer in time/) });
    await expect(bus.request(subjects.bad, {}, reply)).rejects.toMatchObject({ message: expect.stringMatching(/Malformed reply/) });
    const text = await metrics.text();
    expect(sample(text, 'agent_memory_bus_errors_total', { subject: subjects.absent, kind: 'no_responders', service: 'bus-test' })).toBe(1);
    expect(sample(text, 'agent_memory_bus_errors_total', { subject: subjects.slow, kind: 'timeout' })).toBe(1);
    expect(sample(text, 'agent_memory_bus_errors_total', { subject: subjects.bad, kind: 'malformed_reply' })).toBe(1);
  });

  it('registers the built-in bus readiness check and passes it in process', async () => {
    const res = await fetch(`${await app.getUrl()}/readyz`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).info).toEqual({ bus: { status: 'up' } });
  });
});

describe('busTransportErrorKind', () => {
  it('tells transport failures from a service error reply', () => {
    expect(busTransportErrorKind(new TimeoutError())).toBe('timeout');
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'x', transport: 'no_responders' })).toBe('no_responders');
    // The messages of NatsBusClient and InProcessBus.
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'The service is unavailable (no responder for memory.v1.recall)' })).toBe('no_responders');
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'No handler for memory.v1.recall' })).toBe('no_responders');
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'The service did not answer in time (memory.v1.recall)' })).toBe('timeout');
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'The service is unavailable' })).toBe('unavailable');
    expect(busTransportErrorKind(new Error('socket hang up'))).toBe('unavailable');
    expect(busTransportErrorKind({ code: 'NOT_FOUND', message: 'Record not found' })).toBeUndefined();
    expect(busTransportErrorKind({ code: 'INTERNAL_ERROR', message: 'Internal error (error id 1)' })).toBeUndefined();
  });
});
