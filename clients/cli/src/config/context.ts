import { CliError } from '../output/errors';
import { createOutput, type Output } from '../output/output';
import { ConfigStore, type Profile } from './config-store';

/** The options every command accepts (set on the program, read with `optsWithGlobals()`). */
export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  baseUrl?: string;
}

/** Where the service runs when neither `--base-url`, `AGENT_MEMORY_URL` nor the profile says (`npm start`'s default). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

/**
 * What a command runs with: its output, the config store, the selected profile and the effective
 * service URL and agent key. Precedence (clients/cli/README.md, "Config file and profiles"): a flag,
 * then the environment (`AGENT_MEMORY_URL`, `AGENT_MEMORY_API_KEY`, `AGENT_MEMORY_RECORD`,
 * `AGENT_MEMORY_PROFILE`), then the profile, then the default.
 */
export interface CommandContext {
  out: Output;
  store: ConfigStore;
  profileName: string;
  profile: Profile;
  baseUrl: string;
  apiKey?: string;
}

/** Builds the {@link CommandContext} of a run from the global options and the environment. */
export function commandContext(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): CommandContext {
  const out = createOutput(options.json === true);
  const store = new ConfigStore();
  const config = store.read();
  const warning = store.permissionWarning();
  if (warning) out.notice(warning);
  const profileName = options.profile ?? env.AGENT_MEMORY_PROFILE ?? config.defaultProfile;
  const profile = config.profiles[profileName] ?? {};
  return {
    out,
    store,
    profileName,
    profile,
    baseUrl: (options.baseUrl ?? env.AGENT_MEMORY_URL ?? profile.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    apiKey: env.AGENT_MEMORY_API_KEY || profile.apiKey,
  };
}

/** The agent key, or a CONFIG_ERROR that says how to get one. */
export function requireApiKey(ctx: CommandContext): string {
  if (ctx.apiKey) return ctx.apiKey;
  throw new CliError(
    `no agent key for profile "${ctx.profileName}": run \`agent-memory init${ctx.profileName === 'default' ? '' : ` --profile ${ctx.profileName}`}\` or set AGENT_MEMORY_API_KEY`,
    'CONFIG_ERROR',
  );
}

/**
 * The record a command acts on: `--record`, else `AGENT_MEMORY_RECORD`, else the profile's default record.
 * The agent key is checked first (a profile without one has no record either: `init` sets both).
 */
export function requireRecord(ctx: CommandContext, record: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  requireApiKey(ctx);
  const id = record ?? env.AGENT_MEMORY_RECORD ?? ctx.profile.recordId;
  if (id) return id;
  throw new CliError(`no record: pass --record <id>, set AGENT_MEMORY_RECORD, or choose one with \`agent-memory records use <id>\``, 'CONFIG_ERROR');
}
