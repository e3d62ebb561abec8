/**
 * Starts and stops the standalone service in this process for a benchmark, on a fresh temporary data
 * directory with rate limits off (the 30 writes/min per record of docs/api.md would otherwise throttle every
 * benchmark to a crawl). Everything else is the default standalone configuration.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStandaloneApp, loadStandaloneConfig } from '@agent-memory/standalone';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { ApiClient } from './client';
import { runPool } from './stats';

/** A running service: its base URL, its data directory, and how to stop it. */
export interface BenchServer {
  url: string;
  dataDir: string;
  /** Milliseconds from `startServer` until the server listened. */
  startupMs: number;
  /** The running app, for a benchmark that needs one of its providers (e.g. the embedder). */
  app: NestFastifyApplication;
  /** Closes the app and deletes the data directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The environment overrides every benchmark uses; printed in the headers. PORT is not overridden: the
 * config rejects 0, and `listen` below picks a free port itself whatever PORT says.
 */
export const BENCH_ENV = { RATE_LIMITS: 'off', LOG_LEVEL: 'warn' } as const;

/** Creates a temp dir, starts the standalone app on 127.0.0.1 with a free port, and returns it. */
export async function startServer(): Promise<BenchServer> {
  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-bench-'));
  let stopped = false;
  const removeDir = (): void => rmSync(dataDir, { recursive: true, force: true });
  try {
    const config = loadStandaloneConfig({ ...process.env, DATA_DIR: dataDir, ...BENCH_ENV });
    const app = await createStandaloneApp(config);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace(/\/$/, '');
    return {
      url,
      dataDir,
      app,
      startupMs: performance.now() - started,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await app.close();
        } finally {
          removeDir();
        }
      },
    };
  } catch (err) {
    removeDir();
    throw err;
  }
}

/** Seconds with one decimal, for "took" lines. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Remembers (8 in flight) and recalls (one at a time) of {@link warmUp}. */
const WARM_UP_REMEMBERS = 200;
const WARM_UP_RECALLS = 300;

/**
 * Warms the service up outside the measurements: the embedding model loads lazily on the first call
 * (several seconds), and the first requests of each route pay for JIT compilation, which takes hundreds
 * of calls to settle: with 33 remembers and 3 recalls of warm-up, the first size measured in a process
 * recalled about 1 ms slower at p50 than the same size measured second (1,000 memories: 4.4 ms first,
 * 3.1-3.2 ms second; 10,000: 3.8-3.9 ms first, 3.3-3.4 ms second). So it remembers
 * {@link WARM_UP_REMEMBERS} memories with 8 in flight and recalls {@link WARM_UP_RECALLS} distinct
 * questions one at a time (distinct: the embedder caches exact texts), about 3 s. Uses its own agent and
 * record, so the measured records are untouched. Returns how long the very first remember took (the
 * cold start a first user would see).
 */
export async function warmUp(api: ApiClient): Promise<{ firstRememberMs: number }> {
  const agent = await api.createAgent('bench-warm-up');
  const t = performance.now();
  await api.remember(agent, 'Warm-up note: the benchmark starts after this memory is stored.');
  const firstRememberMs = performance.now() - t;
  const texts = Array.from({ length: WARM_UP_REMEMBERS }, (_, i) => `Warm-up note number ${i + 1} about nothing in particular.`);
  await runPool(texts, 8, async (text) => {
    await api.remember(agent, text);
  });
  for (let i = 0; i < WARM_UP_RECALLS; i++) await api.recall(agent, `what is warm-up note number ${i + 1} about?`, 10);
  return { firstRememberMs };
}
