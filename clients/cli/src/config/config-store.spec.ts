import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ConfigStore, configPath } from './config-store';

describe('ConfigStore', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'am-config-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the file under AGENT_MEMORY_CONFIG, XDG_CONFIG_HOME, or ~/.config', () => {
    expect(configPath({ AGENT_MEMORY_CONFIG: '/x/c.json', XDG_CONFIG_HOME: '/y' })).toBe('/x/c.json');
    expect(configPath({ XDG_CONFIG_HOME: '/y', HOME: '/h' })).toBe('/y/agent-memory/config.json');
    expect(configPath({ HOME: '/h' })).toBe('/h/.config/agent-memory/config.json');
  });

  it('writes the file with mode 0600 in a directory of mode 0700, even over a looser file', () => {
    const path = join(dir, 'agent-memory', 'config.json');
    mkdirSync(join(dir, 'agent-memory'));
    writeFileSync(path, '{}', { mode: 0o644 });
    chmodSync(path, 0o644);
    const store = new ConfigStore(join(dir, 'fresh', 'config.json'));
    store.updateProfile('default', { apiKey: 'amk_test_x', recordId: 'rec_1' });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'fresh')).mode & 0o777).toBe(0o700);
    const loose = new ConfigStore(path);
    expect(() => loose.read()).toThrow(ConfigError);
    expect(loose.permissionWarning()).toContain('chmod 600');
    loose.write({ version: 1, defaultProfile: 'default', profiles: {} });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(loose.permissionWarning()).toBeUndefined();
  });

  it('writes through a fresh temporary file: a symlink planted at the old fixed temporary name is not followed', () => {
    const path = join(dir, 'config.json');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, `${path}.${process.pid}.tmp`);
    new ConfigStore(path).updateProfile('default', { apiKey: 'amk_test_secret' });
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(JSON.parse(readFileSync(path, 'utf8')).profiles.default.apiKey).toBe('amk_test_secret');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp') && name !== `config.json.${process.pid}.tmp`)).toEqual([]);
  });

  it('merges profile changes; the first profile becomes the default, later ones only when asked', () => {
    const store = new ConfigStore(join(dir, 'config.json'));
    expect(store.read()).toEqual({ version: 1, defaultProfile: 'default', profiles: {} });
    store.updateProfile('work', { apiKey: 'k1', recordId: 'rec_1' });
    store.updateProfile('work', { recordId: 'rec_2' });
    store.updateProfile('home', { apiKey: 'k2' });
    const config = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(config).toEqual({ version: 1, defaultProfile: 'work', profiles: { work: { apiKey: 'k1', recordId: 'rec_2' }, home: { apiKey: 'k2' } } });
    store.updateProfile('home', {}, { makeDefault: true });
    expect(store.read().defaultProfile).toBe('home');
  });

  it('reports a damaged file instead of overwriting it', () => {
    const path = join(dir, 'config.json');
    writeFileSync(path, 'not json');
    expect(() => new ConfigStore(path).read()).toThrow(`${path} is not valid JSON`);
  });
});
