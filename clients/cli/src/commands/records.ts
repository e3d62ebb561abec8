import type { CommandContext } from '../config/context';
import { renderTable } from '../output/output';
import { intOption, openClient } from '../sdk';

/** `agent-memory records ls`: GET /records (docs/api.md, "Records"), newest first; `*` marks the profile's default record. */
export async function listRecords(ctx: CommandContext, opts: { limit?: string; offset?: string }): Promise<void> {
  const client = await openClient(ctx);
  const page = await client.records.page({ limit: intOption('--limit', opts.limit, 1, 100), offset: intOption('--offset', opts.offset, 0, Number.MAX_SAFE_INTEGER) });
  ctx.out.result(page, () => {
    if (page.records.length === 0) return 'No records.';
    const table = renderTable(
      ['', 'id', 'name', 'category', 'tags', 'created'],
      page.records.map((r) => [r.id === ctx.profile.recordId ? '*' : '', r.id, r.name, r.category, r.tags.join(', '), r.createdAt]),
    );
    const more = page.offset + page.records.length < page.total ? `\n${page.total - page.offset - page.records.length} more: --offset ${page.offset + page.records.length}` : '';
    return `${table}\n${page.records.length} of ${page.total} records${more}`;
  });
}

/** `agent-memory records create <name>`: POST /records; `--use` makes it the profile's default record. */
export async function createRecord(ctx: CommandContext, name: string, opts: { tags?: string; category?: string; parent?: string; use?: boolean }): Promise<void> {
  const client = await openClient(ctx);
  const tags = opts.tags?.split(',').map((t) => t.trim()).filter(Boolean);
  const record = await client.records.create({ name, tags, category: opts.category, parentRecordId: opts.parent });
  if (opts.use) ctx.store.updateProfile(ctx.profileName, { recordId: record.id });
  ctx.out.result(record, () => `Created record ${record.id} (${record.name})${opts.use ? `; now the default record of profile "${ctx.profileName}"` : ''}`);
}

/** `agent-memory records rm <id>`: DELETE /records/{id} (`--cascade` for child records). */
export async function removeRecord(ctx: CommandContext, id: string, opts: { cascade?: boolean }): Promise<void> {
  const client = await openClient(ctx);
  const result = await client.records.delete(id, { cascade: opts.cascade === true });
  if (ctx.profile.recordId !== undefined && result.deletedRecordIds.includes(ctx.profile.recordId)) {
    ctx.store.updateProfile(ctx.profileName, { recordId: undefined });
    ctx.out.notice(`note: profile "${ctx.profileName}" has no default record now; choose one with \`agent-memory records use <id>\``);
  }
  ctx.out.result(result, () => `Deleted ${result.deletedRecordIds.join(', ')}`);
}

/** `agent-memory records use <id>`: checks the record exists (GET /records/{id}) and makes it the profile's default. */
export async function useRecord(ctx: CommandContext, id: string): Promise<void> {
  const client = await openClient(ctx);
  const record = await client.records.get(id);
  ctx.store.updateProfile(ctx.profileName, { recordId: record.id });
  ctx.out.result({ profile: ctx.profileName, recordId: record.id }, () => `Profile "${ctx.profileName}" now uses record ${record.id} (${record.name})`);
}
