import 'reflect-metadata';
import { browsableUrl } from '@agent-memory/platform';
import { createClusterProcess, listenAddress, opsListenAddress } from './cluster.app';
import { loadClusterConfig } from './cluster.config';
import { runClusterDataCheck } from './data-check.command';
import { runMigrateCommand } from './migrate.command';

/**
 * Entry of every cluster process (one image): `node -r @swc-node/register apps/cluster/src/main.ts <process>`
 * where `<process>` is gateway | agents | records | memory | memory-worker | files | billing |
 * vector-index | migrate [service ...]. Fails fast, naming the bad variable, on invalid configuration.
 */
async function main(): Promise<void> {
  const name = process.argv[2] ?? 'gateway';
  if (name === 'data-check') {
    // an operator command, not a process: docs/deployment.md, "Checking and repairing a data directory"
    const report = await runClusterDataCheck(process.env, process.argv.slice(3));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = report.ok ? 0 : 1;
    return;
  }
  const config = loadClusterConfig(name);
  if (config.process === 'migrate') {
    for (const line of await runMigrateCommand(config, process.argv.slice(3))) process.stdout.write(`migrate ${line}\n`);
    return;
  }
  const app = await createClusterProcess(config);
  const { port, host } = listenAddress(config);
  await app.listen({ port, host });
  const ops = opsListenAddress(config);
  const what = config.process === 'gateway' ? `HTTP API on ${browsableUrl(host, port)} (dashboard ${browsableUrl(host, port)}/dashboard), ops (health, metrics) on ${browsableUrl(ops.host, ops.port)}` : `ops (health, metrics) on ${browsableUrl(host, port)}`;
  process.stdout.write(`agent-memory ${config.process} ready: ${what}, bus ${config.env.NATS_URL}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`agent-memory ${process.argv[2] ?? ''} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
