import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from 'nats';
import { loadOrCreateSecret } from '@agent-memory/config';
import { browsableUrl, gatewayLinks } from '@agent-memory/platform';
import { loadClusterConfig } from './cluster.config';
import { startLocalNats, startLocalS3 } from './local-backends';

/** Processes started by `npm run start:cluster`, in order (vector-index only without QDRANT_URL). */
const PROCESSES = ['vector-index', 'agents', 'records', 'billing', 'files', 'memory', 'memory-worker', 'gateway'] as const;
const MAIN = join(__dirname, 'main.ts');
const OPS_PORT_BASE = 9101;

async function waitReady(url: string, child: ChildProcess, name: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} (see its log)`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} was not ready after ${timeoutMs / 1000} s`);
}

/**
 * `npm run start:cluster`: every service as its own process against the PostgreSQL, Redis and NATS on
 * 127.0.0.1 (or the URLs in the environment), s3rver for blobs when no S3_ENDPOINT is given, and the
 * embedded vector index (its own `vector-index` process) when no QDRANT_URL is given. Logs go to
 * `<DATA_DIR>/logs/<process>.log`; Ctrl-C stops everything gracefully.
 */
/** Stops what {@link main} started so far (children, then the local backends); set once main begins. */
let stopAll: (() => Promise<void>) | undefined;

async function main(): Promise<void> {
  const children: Array<{ name: string; child: ChildProcess }> = [];
  let s3: Awaited<ReturnType<typeof startLocalS3>> | undefined;
  let privateNats: Awaited<ReturnType<typeof startLocalNats>> | undefined;
  stopAll = async () => {
    for (const { child } of [...children].reverse()) child.kill('SIGTERM');
    await Promise.all(children.filter(({ child }) => child.exitCode === null).map(({ child }) => new Promise((r) => child.once('exit', r))));
    await s3?.stop();
    await privateNats?.stop();
  };
  const base = loadClusterConfig('migrate'); // the shared variables; each process checks its own at start
  const dataDir = base.dataDir;
  mkdirSync(join(dataDir, 'logs'), { recursive: true });
  // the children parse the same environment themselves (plus what this launcher adds below)
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir };
  // One payment-challenge secret for every gateway replica, kept across restarts (a Secret in Kubernetes).
  if (!base.env.PAYMENT_SECRET_KEY) env.PAYMENT_SECRET_KEY = loadOrCreateSecret(join(dataDir, 'payment-secret'));
  // The gateway's bus signing key pair, kept across restarts like the payment secret (a Secret in Kubernetes).
  if (!base.env.BUS_SIGNING_PRIVATE_KEY) {
    const keyFile = join(dataDir, 'bus-signing-key.json');
    if (!existsSync(keyFile)) {
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const pair = { private: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), public: publicKey.export({ format: 'der', type: 'spki' }).toString('base64') };
      writeFileSync(keyFile, JSON.stringify(pair), { mode: 0o600 });
    }
    const pair = JSON.parse(readFileSync(keyFile, 'utf8')) as { private: string; public: string };
    env.BUS_SIGNING_PRIVATE_KEY = pair.private;
    env.BUS_SIGNING_PUBLIC_KEY = pair.public;
  }
  if (!base.env.S3_ENDPOINT) {
    s3 = await startLocalS3(join(dataDir, 's3'));
    Object.assign(env, { S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_REGION: s3.region });
    process.stdout.write(`blobs: s3rver on ${s3.endpoint} (data in ${join(dataDir, 's3')})\n`);
  }
  // Per-process NATS users (docs/deployment.md, "NATS users"). With NATS_PASSWORD in the environment the
  // operator's NATS has the users, and every process logs in as its own user with that one password;
  // otherwise a private nats-server with the users and a fresh password each.
  // A 1 MB file travels in one NATS message: the server must accept 8 MB (docs/configuration.md).
  let passwords: Record<string, string> | undefined;
  if (!base.env.NATS_PASSWORD) {
    privateNats = await startLocalNats();
    passwords = privateNats.passwords;
    env.NATS_URL = privateNats.url;
    process.stdout.write(`bus: a private nats-server with JetStream and a user per process on ${privateNats.url}\n`);
  } else {
    const nc = await connect({ servers: base.env.NATS_URL, timeout: 3_000, user: base.env.NATS_USER ?? 'gateway', pass: base.env.NATS_PASSWORD }).catch(() => undefined);
    const maxPayload = nc?.info?.max_payload ?? 0;
    await nc?.close();
    if (maxPayload < 8 * 1024 * 1024) throw new Error(`NATS at ${base.env.NATS_URL} is unreachable or allows ${maxPayload} bytes per message (8 MB needed for 1 MB files)`);
  }
  const spawnProcess = (name: string, extra: Record<string, string>) => {
    const credentials: Record<string, string> = passwords?.[name] ? { NATS_USER: name, NATS_PASSWORD: passwords[name] } : {};
    const childEnv: Record<string, string> = { ...env, ...credentials, ...extra };
    // only the gateway signs; the services verify with the public half
    if (name !== 'gateway') delete childEnv.BUS_SIGNING_PRIVATE_KEY;
    const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, name], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(join(dataDir, 'logs', `${name}.log`), { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    children.push({ name, child });
    return child;
  };
  const stop = () => void stopAll?.().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  const migrate = spawnProcess('migrate', {});
  const code = await new Promise<number | null>((r) => migrate.once('exit', r));
  if (code !== 0) throw new Error(`migrate failed (exit ${code}); see ${join(dataDir, 'logs', 'migrate.log')}`);
  process.stdout.write(`migrations applied to ${base.env.DATABASE_URL.replace(/\/\/[^@]*@/, '//')}\n`);

  const list = PROCESSES.filter((p) => p !== 'vector-index' || !base.env.QDRANT_URL);
  let opsPort = OPS_PORT_BASE;
  const started: Promise<void>[] = [];
  for (const name of list) {
    // every process has its own ops port (/healthz, /readyz, /metrics); the gateway also the API (PORT),
    // which serves no /metrics
    const ops = opsPort++;
    const child = spawnProcess(name, name === 'gateway' ? { PORT: String(base.env.PORT), OPS_PORT: String(ops) } : { OPS_PORT: String(ops) });
    const ready = waitReady(`http://127.0.0.1:${ops}`, child, name).then(() => {
      process.stdout.write(`  ${name.padEnd(13)} ready  (${name === 'gateway' ? `API on :${base.env.PORT}, ` : ''}ops on :${ops})\n`);
    });
    // memory opens the shared vector index at start: let vector-index come up first
    if (name === 'vector-index') await ready;
    else started.push(ready);
  }
  await Promise.all(started);
  const url = browsableUrl(base.env.HOST, base.env.PORT);
  process.stdout.write(`\nagent-memory (cluster) listening on ${gatewayLinks(url)}  ·  logs in ${resolve(dataDir, 'logs')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`start:cluster failed: ${err instanceof Error ? err.message : String(err)}\n`);
  void (stopAll?.() ?? Promise.resolve()).finally(() => process.exit(1));
});
