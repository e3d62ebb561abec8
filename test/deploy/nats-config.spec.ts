/**
 * deploy/nats/agent-memory.conf (the NATS configuration of docker-compose.yml and the one to give an
 * operator's NATS): its users and permissions are exactly those the code generates, and a real
 * nats-server started with it (passwords from its environment) admits each process's user and refuses
 * anonymous clients.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { NATS_USERS, natsAuthorizationConfig, natsPasswordVariable } from '@agent-memory/platform';
import { freePort, waitForPort } from '@agent-memory/testing';

const CONF = join(__dirname, '..', '..', 'deploy', 'nats', 'agent-memory.conf');

describe('deploy/nats/agent-memory.conf', () => {
  it('holds the generated users and permissions, passwords taken from the environment', () => {
    const text = readFileSync(CONF, 'utf8');
    expect(text).toContain(natsAuthorizationConfig((user) => `$${natsPasswordVariable(user)}`));
    expect(text).toMatch(/^max_payload: 8MB$/m);
    // no password is written in the file
    expect(text).not.toMatch(/password: "/);
  });

  it('starts a nats-server that admits each process with its password and refuses anonymous clients', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'am-nats-conf-'));
    const port = await freePort();
    const conf = join(dir, 'nats.conf');
    // the file as shipped, on a free local port (nats-server resolves includes relative to the including file)
    writeFileSync(conf, `listen: "127.0.0.1:${port}"\n${readFileSync(CONF, 'utf8')}`);
    const passwords = Object.fromEntries(NATS_USERS.map((u) => [u, `pw-${u}-${Math.random().toString(36).slice(2)}`]));
    const env = { ...process.env, ...Object.fromEntries(NATS_USERS.map((u) => [natsPasswordVariable(u), passwords[u]])) };
    const child = spawn('nats-server', ['-c', conf], { env, stdio: 'ignore' });
    try {
      await waitForPort(port);
      const url = `nats://127.0.0.1:${port}`;
      for (const user of NATS_USERS) {
        const nc = await connect({ servers: url, user, pass: passwords[user], reconnect: false });
        await nc.close();
      }
      await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
      await expect(connect({ servers: url, user: 'billing', pass: passwords.gateway, reconnect: false })).rejects.toThrow(/Authorization Violation/i);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
