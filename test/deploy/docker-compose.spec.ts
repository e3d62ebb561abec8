/**
 * docker-compose.yml checked as data (no Docker engine on the development and CI
 * machines; docs/deployment.md, "What was validated, and how"): the stack NATS (JetStream), PostgreSQL, Redis, Qdrant, MinIO, a one-shot migrate and
 * every service from one image, each with a healthcheck, started in dependency order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { ROOT, SERVICES } from './helm';

/** A compose service, loosely typed: compose is a free-form document and the tests index into it. */
type Service = Record<string, any>;
const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const compose = load(text) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const INFRA = ['nats', 'postgres', 'redis', 'qdrant', 'minio'];

describe('docker-compose.yml', () => {
  it('defines the infrastructure, migrate and every service, and nothing else', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...INFRA, 'migrate', ...SERVICES].sort());
  });

  it('runs NATS 2.10 with JetStream on a volume, PostgreSQL 16, Redis 7, Qdrant and MinIO', () => {
    const s = compose.services;
    expect(s.nats.image).toMatch(/^nats:2\.10\b/);
    expect(s.nats.command).toEqual(expect.arrayContaining(['-js', '-sd', '/data']));
    expect(s.nats.volumes).toEqual(['nats-data:/data', './deploy/nats/agent-memory.conf:/etc/nats/agent-memory.conf:ro']);
    expect(s.nats.command).toEqual(expect.arrayContaining(['-c', '/etc/nats/agent-memory.conf']));
    expect(s.postgres.image).toBe('postgres:16');
    expect(s.redis.image).toBe('redis:7');
    expect(s.qdrant.image).toMatch(/^qdrant\/qdrant:v1\./);
    expect(s.minio.image).toMatch(/minio\/minio:/);
    expect(s.minio.command[0]).toBe('server');
  });

  it('gives every long-running container a healthcheck; only the one-shot migrate disables it', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name === 'migrate') {
        expect(svc.healthcheck).toEqual({ disable: true });
        continue;
      }
      expect(svc.healthcheck?.test?.[0]).toMatch(/^CMD(-SHELL)?$/);
      expect(svc.healthcheck.test.length).toBeGreaterThan(1);
      expect(svc.healthcheck.interval).toBeDefined();
      expect(svc.healthcheck.retries).toBeGreaterThan(0);
    }
  });

  it.each(SERVICES)('%s: same image as every process, command [name], /readyz healthcheck on its ops port', (name) => {
    const svc = compose.services[name];
    expect(svc.build).toBe('.');
    expect(svc.image).toBe(compose.services.migrate.image);
    expect(svc.command).toEqual([name]);
    // the gateway's too: its ops port (9090) serves health and metrics, its API port no metrics
    expect(svc.healthcheck.test.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(svc.healthcheck.test[3]).toContain(`fetch('http://127.0.0.1:9090/readyz')`);
  });

  it.each(SERVICES)('%s: waits for healthy NATS, PostgreSQL and Redis and for migrate to succeed', (name) => {
    const deps = compose.services[name].depends_on;
    for (const infra of ['nats', 'postgres', 'redis']) expect(deps[infra]).toEqual({ condition: 'service_healthy' });
    expect(deps.migrate).toEqual({ condition: 'service_completed_successfully' });
    if (['memory', 'memory-worker', 'files'].includes(name)) expect(deps.minio).toEqual({ condition: 'service_healthy' });
    if (['memory', 'memory-worker'].includes(name)) expect(deps.qdrant).toEqual({ condition: 'service_healthy' });
  });

  it.each(SERVICES)('%s: cluster environment, read-only root, no capabilities', (name) => {
    const svc = compose.services[name];
    expect(svc.environment).toMatchObject({
      NATS_URL: 'nats://nats:4222',
      DATABASE_URL: expect.stringMatching(/^postgres:\/\/.+@postgres:5432\//),
      REDIS_URL: 'redis://redis:6379',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: expect.any(String),
      S3_SECRET_KEY: expect.any(String),
      QDRANT_URL: 'http://qdrant:6333',
      BILLING_MODE: '${BILLING_MODE:-enforce}',
      OPS_PORT: '9090',
      MIGRATIONS: 'verify',
    });
    expect(svc.read_only).toBe(true);
    expect(svc.tmpfs).toEqual(expect.arrayContaining(['/tmp']));
    expect(svc.cap_drop).toEqual(['ALL']);
  });

  it('runs migrate once from the same image after PostgreSQL is healthy', () => {
    const m = compose.services.migrate;
    expect(m.build).toBe('.');
    expect(m.command).toEqual(['migrate']);
    expect(m.restart).toBe('no');
    expect(m.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('publishes only the gateway, on 8080', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name === 'gateway') expect(svc.ports).toEqual([expect.stringMatching(/:8080$/)]);
      else expect(svc.ports).toBeUndefined();
    }
  });

  it('declares every named volume it mounts', () => {
    // named volumes only; bind mounts (./path:...) need no declaration
    const used = Object.values(compose.services).flatMap((s) => (s.volumes ?? []) as string[]).map((v) => v.split(':')[0]).filter((v) => !v.startsWith('.') && !v.startsWith('/'));
    expect(used.length).toBeGreaterThanOrEqual(5);
    for (const v of used) expect(compose.volumes).toHaveProperty(v);
  });

  it('shares the service environment through a YAML anchor; only the bus credentials differ', () => {
    expect(text).toMatch(/^x-service-env: &service-env$/m);
    expect(text).toContain('environment: *service-env');
    const shared = (n: string) => {
      const { NATS_USER: _u, NATS_PASSWORD: _p, BUS_SIGNING_PRIVATE_KEY: _k, ...rest } = compose.services[n].environment;
      return JSON.stringify(rest);
    };
    expect(new Set(SERVICES.map(shared)).size).toBe(1);
  });

  it.each(SERVICES)('%s: logs in to NATS as its own user with the password the NATS container holds for it', (name) => {
    const env = compose.services[name].environment;
    const variable = `NATS_PASSWORD_${name.toUpperCase().replace(/-/g, '_')}`;
    expect(env.NATS_USER).toBe(name);
    expect(env.NATS_PASSWORD).toMatch(new RegExp(`^\\$\\{${variable}:-`));
    expect(compose.services.nats.environment[variable]).toBe(env.NATS_PASSWORD);
    expect(readFileSync(join(ROOT, 'deploy', 'nats', 'agent-memory.conf'), 'utf8')).toContain(`password: $${variable}`);
    // the gateway alone holds the bus signing key; every process verifies with the public one
    expect(env.BUS_SIGNING_PUBLIC_KEY).toMatch(/^\$\{BUS_SIGNING_PUBLIC_KEY:-/);
    if (name === 'gateway') expect(env.BUS_SIGNING_PRIVATE_KEY).toMatch(/^\$\{BUS_SIGNING_PRIVATE_KEY:-/);
    else expect(env.BUS_SIGNING_PRIVATE_KEY).toBeUndefined();
  });
});
