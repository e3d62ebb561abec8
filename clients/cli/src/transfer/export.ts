import { closeSync, existsSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { LIMITS, PRICE_LIST_MICRO_USD, RATE_LIMITS } from '@agent-memory/shared';
import { requireRecord, type CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { formatDuration } from '../output/output';
import { intOption, openClient } from '../sdk';
import { Checkpoint } from './checkpoint';
import { fileLine, headerLine, memoryLine } from './export-format';
import { WritePacer, retryWrite, type WaitListener } from './pacer';
import { createProgress, EtaEstimator } from './progress';

/** What `<output>.checkpoint` holds while an export runs: where the listing stopped and how much of the output is complete. */
export interface ExportState {
  version: 1;
  recordId: string;
  phase: 'memories' | 'files';
  /** Cursor of the next page to fetch (memories), or of the page being read (files); absent: the first page. */
  cursor?: string;
  /** Files of the current files page already written. */
  fileIndex: number;
  /** Bytes of the output that are complete lines; a rerun cuts the output back to this. */
  bytes: number;
  memories: number;
  files: number;
}

const usd = (micro: number) => (micro / 1e6).toFixed(2);

/**
 * `agent-memory export -o <file>`: writes the record as JSON Lines (./export-format.ts): the header,
 * every memory page by page (GET /records/{id}/memories, keyset pages with content, 0.05 USD a page),
 * then every file (GET /records/{id}/files pages, then read file, 0.05 USD a file). After each page and
 * each file the checkpoint `<file>.checkpoint` records the cursor and the output's length, so a run
 * stopped anywhere continues on the next run where it stopped (the output is first cut back to the last
 * complete line); the checkpoint is removed when the export is complete. Requests are paced to the
 * per-agent limit (100 a minute, docs/api.md "Rate limits") and 429s wait out `Retry-After`.
 */
export async function exportRecord(ctx: CommandContext, opts: { record?: string; output: string; pageSize?: string; force?: boolean }): Promise<void> {
  const recordId = requireRecord(ctx, opts.record);
  const pageSize = intOption('--page-size', opts.pageSize, 1, LIMITS.listMemories.max) ?? LIMITS.listMemories.max;
  const checkpoint = new Checkpoint<ExportState>(`${opts.output}.checkpoint`);
  let state = checkpoint.load();
  if (state && state.recordId !== recordId) {
    throw new CliError(`${checkpoint.path} belongs to an export of ${state.recordId}; finish that one, or remove the checkpoint`, 'CONFIG_ERROR');
  }
  if (!state && existsSync(opts.output) && !opts.force) throw new CliError(`${opts.output} exists; pass --force to overwrite it`);
  const client = await openClient(ctx, { retries: 0 });
  const pacer = new WritePacer(RATE_LIMITS.agentPerMinute);
  const notice = ctx.out.notice.bind(ctx.out);
  const onWait: WaitListener = (ms, reason) => {
    if (ms >= 1000) notice(`export: ${reason === 'pacing' ? 'keeping to 100 requests a minute per agent' : reason === 'retry-after' ? 'rate limited by the service' : 'retrying after an error'}, waiting ${formatDuration(ms / 1000)}`);
  };
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    await pacer.take(onWait);
    return retryWrite(request, { onWait });
  };

  let fd: number;
  if (!state) {
    const record = await call(() => client.records.get(recordId));
    fd = openSync(opts.output, 'w', 0o600);
    state = { version: 1, recordId, phase: 'memories', fileIndex: 0, bytes: 0, memories: 0, files: 0 };
    state.bytes += append(fd, [headerLine(recordId, record.name)]);
    checkpoint.save(state);
    notice(
      `Exporting ${recordId} to ${opts.output}: memories cost ${usd(PRICE_LIST_MICRO_USD.list_memories)} USD per page of ${pageSize}, ` +
        `files ${usd(PRICE_LIST_MICRO_USD.read_file)} USD each; requests are kept to ${RATE_LIMITS.agentPerMinute} a minute. Interrupted? Run the same command again to continue.`,
    );
  } else {
    fd = openSync(opts.output, 'r+');
    if (statSync(opts.output).size > state.bytes) ftruncateSync(fd, state.bytes);
    closeSync(fd);
    fd = openSync(opts.output, 'a');
    notice(`Resuming the export of ${recordId} into ${opts.output} (${state.memories} memories and ${state.files} files already written).`);
  }
  try {
    while (state.phase === 'memories') {
      const cursor = state.cursor;
      const page = await call(() => client.memories.page(recordId, { limit: pageSize, cursor }));
      state.bytes += append(fd, page.memories.map((m) => memoryLine(m)));
      state.memories += page.memories.length;
      state.cursor = page.nextCursor ?? undefined;
      if (!page.nextCursor) state = { ...state, phase: 'files', cursor: undefined, fileIndex: 0 };
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

/** The files phase: counts the files first (free metadata pages) for the progress bar, then reads and writes each one. */
async function exportFiles(
  ctx: CommandContext,
  client: Client,
  recordId: string,
  state: ExportState,
  fd: number,
  checkpoint: Checkpoint<ExportState>,
  call: <T>(request: () => Promise<T>) => Promise<T>,
): Promise<void> {
  let total = 0;
  for (let cursor: string | undefined, first = true; first || cursor; first = false) {
    const page = await call(() => client.files.page(recordId, { limit: LIMITS.listFiles.max, cursor }));
    total += page.files.length;
    cursor = page.nextCursor ?? undefined;
  }
  if (total === 0) return;
  const eta = new EtaEstimator();
  const progress = createProgress({ label: 'export files', total: Math.max(total, state.files), initial: state.files, eta: (done) => eta.secondsLeft(total - done) });
  try {
    for (;;) {
      const cursor = state.cursor;
      const page = await call(() => client.files.page(recordId, { limit: LIMITS.listFiles.max, cursor }));
      for (let i = state.fileIndex; i < page.files.length; i++) {
        const info = page.files[i];
        const file = await call(() => client.files.read(recordId, info.path));
        state.bytes += append(fd, [fileLine({ path: file.path, content: file.content, contentHash: info.contentHash })]);
        state.files += 1;
        state.fileIndex = i + 1;
        checkpoint.save(state);
        eta.tick();
        progress.update(state.files);
      }
      if (!page.nextCursor) return;
      state.cursor = page.nextCursor;
      state.fileIndex = 0;
      checkpoint.save(state);
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
