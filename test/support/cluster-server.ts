import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClientProxy } from '@nestjs/microservices';
import type { SignatureRealm } from '@agent-memory/gateway';
import { BusClient, BusSigner, NatsBusClient, S3BlobStore } from '@agent-memory/platform';
import { type BusCredentials, createTestDatabase, freePort, generateBusCredentials, startNatsServer, startRedisServer, type TestDatabase, type TestInfraServer, OperatorBusClient, type S3TestServer, startS3TestServer } from '@agent-memory/testing';
import { TEST_SIGNATURE_DOMAIN } from './wallets';

const REPO_ROOT = resolve(__dirname, '..', '..');
const MAIN = join(REPO_ROOT, 'apps', 'cluster', 'src', 'main.ts');

/** The long-running processes of cluster mode, in start order (vector-index first: memory opens it at start). */
export const CLUSTER_PROCESSES = ['vector-index', 'agents', 'records', 'billing', 'files', 'memory', 'memory-worker', 'gateway'] as const;
export type ClusterProcess = (typeof CLUSTER_PROCESSES)[number];

/** One running process of a test cluster. */
export interface ClusterProcessHandle {
  name: ClusterProcess;
  replica: number;
  /** HTTP port: the API for the gateway, ops (health, metrics) for the others. */
  port: number;
  url: string;
  /** Where `/healthz`, `/readyz` and `/metrics` answer: the gateway's own OPS_PORT, the others' `url`. */
  opsUrl: string;
  child: ChildProcess;
  logFile: string;
}

/** Options of {@link startClusterServer}. */
export interface ClusterServerOptions {
  /** Extra environment for every process (e.g. `RATE_LIMITS: 'off'`). */
  env?: Record<string, string>;
  /** Replicas per process (default 1 each). */
  replicas?: Partial<Record<ClusterProcess, number>>;
  /**
   * The API port of the first gateway replica, chosen up front (default: a free port at its start; kept
   * across {@link ClusterServer.restart}). The browser tests need it before the start: passkeys are bound
   * to the page's origin, so `PASSKEY_ORIGINS` defaults to `http://localhost:<gatewayPort>` with it
   * (docs/dashboard.md; an explicit `env.PASSKEY_ORIGINS` wins).
   */
  gatewayPort?: number;
}

/**
 * A whole cluster started for a test: every service as its own Node process (`apps/cluster/src/main.ts`)
 * over a private `nats-server` (JetStream) and `redis-server`, a fresh PostgreSQL database on the
 * machine's server, and s3rver (with its shim) for blobs: real connections everywhere.
 * The NATS server has the cluster's users and permissions; each process gets its own NATS password,
 * the gateway the bus signing key, the services its public half (docs/configuration.md, "Bus authentication").
 */
export class ClusterServer {
  readonly processes: ClusterProcessHandle[] = [];
  readonly dataDir: string;
  private env: Record<string, string> = {};

  private constructor(
    readonly nats: TestInfraServer,
    readonly redis: TestInfraServer,
    readonly database: TestDatabase,
    readonly s3: S3TestServer,
    private readonly options: ClusterServerOptions,
    readonly credentials: BusCredentials,
  ) {
    this.dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-cluster-'));
    mkdirSync(join(this.dataDir, 'logs'), { recursive: true });
  }

  /** Starts the infrastructure, runs the migrations, then every process; resolves once all are ready. */
  static async start(options: ClusterServerOptions = {}): Promise<ClusterServer> {
    const credentials = generateBusCredentials();
    const [nats, redis, database, s3] = await Promise.all([startNatsServer({ passwords: credentials.passwords }), startRedisServer(), createTestDatabase(), startS3TestServer()]);
    const cluster = new ClusterServer(nats, redis, database, s3, options, credentials);
    cluster.env = {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      DATABASE_URL: database.url,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_REGION: s3.region,
      DATA_DIR: join(cluster.dataDir, 'data'),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
      BILLING_MODE: 'ledger',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      BUS_REQUEST_TIMEOUT_MS: '15000',
      // shared by the gateway replicas, as a Kubernetes Secret would be
      PAYMENT_SECRET_KEY: randomBytes(32).toString('base64'),
      // one deployment domain for every replica (each gateway has its own port here)
      SIGNATURE_DOMAIN: TEST_SIGNATURE_DOMAIN,
      BUS_SIGNING_PUBLIC_KEY: credentials.signingPublicKey,
      ...(options.gatewayPort ? { PASSKEY_ORIGINS: `http://localhost:${options.gatewayPort}` } : {}),
      ...options.env,
    };
    try {
      await cluster.runOnce('migrate');
      await cluster.startAll();
    } catch (err) {
      await cluster.close({ removeData: true });
      throw err;
    }
    return cluster;
  }

  /** Base URL of the first gateway replica. */
  get url(): string {
    return this.gateways()[0].url;
  }

  gateways(): ClusterProcessHandle[] {
    return this.processes.filter((p) => p.name === 'gateway');
  }

  /**
   * A bus client into the services (over the test cluster's NATS), e.g. to read the ledger: it connects
   * as the gateway and signs with its key, acting for the agent each message names ({@link OperatorBusClient}).
   */
  busClient(): BusClient {
    const auth = { user: 'gateway', pass: this.credentials.passwords.gateway, signer: new BusSigner(this.credentials.signingPrivateKey) };
    this.bus ??= new OperatorBusClient(new NatsBusClient([this.nats.url], 'agent-memory-test', 15_000, auth) as unknown as ClientProxy, 15_000);
    return this.bus;
  }

