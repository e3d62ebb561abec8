import 'reflect-metadata';
import { loadStandaloneConfig } from './standalone.config';
import { createStandaloneApp } from './standalone.app';

/** `npm start`: the whole service in one process on embedded backends, data under DATA_DIR. */
async function main(): Promise<void> {
  const config = loadStandaloneConfig();
  const app = await createStandaloneApp(config);
  await app.listen({ port: config.http.port, host: config.http.host });
  const url = `http://${config.http.host}:${config.http.port}`;
  process.stdout.write(`agent-memory (standalone) listening on ${url}  ·  API docs ${url}/docs  ·  data in ${config.dataDir}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent-memory failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
