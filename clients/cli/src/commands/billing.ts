import type { CommandContext } from '../config/context';
import { requireApiKey } from '../config/context';
import { CliError } from '../output/errors';
import { openClient } from '../sdk';

/** `agent-memory balance`: GET /billing/balance (docs/billing.md, "Endpoints"). */
export async function balance(ctx: CommandContext): Promise<void> {
  const client = await openClient(ctx);
  const result = await client.billing.balance();
  ctx.out.result(result, () =>
    Object.entries(result)
      .map(([key, value]) => `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`)
      .join('\n'),
  );
}

/**
 * `agent-memory pay <amount>`: adds `amount` USD (0.05 to 1,000, at most 6 decimals) to the balance
 * (docs/billing.md, "Top-ups"). A test key (`amk_test_…`) gets sandbox credit (POST
 * /billing/sandbox/top-up, no money). A live key asks POST /billing/top-up, whose 402 challenge for
 * exactly that amount is paid from the agent's wallet: the profile's saved wallet key
 * (`init --save-wallet-key`) or `AGENT_MEMORY_WALLET_PRIVATE_KEY`.
 */
export async function pay(ctx: CommandContext, amount: string): Promise<void> {
  if (!/^\d+(\.\d{1,6})?$/.test(amount)) throw new CliError('pay: <amount> is USD with at most 6 decimals, e.g. 10 or 2.50');
  const apiKey = requireApiKey(ctx);
  if (apiKey.startsWith('amk_test_')) {
    const client = await openClient(ctx);
    const result = await client.billing.sandboxTopUp(amount);
    ctx.out.result(result, () => `Added ${amount} USD of sandbox credit.\n${JSON.stringify(result, null, 2)}`);
    return;
  }
  const wallet = process.env.AGENT_MEMORY_WALLET_PRIVATE_KEY || ctx.profile.walletPrivateKey;
  if (!wallet) {
    throw new CliError(
      'pay: a live top-up is paid from the agent\'s wallet; set AGENT_MEMORY_WALLET_PRIVATE_KEY (or create the profile with `init --save-wallet-key`)',
      'CONFIG_ERROR',
    );
  }
  const { AgentMemory } = await import('@agent-memory/client');
  const client = new AgentMemory({ baseUrl: ctx.baseUrl, apiKey, wallet: wallet as `0x${string}`, payments: { enabled: true, maxPricePerCall: amount } });
  const result = await client.billing.topUp(amount);
  ctx.out.result(result, () => `Paid ${amount} USD from the agent's wallet.\n${JSON.stringify(result, null, 2)}`);
}
