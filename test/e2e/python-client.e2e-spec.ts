import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startStandaloneServer, type TestServer } from '@agent-memory/test-support';

// The Python client (clients/python) against the real standalone server: this spec starts two servers
// and runs its pytest suite (every endpoint, errors, retries, idempotent replays, wallet signatures,
// models against /openapi.json) with Debian's python3 (python3-httpx, python3-pytest, python3-ecdsa,
// python3-pycryptodome; .ci/run installs them). `limited` allows one create-agent call a minute, so the
// suite meets a real 429 at once. Missing Python packages fail this spec: they are part of the test setup.

const PYTHON = process.env['AGENT_MEMORY_PYTHON'] ?? '/usr/bin/python3';
const CLIENT_DIR = join(__dirname, '..', '..', 'clients', 'python');
const PASSKEY_ORIGIN = 'http://localhost:8080';

let server: TestServer;
let limited: TestServer;

beforeAll(async () => {
  server = await startStandaloneServer({ env: { PASSKEY_ORIGINS: PASSKEY_ORIGIN, PASSKEY_RP_ID: 'localhost' } });
  limited = await startStandaloneServer({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1' } });
}, 300_000);
afterAll(async () => {
  await server?.close({ removeData: true });
  await limited?.close({ removeData: true });
});

it('has Debian\'s Python test packages', () => {
  const probe = spawnSync(PYTHON, ['-c', 'import httpx, pytest, ecdsa, Cryptodome'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new Error(`${PYTHON} lacks the Python test packages (${probe.stderr || probe.error?.message}): apt-get install python3-httpx python3-pytest python3-ecdsa python3-pycryptodome (.ci/run does this)`);
  }
}, 5_000);

it('runs pytest with the servers in its environment: exit 0, nothing skipped', async () => {
  // spawn, not spawnSync: the servers answer on this process's event loop
  const env = {
    ...process.env,
    AGENT_MEMORY_URL: server.url,
    AGENT_MEMORY_SIGNATURE_DOMAIN: server.signatureRealm.domain,
    AGENT_MEMORY_CHAIN_ID: String(server.signatureRealm.chainId),
    AGENT_MEMORY_PASSKEY_ORIGIN: PASSKEY_ORIGIN,
    AGENT_MEMORY_LIMITED_URL: limited.url,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const child = spawn(PYTHON, ['-m', 'pytest', 'tests', '-q', '-rs', '-p', 'no:cacheprovider'], { cwd: CLIENT_DIR, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0 || /\bskipped\b/.test(output)) throw new Error(`pytest exited ${code}:\n${output}`);
  expect(output).toMatch(/\d+ passed/);
}, 180_000);
