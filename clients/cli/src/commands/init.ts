import { DEFAULT_PROFILE } from '../config/config-store';
import type { CommandContext } from '../config/context';
import { CliError } from '../output/errors';

/** The warning printed with a generated wallet's private key (docs/api.md, "Agents and keys": shown once, never stored by the service). */
export const WALLET_KEY_WARNING =
  'The wallet private key is shown once and never stored by the service. Keep it in a password manager; ' +
  'keep it out of logs, chat transcripts and shell history (do not paste it into a command line).';

/**
 * `agent-memory init`: creates an agent (POST /agents, docs/api.md "Agents and keys") and keeps its key,
 * id, default record and wallet address in the profile (config file mode 0600, directory 0700). The
 * profile's default record is the agent's default record. The agent key is not printed (it is in the
 * file); a generated wallet's private key is printed once with {@link WALLET_KEY_WARNING}, and kept in
 * the file only with `--save-wallet-key` (needed by `pay` for a live top-up).
 */
export async function init(
  ctx: CommandContext,
  opts: { name: string; mode: 'cloud' | 'local'; environment: 'live' | 'test'; saveWalletKey?: boolean; force?: boolean },
): Promise<void> {
  if (ctx.profile.apiKey && !opts.force) {
    throw new CliError(
      `profile "${ctx.profileName}" already has agent ${ctx.profile.agentId ?? '(unknown id)'} in ${ctx.store.path}; ` +
        `pass --force to replace it, or --profile <name> for another agent`,
      'CONFIG_ERROR',
    );
  }
  const { AgentMemory } = await import('@agent-memory/client');
  const created = await AgentMemory.createAgent({ baseUrl: ctx.baseUrl, name: opts.name, mode: opts.mode, environment: opts.environment });
  const config = ctx.store.read();
  const first = Object.keys(config.profiles).length === 0;
  ctx.store.updateProfile(
    ctx.profileName,
    {
      baseUrl: ctx.baseUrl,
      apiKey: created.agentKey,
      agentId: created.agentId,
      recordId: created.recordId,
      walletAddress: created.walletAddress,
      mode: created.mode,
      environment: opts.environment,
      walletPrivateKey: opts.saveWalletKey ? created.walletPrivateKey : undefined,
    },
    { makeDefault: first || ctx.profileName === DEFAULT_PROFILE },
  );
  const walletKey = created.walletPrivateKey;
  const result = {
    profile: ctx.profileName,
    configPath: ctx.store.path,
    baseUrl: ctx.baseUrl,
    agentId: created.agentId,
    recordId: created.recordId,
    walletAddress: created.walletAddress,
    mode: created.mode,
    environment: opts.environment,
    ...(walletKey ? { walletPrivateKey: walletKey, walletPrivateKeySaved: opts.saveWalletKey === true } : {}),
  };
  if (walletKey && ctx.out.json) ctx.out.notice(`warning: ${WALLET_KEY_WARNING}`);
  ctx.out.result(result, () =>
    [
      `Created agent ${created.agentId} (${created.mode}, ${opts.environment}) on ${ctx.baseUrl}.`,
      `Its key is saved in ${ctx.store.path} (mode 0600), profile "${ctx.profileName}".`,
      `Default record: ${created.recordId}`,
      `Wallet: ${created.walletAddress}`,
      ...(walletKey
        ? [
            '',
            `Wallet private key: ${walletKey}`,
            `  ${WALLET_KEY_WARNING}`,
            opts.saveWalletKey ? '  It is also saved in the config file (mode 0600), for `agent-memory pay`.' : '  It is not saved anywhere by this command.',
          ]
        : []),
      '',
      'Next: agent-memory remember "…", then agent-memory recall "…"',
    ].join('\n'),
  );
}
