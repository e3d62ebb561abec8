import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { browsableUrl, gatewayLinks } from '@agent-memory/platform';
import { loadStandaloneConfig } from './standalone.config';
import { createStandaloneApp, standaloneLog } from './standalone.app';

/**
 * `npm start`: the whole service in one process on embedded backends, data under DATA_DIR. Says what it
 * is doing (data directory, models) and how long the start took; the models load before "ready", so the
 * first remember does not stall. The ready line names the dashboard, the API docs and OpenAPI; its URL names `localhost` for a loopback host (passkeys refuse
 * an IP address: docs/authentication.md).
 */
async function main(): Promise<void> {
  const config = loadStandaloneConfig();
  const log = standaloneLog(config);
  const firstStart = !existsSync(join(config.dataDir, 'postgres'));
  log.logger.info(
    { dataDir: config.dataDir },
    firstStart ? `First start: creating the embedded database in ${config.dataDir} (10-20 s) …` : `Opening the data directory ${config.dataDir} …`,
  );
  const app = await createStandaloneApp(config, { log, warmUp: true });
  await app.listen({ port: config.http.port, host: config.http.host });
  const url = browsableUrl(config.http.host, config.http.port);
  // from the process's start: loading the code counts too
  const startMs = Math.round(process.uptime() * 1000);
  log.logger.info({ url, dashboard: `${url}/dashboard`, startMs }, `agent-memory (standalone) ready in ${(startMs / 1000).toFixed(1)} s: ${gatewayLinks(url)}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent-memory failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
