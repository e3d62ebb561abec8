import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PRICE_LIST_MICRO_USD, RATE_LIMITS } from '@agent-memory/shared';
import { requireRecord, type CommandContext } from '../config/context';
import { CliError } from '../output/errors';
import { formatDuration } from '../output/output';
import { openClient } from '../sdk';
import { Checkpoint } from './checkpoint';
import { importIdempotencyKey, newImportRunId, parseExportLine, type FileLine, type HeaderLine, type MemoryLine } from './export-format';
import { WritePacer, retryWrite, type WaitListener } from './pacer';
import { createProgress, EtaEstimator } from './progress';

/** What `<input>.import-checkpoint` holds: which input (size and time) went into which record, in which run, and how far. */
export interface ImportState {
  version: 1;
  recordId: string;
  /** The run's nonce in every idempotency key ({@link importIdempotencyKey}): kept by a resume, new for a new run. Absent in checkpoints of older CLIs. */
  runId?: string;
  size: number;
  mtimeMs: number;
  /** Lines of the input done (the header included). */
  linesDone: number;
  /** Memories and files of those lines (for the progress). */
  itemsDone: number;
  complete: boolean;
}

/** Reads the input line by line (bounded memory whatever its size); `each` gets the 1-based line number. */
async function forEachLine(path: string, each: (text: string, lineNumber: number) => Promise<void> | void): Promise<void> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    n += 1;
    if (text.trim() !== '') await each(text, n);
  }
}

/** First pass: every line checked before anything is written; answers the header and the counts. */
async function scan(path: string): Promise<{ header: HeaderLine; memories: number; files: number }> {
  let header: HeaderLine | undefined;
  let memories = 0;
  let files = 0;
  await forEachLine(path, (text, n) => {
    const line = parseExportLine(text, n);
    if (line.kind === 'header') {
      if (header) throw new CliError(`line ${n}: a second header`, 'INVALID_INPUT', 1);
      header = line;
    } else if (!header) throw new CliError(`line ${n}: the first line must be the export header`, 'INVALID_INPUT', 1);
    else if (line.kind === 'memory') memories += 1;
    else files += 1;
  });
  if (!header) throw new CliError(`${path} is empty: not an agent-memory export`, 'INVALID_INPUT', 1);
  return { header, memories, files };
}

/**
 * `agent-memory import <file>`: writes every memory (at its path, with its type) and file of an export
 * into a record (`--record`, the profile's, or a new one with `--create-record`).
 * - Idempotent within a run: each write carries the idempotency key of its line and of the run's
 *   `runId` (./export-format.ts), so a write repeated by a resumed run is answered from the first and
 *   charges nothing (docs/api.md, "Idempotency keys").
 * - Resumable: `<file>.import-checkpoint` records the target record, the run and the lines done, saved
 *   after every write; a rerun continues after them with the same `runId`. A finished import run again
 *   does nothing, by its checkpoint (and writes nothing). `--restart`, a lost checkpoint, or an input
 *   changed after a finished import start a new run with a new `runId`: every line is written (and
 *   charged) again, so memories forgotten or changed in the record since are restored.
 * - Rate limits: writes are paced to 30 a minute per record (docs/api.md, "Rate limits"), announced
 *   with the least time it takes; a 429 waits out `Retry-After`; a network error or 500 is retried with
 *   the same key. Progress bar and ETA on stderr (plain lines when stderr is not a terminal).
 */
