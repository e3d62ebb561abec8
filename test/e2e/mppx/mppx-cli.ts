import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The `mppx` command of the installed `mppx` package (its `bin`, `dist/bin.js`): the Machine Payments
 * Protocol's reference client, which validates MPP servers (`mppx validate`) and makes paying requests
 * (`mppx <url>`; docs/billing.md, "Paying with mppx").
 */
export const MPPX_BIN = join(dirname(require.resolve('mppx')), 'bin.js');

/** What one run of the CLI printed (stdout then stderr) and its exit code. */
export interface MppxRun {
  code: number | null;
  output: string;
}

/**
 * Runs `node <mppx bin> ...args` in a fresh home directory (no mppx account, keychain or config of the
 * machine is read), without colours, and kills it after `timeoutMs`. `env` adds variables (e.g.
 * `MPPX_CONFIG`, the wallet key the config reads). The only network it is pointed at is 127.0.0.1.
 */
export async function runMppx(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<MppxRun> {
  if (!existsSync(MPPX_BIN)) throw new Error(`the mppx command is missing at ${MPPX_BIN}`);
  const home = mkdtempSync(join(tmpdir(), 'mppx-home-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    NO_COLOR: '1',
    // Set (empty) so that `mppx validate` does not shell out to a `stripe` CLI looking for a Stripe test key.
    MPPX_STRIPE_SECRET_KEY: '',
    ...options.env,
  };
  const child = spawn(process.execPath, [MPPX_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).finally(() => {
    clearTimeout(timer);
    rmSync(home, { recursive: true, force: true });
  });
  return { code, output: stdout + stderr };
}

/**
 * Writes an mppx config file (`mppx --config`, or `MPPX_CONFIG` for `mppx validate`) whose one payment
 * method is `evm/charge` (mppx/evm/client) signing with the wallet whose private key is in the variable
 * `AGENT_WALLET_KEY` of the run (never in the file), for the token's EIP-712 domain, and refusing any
 * challenge above `maxAtomicAmount` base units. Returns its path.
 */
export function writeWalletConfig(options: { token: { name: string; version: string }; maxAtomicAmount: string }): string {
  const evmClient = pathToFileURL(require.resolve('mppx/evm/client')).href;
  const viemAccounts = pathToFileURL(require.resolve('viem/accounts')).href;
  const file = join(mkdtempSync(join(tmpdir(), 'mppx-config-')), 'mppx.config.mjs');
  writeFileSync(
    file,
    [
      `import { charge } from ${JSON.stringify(evmClient)};`,
      `import { privateKeyToAccount } from ${JSON.stringify(viemAccounts)};`,
      'export default {',
      `  methods: [charge({ account: privateKeyToAccount(process.env.AGENT_WALLET_KEY), authorization: ${JSON.stringify(options.token)}, maxAtomicAmount: ${JSON.stringify(options.maxAtomicAmount)} })],`,
      '};',
      '',
    ].join('\n'),
  );
  return file;
}
