import { closeSync, existsSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { encodeListCursor, LIMITS, PRICE_LIST_MICRO_USD, RATE_LIMITS } from '@agent-memory/shared';
import { requireRecord, type CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { formatDuration } from '../output/output';
import { intOption, openClient } from '../sdk';
import { Checkpoint } from './checkpoint';
import { fileLine, headerLine, memoryLine } from './export-format';
import { systemClock, WritePacer, retryWrite, type Clock, type WaitListener } from './pacer';
import { createProgress, EtaEstimator } from './progress';

/**
 * What `<output>.checkpoint` holds while an export runs: where the listing stopped and how much of the
 * output is complete. Both listings are resumed by key, never by position: a memory or file written or
 * forgotten between two runs neither shifts what is skipped nor is written twice.
 */
export interface ExportState {
  version: 2;
  recordId: string;
  phase: 'memories' | 'files';
  /** Memories phase: the `nextCursor` of the last page written (it continues after that page's last path); absent: the first page. */
  cursor?: string;
  /** Files phase: path of the last file written; a rerun lists the files after it. Absent: none yet. */
  lastFilePath?: string;
  /** Bytes of the output that are complete lines; a rerun cuts the output back to this. */
  bytes: number;
  memories: number;
  files: number;
}

const usd = (micro: number) => (micro / 1e6).toFixed(2);

/** Why a request of the export waits: its own pacing to one of the two limits, or the service's answer. */
function waitNotice(ms: number, reason: Parameters<WaitListener>[1], limit: string): string {
  const why = reason === 'pacing' ? `keeping to ${limit}` : reason === 'retry-after' ? 'rate limited by the service' : 'retrying after an error';
  return `export: ${why}, waiting ${formatDuration(ms / 1000)}`;
}

/**
 * `agent-memory export -o <file>`: writes the record as JSON Lines (./export-format.ts): the header,
 * every memory page by page (GET /records/{id}/memories, keyset pages with content, 0.05 USD a page),
 * then every file (GET /records/{id}/files pages, then read file, 0.05 USD a file). After each page and
 * each file the checkpoint `<file>.checkpoint` records the cursor and the output's length, so a run
 * stopped anywhere continues on the next run where it stopped (the output is first cut back to the last
 * complete line; an output shorter than the checkpoint says is refused, not appended to); the
 * checkpoint is removed when the export is complete. Requests are paced to both limits that apply
 * (docs/api.md "Rate limits"): every request to the per-agent 100 a minute, and the listing pages
 * (memories and files) also to the per-record 60 queries a minute; 429s wait out `Retry-After`.
 */
export async function exportRecord(ctx: CommandContext, opts: { record?: string; output: string; pageSize?: string; force?: boolean }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const pageSize = intOption('--page-size', opts.pageSize, 1, LIMITS.listMemories.max) ?? LIMITS.listMemories.max;
  const checkpoint = new Checkpoint<ExportState>(`${opts.output}.checkpoint`);
  let state = checkpoint.load();
  if (state && state.version !== 2) {
    throw new CliError(`${checkpoint.path} was written by an older agent-memory; remove it and ${opts.output}, and export again`, 'CONFIG_ERROR');
  }
  if (state && state.recordId !== recordId) {
    throw new CliError(`${checkpoint.path} belongs to an export of ${state.recordId}; finish that one, or remove the checkpoint`, 'CONFIG_ERROR');
  }
  if (!state && existsSync(opts.output) && !opts.force) throw new CliError(`${opts.output} exists; pass --force to overwrite it`);
  const client = await openClient(ctx, { retries: 0 });
  const notice = ctx.out.notice.bind(ctx.out);
  const call = pacedCall((ms, reason, limit) => {
    if (ms >= 1000) notice(waitNotice(ms, reason, limit));
  });

  let fd: number;
  if (!state) {
    const record = await call(() => client.records.get(recordId));
    fd = openSync(opts.output, 'w', 0o600);
    state = { version: 2, recordId, phase: 'memories', bytes: 0, memories: 0, files: 0 };
    state.bytes += append(fd, [headerLine(recordId, record.name)]);
    checkpoint.save(state);
    notice(
      `Exporting ${recordId} to ${opts.output}: memories cost ${usd(PRICE_LIST_MICRO_USD.list_memories)} USD per page of ${pageSize}, ` +
        `files ${usd(PRICE_LIST_MICRO_USD.read_file)} USD each; requests are kept to ${RATE_LIMITS.agentPerMinute} a minute, ` +
        `listing pages to ${RATE_LIMITS.recordQueriesPerMinute} a minute. Interrupted? Run the same command again to continue.`,
    );
  } else {
    const size = existsSync(opts.output) ? statSync(opts.output).size : -1;
    if (size < state.bytes) {
      throw new CliError(
        `${opts.output} is ${size < 0 ? 'missing' : `${size} bytes, shorter than the ${state.bytes} bytes ${checkpoint.path} recorded`}: ` +
          `it was changed since; remove ${checkpoint.path} and export again (with --force to overwrite ${opts.output})`,
        'CONFIG_ERROR',
      );
    }
    fd = openSync(opts.output, 'r+');
    if (size > state.bytes) ftruncateSync(fd, state.bytes);
    closeSync(fd);
    fd = openSync(opts.output, 'a');
    notice(`Resuming the export of ${recordId} into ${opts.output} (${state.memories} memories and ${state.files} files already written).`);
  }
  try {
    while (state.phase === 'memories') {
      const cursor = state.cursor;
      const page = await call(() => client.memories.page(recordId, { limit: pageSize, cursor }), 'listing');
      state.bytes += append(fd, page.memories.map((m) => memoryLine(m)));
      state.memories += page.memories.length;
      state.cursor = page.nextCursor ?? undefined;
      if (!page.nextCursor) state = { ...state, phase: 'files', cursor: undefined };
      checkpoint.save(state);
      if (!ctx.out.json) notice(`export: ${state.memories} memories`);
    }
    await exportFiles(ctx, client, recordId, state, fd, checkpoint, call);
  } finally {
    closeSync(fd);
  }
  checkpoint.remove();
  const done = { recordId, output: opts.output, memories: state.memories, files: state.files, bytes: state.bytes };
  ctx.out.result(done, () => `Exported ${done.memories} memories and ${done.files} files of ${recordId} to ${opts.output}`);
}

type Client = Awaited<ReturnType<typeof openClient>>;
/** Sends one request within the pacing; `listing` pages also count against the per-record query limit. */
export type Call = <T>(request: () => Promise<T>, kind?: 'listing' | 'request') => Promise<T>;

/**
 * The export's requests, paced to both limits that apply (docs/api.md, "Rate limits"): every request to
 * the per-agent {@link RATE_LIMITS.agentPerMinute} a minute, and listing pages (list memories, list
 * files: kind `listing`) also to the per-record {@link RATE_LIMITS.recordQueriesPerMinute} queries a
 * minute; a 429 or a failure is waited out by {@link retryWrite}. `onWait` gets each wait with the limit
 * it keeps to, in words.
 */
export function pacedCall(onWait: (ms: number, reason: Parameters<WaitListener>[1], limit: string) => void, clock: Clock = systemClock): Call {
  const windowMs = RATE_LIMITS.windowSeconds * 1000;
  const agentPacer = new WritePacer(RATE_LIMITS.agentPerMinute, windowMs, clock);
  const queryPacer = new WritePacer(RATE_LIMITS.recordQueriesPerMinute, windowMs, clock);
  const agentLimit = `${RATE_LIMITS.agentPerMinute} requests a minute per agent`;
  const queryLimit = `${RATE_LIMITS.recordQueriesPerMinute} listing pages a minute per record`;
  return async (request, kind = 'request') => {
    if (kind === 'listing') await queryPacer.take((ms, reason) => onWait(ms, reason, queryLimit));
    await agentPacer.take((ms, reason) => onWait(ms, reason, agentLimit));
    return retryWrite(request, { onWait: (ms, reason) => onWait(ms, reason, agentLimit), clock });
  };
}

/**
 * The files phase: counts the files first (free metadata pages) for the progress bar, then reads and
 * writes each one. After each file the checkpoint records its path; every listing page (and a rerun's
 * first) asks for the files after the last path written, so a file written or deleted between runs is
 * neither skipped nor repeated. The line carries the content hash of the read, which matches its content.
 */
async function exportFiles(
  ctx: CommandContext,
  client: Client,
  recordId: string,
  state: ExportState,
  fd: number,
  checkpoint: Checkpoint<ExportState>,
  call: Call,
): Promise<void> {
  let total = 0;
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await call(() => client.files.page(recordId, { limit: LIMITS.listFiles.max, cursor }), 'listing');
    total += page.files.length;
    cursor = page.nextCursor ?? undefined;
  }
  if (total === 0) return;
  const eta = new EtaEstimator();
  const progress = createProgress({ label: 'export files', total: Math.max(total, state.files), initial: state.files, eta: (done) => eta.secondsLeft(total - done) });
  try {
    for (;;) {
      const cursor = state.lastFilePath === undefined ? undefined : encodeListCursor(state.lastFilePath);
      const page = await call(() => client.files.page(recordId, { limit: LIMITS.listFiles.max, cursor }), 'listing');
      for (const info of page.files) {
        const file = await call(() => client.files.read(recordId, info.path));
        state.bytes += append(fd, [fileLine({ path: file.path, content: file.content })]);
        state.files += 1;
        state.lastFilePath = info.path;
        checkpoint.save(state);
        eta.tick();
        progress.update(state.files);
      }
      if (!page.nextCursor || page.files.length === 0) return;
    }
  } finally {
    progress.stop();
  }
}

/** Appends `lines` as JSON Lines; answers the bytes written. */
function append(fd: number, lines: object[]): number {
  if (lines.length === 0) return 0;
  const text = lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
  const buffer = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < buffer.length) written += writeSync(fd, buffer, written);
  return buffer.length;
}