  /** The bus credentials of process `name`: its NATS user and password, and the signing key for the gateway. */
  private busEnv(name: string): Record<string, string> {
    const env: Record<string, string> = { NATS_USER: name, NATS_PASSWORD: this.credentials.passwords[name] ?? '' };
    if (name === 'gateway') env.BUS_SIGNING_PRIVATE_KEY = this.credentials.signingPrivateKey;
    return env;
  }
  private bus?: BusClient;

  /** The blob store the cluster uses (S3 API of s3rver). */
  blobStore(): S3BlobStore {
    return new S3BlobStore({ endpoint: this.s3.endpoint, accessKey: this.s3.accessKey, secretKey: this.s3.secretKey, bucket: 'agent-memory', region: this.s3.region });
  }

  /** Directory of the embedded vector index (held by the vector-index process). */
  /** The deployment wallet signatures must name: `SIGNATURE_DOMAIN` and `PAYMENT_CHAIN_ID` of every process. */
  get signatureRealm(): SignatureRealm {
    return { domain: this.env.SIGNATURE_DOMAIN.toLowerCase(), chainId: Number(this.env.PAYMENT_CHAIN_ID ?? 84532) };
  }

  get vectorIndexDir(): string {
    return join(this.env.DATA_DIR, 'vectors');
  }

  private async runOnce(name: string): Promise<void> {
    const logFile = join(this.dataDir, 'logs', `${name}.log`);
    const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, name], { cwd: REPO_ROOT, env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    trackChild(child);
    const log = createWriteStream(logFile);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    if (code !== 0) throw new Error(`${name} exited with ${code}:\n${tail(logFile)}`);
  }

  private async startAll(): Promise<void> {
    const [first, ...rest] = CLUSTER_PROCESSES;
    await this.startProcess(first);
    await Promise.all(rest.flatMap((name) => Array.from({ length: this.options.replicas?.[name] ?? 1 }, (_, replica) => this.startProcess(name, replica))));
  }

  /** Starts one more replica of `name` and waits until its `/readyz` answers 200. */
  async startProcess(name: ClusterProcess, replica?: number): Promise<ClusterProcessHandle> {
    const index = replica ?? this.processes.filter((p) => p.name === name).length;
    const port = name === 'gateway' && index === 0 && this.options.gatewayPort ? this.options.gatewayPort : await freePort();
    // the gateway has two ports: the API and its ops listener (metrics are not served on the API)
    const opsPort = name === 'gateway' ? await freePort() : port;
    const logFile = join(this.dataDir, 'logs', `${name}-${index}.log`);
    const portEnv = name === 'gateway' ? { PORT: String(port), OPS_PORT: String(opsPort) } : { OPS_PORT: String(port) };
    const child = spawn(process.execPath, ['-r', '@swc-node/register', MAIN, name], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, ...this.busEnv(name), ...portEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile, { flags: 'a' });
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const handle: ClusterProcessHandle = { name, replica: index, port, url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}`, child, logFile };
    trackChild(child);
    const existing = this.processes.findIndex((p) => p.name === name && p.replica === index);
    if (existing >= 0) this.processes.splice(existing, 1);
    this.processes.push(handle);
    await waitReady(handle);
    return handle;
  }

  /** The running handle of `name` replica `replica` (default 0). */
  handle(name: ClusterProcess, replica = 0): ClusterProcessHandle {
    const h = this.processes.find((p) => p.name === name && p.replica === replica);
    if (!h) throw new Error(`No process ${name}#${replica}`);
    return h;
  }

  /** Sends `signal` to a process and waits for it to exit (SIGKILL: a crash; SIGTERM: a graceful stop). */
  async stopProcess(name: ClusterProcess, replica = 0, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await stopChild(this.handle(name, replica).child, signal);
  }

  /** Stops every process gracefully and starts them again on the same data (a full restart). */
  async restart(): Promise<void> {
    await this.stopAll();
    const previous = this.processes.splice(0);
    const first = CLUSTER_PROCESSES[0];
    await this.startProcess(first, 0);
    await Promise.all(previous.filter((p) => p.name !== first).map((p) => this.startProcess(p.name, p.replica)));
  }

  private async stopAll(): Promise<void> {
    // Gateway first (no new requests), the vector index last (memory replicas use it while draining).
    const order = [...CLUSTER_PROCESSES].reverse();
    for (const name of order) await Promise.all(this.processes.filter((p) => p.name === name).map((p) => stopChild(p.child, 'SIGTERM')));
  }

  /** Stops every process and the infrastructure; removes data and the database with `removeData`. */
  async close(options: { removeData?: boolean } = {}): Promise<void> {
    await this.stopAll();
    await (this.bus as unknown as { client?: { close(): Promise<void> } } | undefined)?.client?.close().catch(() => undefined);
    await Promise.allSettled([this.nats.destroy(), this.redis.destroy(), this.s3.stop()]);
    if (options.removeData ?? true) {
      await this.database.drop().catch(() => undefined);
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => (clearTimeout(timer), resolveStop()));
    child.kill(signal);
  });
}

/** Polls `/readyz` of a process until it answers 200; fails early, with the log's tail, if the process exits. */
async function waitReady(handle: ClusterProcessHandle, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (handle.child.exitCode !== null) throw new Error(`${handle.name}#${handle.replica} exited with ${handle.child.exitCode}:\n${tail(handle.logFile)}`);
    const ok = await fetch(`${handle.url}/readyz`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${handle.name}#${handle.replica} not ready after ${timeoutMs} ms:\n${tail(handle.logFile)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Children must not outlive a test run that crashed.
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of liveChildren) c.kill('SIGKILL');
});
export function trackChild(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}
