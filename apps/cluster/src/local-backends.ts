import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_USERS, natsAuthorizationConfig } from '@agent-memory/platform';

/** A backend process `npm run start:cluster` started for itself; `stop` ends it (SIGTERM) and removes what it created. */
export interface LocalBackend {
  stop(): Promise<void>;
}

/** The S3 stand-in program: s3rver behind a front that makes it behave as S3 does (its own docstring says how). */
const S3_STAND_IN = join(__dirname, '..', '..', '..', 'libs', 'testing', 'src', 's3-test-server.main.ts');

/** `name` in the system directories (Debian puts nats-server in /usr/sbin, often not on a user's PATH), else on PATH. */
function binary(name: string): string {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/bin', '/usr/local/sbin']) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

/**
 * Spawns `command` and resolves with the first match of `pattern` in its output (`stream`), once the
 * program has said where it listens; rejects when it exits first or after `timeoutMs`.
 */
async function spawnUntil(command: string, args: string[], stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 30_000): Promise<{ child: ChildProcess; match: RegExpMatchArray }> {
  // The other stream goes to the terminal: a program that fails to start says why there.
  const child = spawn(command, args, { stdio: ['ignore', stream === 'stdout' ? 'pipe' : 'inherit', stream === 'stderr' ? 'pipe' : 'inherit'] });
  const output = child[stream]!;
  return new Promise((resolve, reject) => {
    let seen = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(new Error(`${command}: ${why}${seen ? `; it said: ${seen.slice(-500)}` : ''}`));
    };
    const timer = setTimeout(() => fail(`not listening after ${timeoutMs / 1000} s`), timeoutMs);
    child.once('error', (err) => fail(err.message));
    child.once('exit', (code) => fail(`exited with ${code}`));
    output.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(pattern);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit').removeAllListeners('error').on('error', () => undefined);
      // keep draining, or the child blocks on a full pipe
      output.removeAllListeners('data');
      output.on('data', () => undefined);
      resolve({ child, match });
    });
  });
}

/** Sends SIGTERM and waits for the exit. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/**
 * A private `nats-server` for a local cluster (docs/deployment.md, "NATS users"): JetStream in a fresh
 * temporary directory, messages up to 8 MB (a 1 MB file travels in one message; docs/configuration.md),
 * a user per process with its permissions and a random password, on a free 127.0.0.1 port. Returns its
 * URL and the password of each user (process name → password); `stop` removes its store.
 */
export async function startLocalNats(): Promise<LocalBackend & { url: string; passwords: Record<string, string> }> {
  const passwords = Object.fromEntries(NATS_USERS.map((user) => [user, randomBytes(24).toString('base64url')]));
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-nats-'));
  const config = join(dir, 'nats.conf');
  const authorization = natsAuthorizationConfig((user) => JSON.stringify(passwords[user]));
  writeFileSync(config, `listen: "127.0.0.1:-1"\nmax_payload: 8MB\njetstream {\n  store_dir: "${join(dir, 'js')}"\n}\n${authorization}`, { mode: 0o600 });
  const { child, match } = await spawnUntil(binary('nats-server'), ['-c', config], 'stderr', /Listening for client connections on 127\.0\.0\.1:(\d+)/);
  return {
    url: `nats://127.0.0.1:${match[1]}`,
    passwords,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An S3 stand-in for a local cluster without `S3_ENDPOINT`: the repository's s3rver program (keys
 * `S3RVER`/`S3RVER`, region `us-east-1`) as a child process, on a free 127.0.0.1 port, keeping its data
 * in `directory` across restarts. Returns the `S3_*` variables the processes need.
 */
export async function startLocalS3(directory: string): Promise<LocalBackend & { endpoint: string; accessKey: string; secretKey: string; region: string }> {
  const { child, match } = await spawnUntil(process.execPath, ['-r', '@swc-node/register', S3_STAND_IN, '--dir', directory], 'stdout', /^S3_ENDPOINT=(\S+)$/m);
  return { endpoint: match[1], accessKey: 'S3RVER', secretKey: 'S3RVER', region: 'us-east-1', stop: () => stopChild(child) };
}
