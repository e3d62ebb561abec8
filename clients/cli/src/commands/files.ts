import { readFileSync, writeFileSync } from 'node:fs';
import { requireRecord, type CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { openClient } from '../sdk';

/**
 * `agent-memory files put <path> [source]`: POST /records/{id}/write (docs/api.md, "Write file"). The
 * content is `--content`, else the local file `source`, else stdin (`source` absent or `-`); UTF-8 text.
 */
export async function putFile(ctx: CommandContext, path: string, source: string | undefined, opts: { record?: string; content?: string }): Promise<void> {
  if (opts.content !== undefined && source !== undefined) throw new CliError('files put: give either a source file or --content, not both');
  const recordId = requireRecord(ctx, opts.record);
  const content = opts.content ?? readFileSync(source === undefined || source === '-' ? 0 : source, 'utf8');
  const client = await openClient(ctx);
  const written = await client.files.write(recordId, { path, content });
  ctx.out.result({ recordId, ...written }, () => `Wrote ${written.path} (${Buffer.byteLength(content, 'utf8')} bytes, ${written.contentHash})`);
}

/** `agent-memory files get <path>`: GET /records/{id}/read (docs/api.md, "Read file"); the content on stdout, or into `--output`. */
export async function getFile(ctx: CommandContext, path: string, opts: { record?: string; output?: string }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const client = await openClient(ctx);
  const file = await client.files.read(recordId, path);
  if (opts.output !== undefined) {
    writeFileSync(opts.output, file.content);
    ctx.out.result({ recordId, path: file.path, output: opts.output, bytes: Buffer.byteLength(file.content, 'utf8') }, () => `Saved ${file.path} to ${opts.output}`);
    return;
  }
  if (ctx.out.json) ctx.out.result({ recordId, ...file }, () => '');
  else process.stdout.write(file.content);
}
