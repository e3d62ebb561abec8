import { join } from 'node:path';
import { type SignatureRealm, UsageRecorder } from '@agent-memory/gateway';
import { BUS_TRANSPORT_CLIENT, type BusClient, FilesystemBlobStore } from '@agent-memory/platform';
import { SUBJECTS } from '@agent-memory/shared';
import { ClusterServer, type ClusterServerOptions } from './cluster-server';
import { startStandaloneServer, type TestServer } from './standalone-server';
import { OperatorBusClient } from '@agent-memory/testing';

/** Run mode of an end-to-end suite: `E2E_MODE=cluster` runs the same cases against cluster mode. */
export type E2eMode = 'standalone' | 'cluster';

/** The mode the current suite runs in (`E2E_MODE`, default standalone). */
export function e2eMode(): E2eMode {
  return process.env.E2E_MODE === 'cluster' ? 'cluster' : 'standalone';
}

/**
 * What an end-to-end case needs from the system under test, in either run mode (the same
 * cases run in both modes): the gateway URL, a view of the blob store and of the vector index's files, a
 * bus client into the services, and a restart that keeps the data.
 */
export interface E2eServer {
  mode: E2eMode;
  url: string;
  /** Keys in the blob store under `prefix` (filesystem in standalone, S3 in cluster). */
  blobKeys(prefix: string): Promise<string[]>;
  /** Directory of the embedded vector index's files. */
  vectorIndexDir: string;
  /** A bus client into the services (e.g. to read the usage ledger). */
  bus(): BusClient;
  /** Stops every process and starts it again on the same data. */
  restart(): Promise<void>;
  close(options?: { removeData?: boolean }): Promise<void>;
  /** The deployment wallet signatures must name (domain and chain id; docs/authentication.md). */
  signatureRealm: SignatureRealm;
  /** The cluster, in cluster mode (fault tests). */
  cluster?: ClusterServer;
}

/** Starts the system in {@link e2eMode} (or `options.mode`). `env` applies to every process. */
export async function startE2eServer(options: { env?: Record<string, string>; mode?: E2eMode; replicas?: ClusterServerOptions['replicas'] } = {}): Promise<E2eServer> {
  const mode = options.mode ?? e2eMode();
  if (mode === 'cluster') {
    const cluster = await ClusterServer.start({ env: options.env, replicas: options.replicas });
    return {
      mode,
      get url() {
        return cluster.url;
      },
      blobKeys: (prefix) => cluster.blobStore().list(prefix),
      vectorIndexDir: cluster.vectorIndexDir,
      signatureRealm: cluster.signatureRealm,
      bus: () => ledgerAware(cluster.busClient(), undefined),
      restart: () => cluster.restart(),
      close: (o) => cluster.close(o),
      cluster,
    };
  }
  let server: TestServer = await startStandaloneServer({ env: options.env });
  const dataDir = server.dataDir;
  const blobs = new FilesystemBlobStore(join(dataDir, 'blobs'));
  return {
    mode,
    get url() {
      return server.url;
    },
    blobKeys: (prefix) => blobs.list(prefix),
    vectorIndexDir: join(dataDir, 'vectors'),
    get signatureRealm() {
      return server.signatureRealm;
    },
    bus: () => ledgerAware(new OperatorBusClient(server.app.get(BUS_TRANSPORT_CLIENT), 30_000), () => server.app.get(UsageRecorder).drained()),
    async restart() {
      await server.close();
      server = await startStandaloneServer({ env: options.env, dataDir });
    },
    close: (o) => server.close(o),
  };
}

/** The billing reads a test may make through the bus: they must see the ledger entries of answered calls. */
const LEDGER_READS: readonly string[] = [SUBJECTS.billing.usage, SUBJECTS.billing.balance, SUBJECTS.billing.agentsActivity];

/**
 * A bus client whose billing reads ({@link LEDGER_READS}: usage, balance, activity) first let the gateway
 * finish the ledger entries it writes right after its answers (docs/billing.md, "When the ledger entry is
 * written"), as the gateway's own usage routes do: in standalone by waiting for them (`drained`); in
 * cluster, where the gateway is another process, by reading until two reads 150 ms apart agree (at most
 * 5 s). Every other subject (writes included) is sent once, as is.
 */
function ledgerAware(bus: BusClient, drained: (() => Promise<void>) | undefined): BusClient {
  const request: BusClient['request'] = async (subject, payload, schema) => {
    if (!LEDGER_READS.includes(subject)) return bus.request(subject, payload, schema);
    if (drained) {
      await drained();
      return bus.request(subject, payload, schema);
    }
    let last = await bus.request(subject, payload, schema);
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 150));
      const next = await bus.request(subject, payload, schema);
      if (JSON.stringify(next) === JSON.stringify(last)) return next;
      last = next;
    }
    return last;
  };
  return { request, emit: (subject: string, payload: unknown) => bus.emit(subject, payload) } as BusClient;
}

/** Retries `assertion` every `intervalMs` until it passes (resolving its value) or `timeoutMs` passes (then throws its last error). */
export async function eventually<T>(assertion: () => Promise<T> | T, timeoutMs = 20_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
