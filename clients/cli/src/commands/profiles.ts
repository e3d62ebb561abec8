import type { CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { renderTable } from '../output/output';

/** `agent-memory profiles ls`: the profiles of the config file (never their keys), `*` on the default one. */
export async function listProfiles(ctx: CommandContext): Promise<void> {
  const config = ctx.store.read();
  const rows = Object.entries(config.profiles).map(([name, p]) => ({
    name,
    default: name === config.defaultProfile,
    baseUrl: p.baseUrl,
    agentId: p.agentId,
    recordId: p.recordId,
    environment: p.environment,
    hasKey: p.apiKey !== undefined,
  }));
  ctx.out.result({ configPath: ctx.store.path, defaultProfile: config.defaultProfile, profiles: rows }, () =>
    rows.length === 0
      ? `No profiles in ${ctx.store.path}: run \`agent-memory init\``
      : renderTable(
          ['', 'profile', 'agent', 'record', 'env', 'url'],
          rows.map((r) => [r.default ? '*' : '', r.name, r.agentId ?? '', r.recordId ?? '', r.environment ?? '', r.baseUrl ?? '']),
        ),
  );
}

/** `agent-memory profiles use <name>`: makes an existing profile the default. */
export async function useProfile(ctx: CommandContext, name: string): Promise<void> {
  const config = ctx.store.read();
  if (!config.profiles[name]) throw new CliError(`no profile "${name}" in ${ctx.store.path}`, 'CONFIG_ERROR');
  config.defaultProfile = name;
  ctx.store.write(config);
  ctx.out.result({ defaultProfile: name }, () => `Default profile: ${name}`);
}
