import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * One named profile of the CLI's config file: where the service is and which agent to act as
 * (clients/cli/README.md, "Config file and profiles"). `apiKey` is the agent key (`amk_live_…` or
 * `amk_test_…`); `recordId` the record commands use when `--record` is not given (the agent's default
 * record after `init`); `walletPrivateKey` only when `init --save-wallet-key` asked to keep it.
 */
export interface Profile {
  baseUrl?: string;
  apiKey?: string;
  agentId?: string;
  recordId?: string;
  walletAddress?: string;
  walletPrivateKey?: string;
  mode?: 'cloud' | 'local';
  environment?: 'live' | 'test';
}

/** The whole config file: `defaultProfile` names the profile used without `--profile`. */
export interface ConfigFile {
  version: 1;
  defaultProfile: string;
  profiles: Record<string, Profile>;
}

/** Permissions: the directory 0700 and the file 0600, as ssh keeps its keys (the file holds agent keys). */
export const CONFIG_DIR_MODE = 0o700;
export const CONFIG_FILE_MODE = 0o600;
export const DEFAULT_PROFILE = 'default';

/**
 * Where the config file lives: `AGENT_MEMORY_CONFIG` (a file path) if set, else
 * `$XDG_CONFIG_HOME/agent-memory/config.json`, else `~/.config/agent-memory/config.json`.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_MEMORY_CONFIG) return env.AGENT_MEMORY_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'agent-memory', 'config.json');
}

/** Raised for a config file that exists but cannot be used (unreadable JSON, wrong shape). */
export class ConfigError extends Error {}

/**
 * Reads and writes the config file. Every write goes to a temporary file created with mode 0600 in the
 * same directory (itself created 0700) and is renamed over the old file, so a crash never leaves half a
 * file and the keys are never readable by others, not even for a moment.
 */
export class ConfigStore {
  constructor(readonly path: string = configPath()) {}

  /** The config, or an empty one when the file does not exist. Throws {@link ConfigError} on a damaged file. */
  read(): ConfigFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, defaultProfile: DEFAULT_PROFILE, profiles: {} };
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ConfigError(`${this.path} is not valid JSON; fix or remove it`);
    }
    if (!isConfigFile(parsed)) throw new ConfigError(`${this.path} is not an agent-memory config file (expected { version: 1, defaultProfile, profiles })`);
    return parsed;
  }

  /** Writes the whole config atomically with mode 0600 (directory 0700). */
  write(config: ConfigFile): void {
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true, mode: CONFIG_DIR_MODE });
    // a fresh, unguessable temporary name created exclusively ('wx'): never follows a file or symlink
    // planted at that name, and is born with mode 0600 (chmod again in case the umask narrowed it)
    const temp = `${this.path}.${process.pid}.${randomBytes(8).toString('hex')}.tmp`;
    const fd = openSync(temp, 'wx', CONFIG_FILE_MODE);
    try {
      writeFileSync(fd, `${JSON.stringify(config, null, 2)}\n`);
      fchmodSync(fd, CONFIG_FILE_MODE);
      closeSync(fd);
      renameSync(temp, this.path);
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(temp, { force: true });
      throw error;
    }
  }

  /** Merges `changes` into profile `name` (created if absent) and writes the file. */
  updateProfile(name: string, changes: Partial<Profile>, options: { makeDefault?: boolean } = {}): ConfigFile {
    const config = this.read();
    config.profiles[name] = { ...config.profiles[name], ...changes };
    if (options.makeDefault || Object.keys(config.profiles).length === 1) config.defaultProfile = name;
    this.write(config);
    return config;
  }

  /** A warning when the file is readable or writable by group or others (it holds agent keys), else undefined. */
  permissionWarning(): string | undefined {
    try {
      const mode = statSync(this.path).mode & 0o777;
      if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
        return `warning: ${this.path} has mode ${mode.toString(8)}; it holds agent keys: chmod 600 it`;
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
}

function isConfigFile(value: unknown): value is ConfigFile {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return v.version === 1 && typeof v.defaultProfile === 'string' && typeof v.profiles === 'object' && v.profiles !== null && !Array.isArray(v.profiles);
}
