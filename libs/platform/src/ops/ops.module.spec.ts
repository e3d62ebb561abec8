import 'reflect-metadata';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createServer } from 'node:net';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Metrics } from './metrics';
import { OpsListener } from './ops-listener';
import { OpsModule } from './ops.module';
import { ReadinessRegistry } from './readiness.registry';

@Controller('things')
class ThingsController {
  @Get(':id')
  get(@Param('id') id: string) {
    return { id };
  }
}

@Module({ imports: [OpsModule.forService({ service: 'probe-test', readinessCheckTimeoutMs: 200 })], controllers: [ThingsController] })
class AppModule {}

describe('OpsModule over a real Fastify app', () => {
  let app: NestFastifyApplication;
  let url: string;
  let registry: ReadinessRegistry;

  beforeAll(async () => {
    app = await NestFactory.create<NestFastifyApplication>(AppModule, new FastifyAdapter(), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = await app.getUrl();
    registry = app.get(ReadinessRegistry);
  });

  afterAll(async () => {
    await app.close();
  });

  afterEach(() => {
    for (const name of registry.names()) registry.unregister(name);
  });

  it('answers liveness with 200 and the event loop indicator', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    const body = (await res.json()) as any;
    expect(body.status).toBe('ok');
    expect(body.info.eventLoop.status).toBe('up');
    expect(typeof body.info.eventLoop.maxDelayMs).toBe('number');
  });

  it('answers readiness 200 when every check passes and with no checks at all', async () => {
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    registry.register('database', async () => undefined);
    registry.register('redis', async () => undefined);
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      info: { database: { status: 'up' }, redis: { status: 'up' } },
      error: {},
      details: { database: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('answers 503 naming the failing check, without echoing its error', async () => {
    registry.register('database', async () => undefined);
    registry.register('redis', async () => {
      throw new Error('connect ECONNREFUSED 10.1.2.3:6379');
    });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as any;
    expect(body.status).toBe('error');
    expect(body.info).toEqual({ database: { status: 'up' } });
    expect(body.error.redis.status).toBe('down');
    expect(JSON.stringify(body)).not.toContain('10.1.2.3');
  });

  it('times a hanging check out and answers 503 quickly', async () => {
    registry.register('qdrant', () => new Promise<void>(() => undefined));
    const started = Date.now();
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(((await res.json()) as any).error.qdrant).toEqual({ status: 'down', message: 'timed out after 200 ms' });
  });

  it('refuses a second check under the same name', () => {
    registry.register('database', async () => undefined);
    expect(() => registry.register('database', async () => undefined)).toThrow(/already registered/);
  });

  it('serves Prometheus text with the service label, default metrics and HTTP counts by route template', async () => {
    await fetch(`${url}/things/a1`);
    await fetch(`${url}/things/b2`);
    await fetch(`${url}/nowhere/${Math.random()}`);
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(app.get(Metrics).contentType);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^agent_memory_process_cpu_user_seconds_total\{service="probe-test"\} /m);
    expect(text).toMatch(/^agent_memory_nodejs_eventloop_lag_seconds\{service="probe-test"\} /m);
    expect(text).toContain('agent_memory_http_requests_total{method="GET",route="/things/:id",status="200",service="probe-test"} 2');
    expect(text).toContain('agent_memory_http_requests_total{method="GET",route="unmatched",status="404",service="probe-test"} 1');
    expect(text).toContain('agent_memory_http_request_duration_seconds_count{service="probe-test",method="GET",route="/things/:id"} 2');
    expect(text).not.toContain('/things/a1');
  });

  it('increments the HTTP counter after a request', async () => {
    const count = async () => {
      const m = /agent_memory_http_requests_total\{method="GET",route="\/healthz",status="200",service="probe-test"\} (\d+)/.exec(await (await fetch(`${url}/metrics`)).text());
      return m ? Number(m[1]) : 0;
    };
    const before = await count();
    await fetch(`${url}/healthz`);
    expect(await count()).toBe(before + 1);
  });

  it('reports queue depth from registered collectors and survives a failing one', async () => {
    const metrics = app.get(Metrics);
    let waiting = 3;
    metrics.registerQueueDepth(async () => [
      { queue: 'embed', state: 'waiting', count: waiting },
      { queue: 'embed', state: 'active', count: 1 },
    ]);
    metrics.registerQueueDepth(async () => {
      throw new Error('queue backend down');
    });
    let text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('agent_memory_queue_jobs{queue="embed",state="waiting",service="probe-test"} 3');
    expect(text).toContain('agent_memory_queue_jobs{queue="embed",state="active",service="probe-test"} 1');
    waiting = 0;
    text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('agent_memory_queue_jobs{queue="embed",state="waiting",service="probe-test"} 0');
  });
});

describe('OpsModule with metrics off the HTTP app and a separate ops listener', () => {
  let app: NestFastifyApplication;
  let url: string;
  let opsUrl: string;
  let opsPort: number;

  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    opsPort = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    @Module({ imports: [OpsModule.forService({ service: 'public-api', metricsOnHttp: false, listen: { port: opsPort, host: '127.0.0.1' } })], controllers: [ThingsController] })
    class PublicModule {}
    app = await NestFactory.create<NestFastifyApplication>(PublicModule, new FastifyAdapter(), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    url = await app.getUrl();
    opsUrl = app.get(OpsListener).url() as string;
  });

  afterAll(async () => {
    await app?.close();
  });

  it('serves /healthz and /readyz on the app but /metrics only on the ops listener', async () => {
    expect(opsUrl).toBe(`http://127.0.0.1:${opsPort}`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    await fetch(`${url}/things/x`);
    const res = await fetch(`${opsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    expect(await res.text()).toContain('agent_memory_http_requests_total{method="GET",route="/things/:id",status="200",service="public-api"} 1');
  });

  it('answers readiness on the ops listener in terminus shape, 503 naming a failing check', async () => {
    const registry = app.get(ReadinessRegistry);
    registry.register('database', async () => {
      throw new Error('secret reason 10.9.8.7');
    });
    try {
      const res = await fetch(`${opsUrl}/readyz`);
      expect(res.status).toBe(503);
      const body = await res.text();
      expect(JSON.parse(body)).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
      expect(body).not.toContain('10.9.8.7');
      expect(await (await fetch(`${opsUrl}/healthz`)).json()).toMatchObject({ status: 'ok', info: { eventLoop: { status: 'up' } } });
    } finally {
      registry.unregister('database');
    }
  });

  it('answers anything else on the ops listener with 404 NOT_FOUND in the envelope', async () => {
    for (const [method, path] of [['GET', '/things/x'], ['POST', '/metrics'], ['GET', '/metrics/../readyz%00']]) {
      const res = await fetch(`${opsUrl}${path}`, { method });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Route not found' } });
    }
  });

  it('fails start-up when the ops port is taken, and frees the port on close', async () => {
    @Module({ imports: [OpsModule.forService({ service: 'second', listen: { port: opsPort, host: '127.0.0.1' } })] })
    class SecondModule {}
    const second = await NestFactory.create<NestFastifyApplication>(SecondModule, new FastifyAdapter(), { logger: false, abortOnError: false });
    await expect(second.init()).rejects.toThrow(/EADDRINUSE/);
    await second.close();
    await app.close();
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(opsPort, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => again.close(resolve));
    app = undefined as unknown as NestFastifyApplication;
  });
});
