/**
 * Runs {@link startS3TestServer} as a process, for `npm run start:cluster` when no `S3_ENDPOINT` is set:
 *
 *   node -r @swc-node/register libs/testing/src/s3-test-server.main.ts [--port 9000] [--dir ./data/s3] [--host 127.0.0.1]
 *
 * Prints one line `S3_ENDPOINT=http://127.0.0.1:<port>` on stdout once it accepts requests (keys
 * `S3RVER`/`S3RVER`, region `us-east-1`), and stays up until SIGTERM or SIGINT, then stops and exits 0.
 * Without `--dir` the data lives in a temporary directory removed at exit. Exits 1 on a bad argument or
 * when the port is taken.
 */
import { startS3TestServer } from './s3-test-server';

/** `--name value` or `--name=value` from argv; undefined when absent. */
function argValue(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === `--${name}`) return argv[i + 1];
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const portText = argValue(argv, 'port');
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new Error(`--port must be an integer 0-65535, got ${JSON.stringify(portText)}`);
  }
  const server = await startS3TestServer({ port, directory: argValue(argv, 'dir'), host: argValue(argv, 'host') });
  process.stdout.write(`S3_ENDPOINT=${server.endpoint}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`s3 test server: stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`s3 test server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
