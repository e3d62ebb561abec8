import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { NATS_USERS, natsAuthorizationConfig } from '@agent-memory/platform';

/** First port of the range tests pick listening ports from: below Linux's ephemeral range (32768-60999 by default). */
export const TEST_PORT_BASE = 20_000;
/** Ports per Jest worker: worker N picks from [TEST_PORT_BASE + (N - 1) * size, TEST_PORT_BASE + N * size). */
export const TEST_PORTS_PER_WORKER = 1_000;

let nextPortOffset = -1;

/**
 * A free TCP port on 127.0.0.1 for a server a test starts (in this process or a child it spawns).
 *
 * The port is taken from this Jest worker's own slice of 1,000 ports below the kernel's ephemeral range
 * (worker N: 20,000 + (N - 1) * 1,000 onwards; `JEST_WORKER_ID`, 1 outside Jest), in turn from a random
 * start, and checked free by binding it. Asking the kernel for port 0 instead raced in CI: the port it gives
 * is ephemeral, so between its release and the server's bind another worker's outgoing connection (to
 * PostgreSQL, Redis, NATS) or its own port-0 pick could take it (EADDRINUSE). Outside the ephemeral range no
 * outgoing connection takes a port, and two workers never pick the same one.
 *
 * Throws when all 1,000 ports of the slice are in use, or the worker id is beyond the range below 32,768.
 */
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const start = TEST_PORT_BASE + (worker - 1) * TEST_PORTS_PER_WORKER;
  if (!Number.isInteger(worker) || worker < 1 || start + TEST_PORTS_PER_WORKER > 32_768) throw new Error(`freePort: no port slice for JEST_WORKER_ID=${process.env.JEST_WORKER_ID}`);
  if (nextPortOffset < 0) nextPortOffset = randomBytes(2).readUInt16BE(0) % TEST_PORTS_PER_WORKER;
  for (let tried = 0; tried < TEST_PORTS_PER_WORKER; tried++) {
    const port = start + nextPortOffset;
    nextPortOffset = (nextPortOffset + 1) % TEST_PORTS_PER_WORKER;
    if (await canListen(port)) return port;
  }
  throw new Error(`freePort: all ${TEST_PORTS_PER_WORKER} ports from ${start} are in use`);
}

/** Whether a server can listen on 127.0.0.1:`port` now (binds it, then releases it). */
async function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Resolves once something accepts TCP connections on `port` (polls every 50 ms); rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => (socket.destroy(), resolve(false)));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`Nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function binary(name: string): string {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin']) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

/** A server process started for a test, restartable on the same port and data directory. */
export interface TestInfraServer {
  url: string;
  port: number;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
  /** Starts it again on the same port (and, for NATS, the same JetStream store). */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill('SIGTERM');
  });
}

function restartable(name: string, port: number, args: string[], url: string, dataDir: string): TestInfraServer {
  let child: ChildProcess | undefined;
  const server: TestInfraServer = {
    url,
    port,
    async start() {
      child = spawn(binary(name), args, { stdio: 'ignore' });
      child.once('error', () => undefined);
      await waitForPort(port);
    },
    stop: () => stopChild(child),
    async destroy() {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/**
 * NATS server settings agent-memory needs (docs/configuration.md): messages up to 8 MB, since a 1 MB
 * file (the limit of docs/api.md) travels as JSON inside one request and the default limit is 1 MB.
 */
export const NATS_MAX_PAYLOAD = '8MB';

/**
 * Credentials of a cluster's bus (docs/configuration.md, "Bus authentication"): a random password per
 * NATS user (one per process) and a fresh Ed25519 key pair for the gateway's signatures (base64 DER).
 */
export interface BusCredentials {
  passwords: Record<string, string>;
  signingPrivateKey: string;
  signingPublicKey: string;
}

/** New random {@link BusCredentials}. */
export function generateBusCredentials(): BusCredentials {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    passwords: Object.fromEntries(NATS_USERS.map((u) => [u, randomBytes(24).toString('base64url')])),
    signingPrivateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    signingPublicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/**
 * Starts a private `nats-server` with JetStream on a free port (the Debian package's binary, as on
 * the machine and in CI) and {@link NATS_MAX_PAYLOAD}, so a test owns its subjects and streams and may
 * restart the server. With `passwords` (user → password) the server has the cluster's users and their
 * permissions (`natsAuthorizationConfig`, as deploy/nats/agent-memory.conf) and refuses anonymous clients.
 */
export async function startNatsServer(options: { passwords?: Record<string, string> } = {}): Promise<TestInfraServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-nats-'));
  const config = join(dir, 'nats.conf');
  const passwords = options.passwords;
  const authorization = passwords ? natsAuthorizationConfig((user) => JSON.stringify(passwords[user] ?? randomBytes(24).toString('base64url'))) : '';
  writeFileSync(config, `listen: "127.0.0.1:${port}"\nmax_payload: ${NATS_MAX_PAYLOAD}\njetstream {\n  store_dir: "${join(dir, 'js')}"\n}\n${authorization}`, { mode: 0o600 });
  const server = restartable('nats-server', port, ['-c', config], `nats://127.0.0.1:${port}`, dir);
  await server.start();
  return server;
}

/** Starts a private `redis-server` (no persistence) on a free port, so a test may restart it. */
export async function startRedisServer(): Promise<TestInfraServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-redis-'));
  const server = restartable('redis-server', port, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], `redis://127.0.0.1:${port}`, dir);
  await server.start();
  return server;
}

/** PostgreSQL server of the machine and CI: 127.0.0.1:5432, trust auth. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database created for one test run; `drop` removes it (terminating leftover connections). */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates `am_test_<random>` on the machine's PostgreSQL. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `am_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new Client({ connectionString: TEST_POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
