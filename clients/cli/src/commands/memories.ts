import { readFileSync } from 'node:fs';
import type { MemoryType } from '@agent-memory/shared';
import { requireRecord, type CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { renderTable, shorten } from '../output/output';
import { intOption, openClient } from '../sdk';

const TYPES: readonly MemoryType[] = ['identity', 'fact', 'relationship', 'episode', 'skill'];

/** `content`, or all of stdin when it is `-`. */
function contentArgument(content: string): string {
  return content === '-' ? readFileSync(0, 'utf8') : content;
}

/** `agent-memory remember <content>`: POST /records/{id}/remember (docs/api.md, "Remember"); the SDK sends one idempotency key for all its retries. */
export async function remember(ctx: CommandContext, content: string, opts: { record?: string; type?: MemoryType; path?: string }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const client = await openClient(ctx);
  const memory = await client.memories.remember(recordId, { content: contentArgument(content), type: opts.type, path: opts.path });
  ctx.out.result({ recordId, ...memory }, () => `Remembered ${memory.type} at ${memory.path} (${memory.id})\n  ${shorten(memory.summary, 200)}`);
}

/** `agent-memory recall <query>`: POST /records/{id}/recall (docs/api.md, "Recall"); a table in the service's order. */
export async function recall(ctx: CommandContext, query: string, opts: { record?: string; limit?: string; types?: string }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const types = opts.types?.split(',').map((t) => t.trim()).filter(Boolean) as MemoryType[] | undefined;
  const unknown = types?.find((t) => !TYPES.includes(t));
  if (unknown) throw new CliError(`--types: "${unknown}" is not a memory type (${TYPES.join(', ')})`);
  const client = await openClient(ctx);
  const result = await client.memories.recall(recordId, { query, limit: intOption('--limit', opts.limit, 1, 50), types });
  ctx.out.result({ recordId, ...result }, () =>
    result.memories.length === 0
      ? 'No memories found.'
      : renderTable(
          ['#', 'similarity', 'type', 'path', 'summary'],
          result.memories.map((m, i) => [String(i + 1), m.similarity.toFixed(3), m.type, m.path, shorten(m.summary, 80)]),
        ),
  );
}

/** `agent-memory forget --path|--id`: DELETE /records/{id}/remember (docs/api.md, "Forget"). */
export async function forget(ctx: CommandContext, opts: { record?: string; path?: string; id?: string }): Promise<void> {
  if ((opts.path === undefined) === (opts.id === undefined)) throw new CliError('forget: give exactly one of --path or --id');
  const recordId = requireRecord(ctx, opts.record);
  const client = await openClient(ctx);
  const result = await client.memories.forget(recordId, opts.path !== undefined ? { path: opts.path } : { id: opts.id! });
  ctx.out.result({ recordId, ...result }, () => `Forgot ${result.path}`);
}

/** `agent-memory context`: GET /records/{id}/context (docs/api.md, "Get full context"), grouped by type. */
export async function context(ctx: CommandContext, opts: { record?: string; limit?: string }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const client = await openClient(ctx);
  const result = await client.memories.context(recordId, { limit: intOption('--limit', opts.limit, 1, 200) });
  ctx.out.result({ recordId, ...result }, () => {
    const sections = TYPES.filter((t) => result[t].length > 0).map(
      (t) => `${t} (${result[t].length})\n${result[t].map((m) => `  ${m.path}: ${shorten(m.summary, 100)}`).join('\n')}`,
    );
    return sections.length ? sections.join('\n\n') : 'No memories in this record.';
  });
}
