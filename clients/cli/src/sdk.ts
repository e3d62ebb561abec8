import type { AgentMemory } from '@agent-memory/client';
import { requireApiKey, type CommandContext } from './config/context';
import { CliError } from './output/errors';

/**
 * The SDK client of a command, for the context's service URL and agent key (loaded on first use, so
 * commands that need no HTTP start without it). `retries` is the SDK's retry setting: the default (SDK
 * retries of 429 after `Retry-After` and of network errors for safe calls) for single commands; export
 * and import pass 0 and wait out limits themselves, showing each wait in their progress.
 */
export async function openClient(ctx: CommandContext, options: { retries?: number } = {}): Promise<AgentMemory> {
  const { AgentMemory } = await import('@agent-memory/client');
  return new AgentMemory({ baseUrl: ctx.baseUrl, apiKey: requireApiKey(ctx), ...(options.retries === undefined ? {} : { retries: options.retries }) });
}

/** A whole number option in [min, max], or a USAGE_ERROR naming the option. */
export function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new CliError(`${name}: must be a whole number from ${min} to ${max}`);
  }
  return n;
}
