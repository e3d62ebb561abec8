import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import {
  AgentKeyListSchema,
  AgentSchema,
  BalanceSchema,
  ClaimedAgentListSchema,
  ContextResponseSchema,
  RecordListSchema,
  SUBJECTS,
  UsageSummarySchema,
} from '@agent-memory/shared';
import { signatureMessage, type SignatureRealm } from '@agent-memory/gateway';
import type { ApiClient, ApiResponse } from '@agent-memory/testing';
import type { E2eServer } from '@agent-memory/test-support';

/**
 * Harness of the security suite (test/e2e/security*.e2e-spec.ts): a counter of hostile cases, one
 * function that sends a hostile request and checks the refusal (status, code, envelope, no internals in
 * the message, security headers), and a fingerprint of every store (records, memories, files and raw
 * blobs, keys, claims, usage ledger, balances, vector index files) to prove that refusals changed nothing.
 * The payment cases (security.e2e-spec.ts, last section) use the same `tryHostile` and `fingerprint`.
 */

/** Hostile cases tried in this process, per group (printed by the suites' afterAll). */
export const hostileCount = { total: 0, byGroup: new Map<string, number>() };

export function reportHostileCount(suite: string): void {
  const groups = [...hostileCount.byGroup.entries()].map(([g, n]) => `  ${g}: ${n}`).join('\n');
  process.stdout.write(`\n${suite}: ${hostileCount.total} hostile cases tried (each asserted refused, stores compared after each group)\n${groups}\n`);
}

/** One hostile request. `body` is sent as JSON; `rawBody` as is, with `contentType` when given. */
export interface HostileRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string | Buffer;
  contentType?: string;
}

/** What a refusal must look like. */
export interface Refusal {
  status: number;
  code: string;
}

/** The refusals the suites expect most often. */
export const U401: Refusal = { status: 401, code: 'UNAUTHORIZED' };
export const F403: Refusal = { status: 403, code: 'FORBIDDEN' };
export const N404: Refusal = { status: 404, code: 'NOT_FOUND' };
export const V400: Refusal = { status: 400, code: 'VALIDATION_ERROR' };

/** An agent as the suites hold it: its ids and its key. */
export type Agent = { agentId: string; agentKey: string; recordId: string; keyId: string };

/** A fresh wallet (viem local account). */
export const account = () => privateKeyToAccount(generatePrivateKey());