export async function importRecord(ctx: CommandContext, file: string, opts: { record?: string; createRecord?: string | boolean; restart?: boolean }): Promise<void> {
  if (opts.record !== undefined && opts.createRecord !== undefined) throw new CliError('import: give --record or --create-record, not both');
  const { size, mtimeMs } = statSync(file);
  const { header, memories, files } = await scan(file);
  const checkpoint = new Checkpoint<ImportState>(`${file}.import-checkpoint`);
  let state = opts.restart ? undefined : checkpoint.load();
  if (state && (state.size !== size || state.mtimeMs !== mtimeMs)) {
    // an unfinished run goes on (its lines already written are replays); after a finished one this is a new run
    ctx.out.notice(`${file} changed since ${checkpoint.path} was written: going through it again${state.complete ? '' : ' (lines already written are not written twice)'}`);
    state = { ...state, size, mtimeMs, linesDone: 0, itemsDone: 0, runId: state.complete ? newImportRunId() : state.runId, complete: false };
  }
  if (state && opts.record !== undefined && opts.record !== state.recordId) state = undefined;
  const client = await openClient(ctx, { retries: 0 });
  if (!state) {
    let recordId: string;
    if (opts.createRecord !== undefined) {
      const name = typeof opts.createRecord === 'string' ? opts.createRecord : (header.recordName ?? `import of ${header.recordId}`);
      recordId = (await client.records.create({ name })).id;
      ctx.out.notice(`Created record ${recordId} (${name}) for the import.`);
    } else recordId = requireRecord(ctx, opts.record);
    state = { version: 1, recordId, runId: newImportRunId(), size, mtimeMs, linesDone: 0, itemsDone: 0, complete: false };
    checkpoint.save(state);
  } else if (!state.complete) {
    ctx.out.notice(`Resuming the import into ${state.recordId} after line ${state.linesDone} (${checkpoint.path}).`);
  }
  const recordId = state.recordId;
  const total = memories + files;
  if (state.complete) {
    ctx.out.result({ recordId, input: file, written: 0, memories, files, alreadyComplete: true }, () => `${file} is already imported into ${recordId} (${checkpoint.path}); nothing to do. Use --restart to go through it again.`);
    return;
  }

  if (state.runId === undefined) {
    state.runId = newImportRunId();
    checkpoint.save(state);
  }
  const runId = state.runId;
  const pacer = new WritePacer();
  const remaining = total - state.itemsDone;
  ctx.out.notice(
    `Importing ${memories} memories and ${files} files into ${recordId} (${remaining} writes left). The service allows ` +
      `${RATE_LIMITS.recordWritesPerMinute} writes a minute per record, so this takes at least ${formatDuration(pacer.minimumSeconds(remaining))}; ` +
      `each new write costs ${(PRICE_LIST_MICRO_USD.remember / 1e6).toFixed(2)} USD, repeats are free. Interrupted? Run the same command again to continue.`,
  );
  const eta = new EtaEstimator(RATE_LIMITS.recordWritesPerMinute);
  let done = state.itemsDone;
  let pacerFloor = () => pacer.secondsFor(total - done);
  const progress = createProgress({ label: 'import', total, initial: done, eta: (d) => eta.secondsLeft(total - d, Math.max(0, pacerFloor())) });
  const onWait: WaitListener = (ms, reason) => {
    if (reason === 'pacing') return;
    progress.update(done, reason === 'retry-after' ? `rate limited: waiting ${formatDuration(ms / 1000)} (Retry-After)` : `retrying in ${formatDuration(ms / 1000)}`);
  };
  let written = 0;
  try {
    const current = state;
    await forEachLine(file, async (text, n) => {
      if (n <= current.linesDone) return;
      const line = parseExportLine(text, n);
      if (line.kind !== 'header') {
        await pacer.take(onWait);
        await writeLine(client, recordId, line, runId, onWait);
        written += 1;
        done += 1;
        current.itemsDone = done;
        eta.tick();
        progress.update(done);
      }
      current.linesDone = n;
      checkpoint.save(current);
    });
    pacerFloor = () => 0;
    current.complete = true;
    checkpoint.save(current);
  } finally {
    progress.stop();
  }
  ctx.out.result({ recordId, input: file, written, memories, files, alreadyComplete: false }, () => `Imported ${memories} memories and ${files} files into ${recordId} (${written} writes this run).`);
}

/** One write of a line, with its idempotency key in run `runId`, retried by {@link retryWrite}. */
async function writeLine(client: Awaited<ReturnType<typeof openClient>>, recordId: string, line: MemoryLine | FileLine, runId: string, onWait: WaitListener): Promise<void> {
  const idempotencyKey = importIdempotencyKey(line, runId);
  await retryWrite(async () => {
    if (line.kind === 'memory') await client.memories.remember(recordId, { content: line.content, type: line.type, path: line.path }, { idempotencyKey });
    else await client.files.write(recordId, { path: line.path, content: line.content }, { idempotencyKey });
  }, { onWait });
}
