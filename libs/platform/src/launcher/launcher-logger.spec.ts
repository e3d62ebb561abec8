import 'reflect-metadata';
import { Writable } from 'node:stream';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoLogger } from 'nestjs-pino';
import { __resetOutOfContextForTests } from 'nestjs-pino/PinoLogger';
import { createLauncherLog, type LauncherLogOptions, launcherLoggerModule, LauncherNestLogger } from './launcher-logger';
import { browsableUrl, gatewayLinks } from './listen-url';
import { resolveLogFormat } from './log-format';

const SECRET = 'amk_live_SECRETKEYSECRETKEYSECRETKEYSECRET';

@Controller()
class ThingsController {
  @Get('things')
  list(): { ok: true } {
    return { ok: true };
  }

  @Get('healthz')
  health(): { ok: true } {
    return { ok: true };
  }
}

/** A Nest app on Fastify with the launcher's logger writing to a buffer; `lines()` is what it wrote. */
async function appWithLog(options: Pick<LauncherLogOptions, 'format' | 'level'>): Promise<{ app: NestFastifyApplication; lines: () => string[] }> {
  let out = '';
  const destination = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  // nestjs-pino keeps the first logger of the process for lines outside a request: one per app here
  __resetOutOfContextForTests();
  const log = createLauncherLog({ ...options, props: { mode: 'test' }, redactPaths: ['req.headers.authorization'], destination });
  @Module({ imports: [launcherLoggerModule(log)], controllers: [ThingsController] })
  class RootModule {}
  const app = await NestFactory.create<NestFastifyApplication>(RootModule, new FastifyAdapter({ requestIdHeader: 'x-request-id' }), { bufferLogs: true });
  app.useLogger(new LauncherNestLogger(app.get(PinoLogger)));
  app.flushLogs();
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, lines: () => out.split('\n').filter((l) => l.length > 0) };
}

async function get(app: NestFastifyApplication, url: string): Promise<number> {
  const res = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url, headers: { authorization: `Bearer ${SECRET}`, 'x-request-id': 'req-1234' } });
  return res.statusCode;
}

describe('launcher logger (docs/configuration.md, LOG_FORMAT)', () => {
  it('JSON: the access line stays one JSON object (method, url, status, time, request id), the credential redacted; probes unlogged', async () => {
    const { app, lines } = await appWithLog({ format: 'json', level: 'info' });
    try {
      expect(await get(app, '/things?x=1')).toBe(200);
      expect(await get(app, '/healthz')).toBe(200);
      const parsed = lines().map((l) => JSON.parse(l) as Record<string, unknown>);
      const access = parsed.filter((l) => l.msg === 'request completed');
      expect(access).toHaveLength(1);
      expect(access[0]).toMatchObject({ mode: 'test', req: { id: 'req-1234', method: 'GET', url: '/things?x=1', headers: { authorization: '[redacted]' } }, res: { statusCode: 200 } });
      expect(typeof access[0].responseTime).toBe('number');
      expect(lines().join('\n')).not.toContain(SECRET);
    } finally {
      await app.close();
    }
  });

  it('pretty: the access line is one short human line (method, path, status, ms, request id) with no header, credential or query', async () => {
    const { app, lines } = await appWithLog({ format: 'pretty', level: 'info' });
    try {
      expect(await get(app, '/things?x=1')).toBe(200);
      expect(await get(app, '/healthz')).toBe(200);
      const all = lines();
      const access = all.filter((l) => l.includes('/things'));
      expect(access).toHaveLength(1);
      expect(access[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/things 200 \d+ ms {2}req req-1234$/);
      expect(all.some((l) => l.includes('/healthz'))).toBe(false);
      expect(all.join('\n')).not.toMatch(/SECRET|authorization|Bearer|^\{/im);
    } finally {
      await app.close();
    }
  });

  it("puts Nest's start-up lines (modules, routes) at debug: none at info, all at debug", async () => {
    const quiet = await appWithLog({ format: 'json', level: 'info' });
    await quiet.app.close();
    expect(quiet.lines().filter((l) => /Mapped \{|dependencies initialized|RoutesResolver/.test(l))).toEqual([]);
    const verbose = await appWithLog({ format: 'json', level: 'debug' });
    await verbose.app.close();
    const boot = verbose.lines().filter((l) => l.includes('Mapped {/things, GET} route'));
    expect(boot).toHaveLength(1);
    expect(JSON.parse(boot[0])).toMatchObject({ level: 20, context: 'RouterExplorer' });
  });

  it('LOG_FORMAT=auto is pretty on a terminal, JSON otherwise; json and pretty force it', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('prints localhost for loopback and wildcard hosts (passkeys refuse an IP address), the host otherwise', () => {
    expect(browsableUrl('127.0.0.1', 8080)).toBe('http://localhost:8080');
    expect(browsableUrl('0.0.0.0', 80)).toBe('http://localhost:80');
    expect(browsableUrl('::1', 8080)).toBe('http://localhost:8080');
    expect(browsableUrl('10.0.0.5', 8080)).toBe('http://10.0.0.5:8080');
    expect(browsableUrl('fd00::5', 8080)).toBe('http://[fd00::5]:8080');
    expect(browsableUrl('memory.example.com', 443)).toBe('http://memory.example.com:443');
  });

  it('lists the dashboard, the API docs and OpenAPI after the base URL on the ready line', () => {
    expect(gatewayLinks('http://localhost:8080')).toBe(
      'http://localhost:8080  ·  Dashboard http://localhost:8080/dashboard  ·  API docs http://localhost:8080/docs  ·  OpenAPI http://localhost:8080/openapi.json',
    );
  });
});