// Words that would betray internals: stack frames, source files, modules, ORM/SQL, bus subjects.
const LEAK = /\bat .+\(.+:\d+|\.ts:\d+|\.js:\d+|node_modules|prisma|PrismaClient|SELECT |INSERT |UPDATE |\bstack\b|(agents|records|memory|files|billing)\.v1\.|TypeError|ReferenceError|ECONNREFUSED|nats:\/\/|postgres(ql)?:\/\//i;

/**
 * Sends `request` and returns a description of what is wrong with the answer, or undefined when it is
 * the expected refusal: `expected` status and code, the failure envelope exactly, a message without
 * internals, and the security headers. Counts the case under `group`.
 */
export async function tryHostile(api: ApiClient, group: string, label: string, request: HostileRequest, expected: Refusal): Promise<string | undefined> {
  hostileCount.total += 1;
  hostileCount.byGroup.set(group, (hostileCount.byGroup.get(group) ?? 0) + 1);
  let res: ApiResponse;
  try {
    res = await api.request(request.method, request.path, {
      headers: request.headers,
      body: request.body,
      rawBody: request.rawBody,
      contentType: request.contentType,
    });
  } catch (err) {
    return `${label}: ${(err as Error).message}`;
  }
  const body = res.body as { success?: unknown; error?: { code?: unknown; message?: unknown } };
  const problems: string[] = [];
  if (res.status !== expected.status || res.code !== expected.code) problems.push(`got ${res.status} ${res.code ?? 'success'} (${JSON.stringify(body).slice(0, 160)}), want ${expected.status} ${expected.code}`);
  const keys = Object.keys(body ?? {}).sort().join(',');
  if (keys !== 'error,success' || body.success !== false || Object.keys(body.error ?? {}).sort().join(',') !== 'code,message' || typeof body.error?.message !== 'string') {
    problems.push(`not the failure envelope: ${JSON.stringify(body).slice(0, 160)}`);
  } else if (LEAK.test(body.error.message) || (body.error.message).length > 400) {
    problems.push(`message leaks internals: ${JSON.stringify(body.error.message)}`);
  }
  if (res.headers.get('x-content-type-options') !== 'nosniff' || res.headers.get('cache-control') !== 'no-store') problems.push('missing security headers');
  return problems.length ? `${label}: ${problems.join('; ')}` : undefined;
}

/** Runs cases and fails once with every case whose answer was not the expected refusal. */
export async function expectAllRefused(cases: Array<() => Promise<string | undefined>>): Promise<void> {
  const failures: string[] = [];
  for (const run of cases) {
    const failure = await run();
    if (failure) failures.push(failure);
  }
  expect(failures).toEqual([]);
}

/** The parties whose data the suite watches. */
export interface Watched {
  agents: Array<{ agentId: string }>;
  humans?: string[];
}

/**
 * A snapshot of every store, in either run mode: per agent its row, keys, records, every record's
 * memories (context, all five types), usage ledger, and live and sandbox balances; per human its claims; every blob key under
 * `records/` (blob keys carry content hashes, so a changed file, raw blob or memory changes a key);
 * the vector index's files (names, sizes, SHA-256).
 */
export async function fingerprint(server: E2eServer, watched: Watched): Promise<Record<string, unknown>> {
  const bus = server.bus();
  const out: Record<string, unknown> = {};
  for (const { agentId } of watched.agents) {
    const records = await bus.request(SUBJECTS.records.list, { agentId, query: { limit: 100, offset: 0 } }, RecordListSchema);
    const memories: Record<string, unknown> = {};
    for (const r of records.records) memories[r.id] = await bus.request(SUBJECTS.memory.context, { agentId, recordId: r.id, limit: 200 }, ContextResponseSchema);
    out[agentId] = {
      agent: await bus.request(SUBJECTS.agents.get, { agentId }, AgentSchema),
      keys: (await bus.request(SUBJECTS.agents.listKeys, { agentId }, AgentKeyListSchema)).keys.map(({ status: _status, ...k }) => k),
      records,
      memories,
      ledger: await bus.request(SUBJECTS.billing.usage, { agentId, limit: 1000, offset: 0 }, UsageSummarySchema),
      balances: {
        live: (await bus.request(SUBJECTS.billing.balance, { agentId, environment: 'live' }, BalanceSchema)).balanceMicroUsd,
        test: (await bus.request(SUBJECTS.billing.balance, { agentId, environment: 'test' }, BalanceSchema)).balanceMicroUsd,
      },
    };
  }
  for (const humanId of watched.humans ?? []) out[humanId] = await bus.request(SUBJECTS.humans.listClaims, { humanId }, ClaimedAgentListSchema);
  out.blobs = (await server.blobKeys('records/')).sort();
  out.vectors = await directoryDigest(server.vectorIndexDir);
  return out;
}

async function directoryDigest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) await walk(join(d, e.name), `${rel}${e.name}/`);
      else if (e.isFile()) out[`${rel}${e.name}`] = createHash('sha256').update(await readFile(join(d, e.name))).digest('hex');
    }
  };
  await walk(dir, '');
  return out;
}

/** Waits until two fingerprints in a row agree (background work such as index persistence has settled). */
export async function settledFingerprint(server: E2eServer, watched: Watched, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let previous = await fingerprint(server, watched);
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const next = await fingerprint(server, watched);
    if (JSON.stringify(next) === JSON.stringify(previous) || Date.now() > deadline) return next;
    previous = next;
  }
}

/**
 * A signed `Authorization` header for one request on the deployment `realm` (docs/authentication.md),
 * optionally signed over something else than what is sent.
 */
export async function signatureHeader(
  account: PrivateKeyAccount,
  realm: SignatureRealm,
  request: { method: string; path: string; body?: string },
  options: { timestamp?: number; address?: string } = {},
): Promise<string> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = await account.signMessage({ message: signatureMessage({ ...realm, method: request.method, pathWithQuery: request.path, timestamp, body: request.body ?? '' }) });
  return `Signature ${timestamp}:${options.address ?? account.address}:${signature}`;
}
