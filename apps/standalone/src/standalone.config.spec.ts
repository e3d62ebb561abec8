import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStandaloneConfig as loadWith } from './standalone.config';

// Loading the config persists a payment secret under DATA_DIR: keep it out of the working tree.
const dataDir = mkdtempSync(join(tmpdir(), 'agent-memory-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const loadStandaloneConfig = (env: Record<string, string>) => loadWith({ DATA_DIR: dataDir, ...env });

describe('standalone config: the ops listener', () => {
  it('is off unless OPS_PORT is set', () => {
    expect(loadStandaloneConfig({}).ops).toBeNull();
    expect(loadStandaloneConfig({ OPS_PORT: '' }).ops).toBeNull();
  });

  it('listens on OPS_HOST, by default on HOST', () => {
    expect(loadStandaloneConfig({ OPS_PORT: '9464' }).ops).toEqual({ port: 9464, host: '127.0.0.1' });
    expect(loadStandaloneConfig({ OPS_PORT: '9464', HOST: '0.0.0.0' }).ops).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(loadStandaloneConfig({ OPS_PORT: '9464', HOST: '0.0.0.0', OPS_HOST: '127.0.0.1' }).ops).toEqual({ port: 9464, host: '127.0.0.1' });
  });

  it.each([
    [{ OPS_PORT: '70000' }, /OPS_PORT: must be a number from 1 to 65535/],
    [{ OPS_PORT: 'abc' }, /OPS_PORT: .*\(got "abc"\)/],
    [{ OPS_PORT: '8080' }, /OPS_PORT: must differ from PORT/],
  ])('refuses %j', (env, message) => {
    expect(() => loadStandaloneConfig(env)).toThrow(message);
  });
});
