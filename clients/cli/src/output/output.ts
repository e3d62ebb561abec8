/**
 * What the CLI prints (clients/cli/README.md, "Output"): results on stdout, as text tables and lines, or
 * as one JSON document with `--json`; progress, notices and warnings on stderr, so that `--json` output
 * can always be piped into another program.
 */
export interface Output {
  /** True when `--json` was given: results are one JSON document on stdout. */
  readonly json: boolean;
  /** Prints a result: `value` as JSON with `--json`, else the text `render` returns. */
  result(value: unknown, render: () => string): void;
  /** A notice for the person at the terminal (stderr); never part of the machine output. */
  notice(text: string): void;
}

/** The output of one run; `stdout`/`stderr` are injectable for specs. */
export function createOutput(json: boolean, streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process): Output {
  return {
    json,
    result(value, render) {
      streams.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${render()}\n`);
    },
    notice(text) {
      streams.stderr.write(`${text}\n`);
    },
  };
}

/**
 * A table for a terminal (cli-table3, loaded only when a table is printed). `rows` are cell strings;
 * long cells should be shortened by the caller with {@link shorten}.
 */
export function renderTable(head: string[], rows: string[][]): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Table = require('cli-table3') as typeof import('cli-table3');
  const table = new Table({
    head,
    style: { head: [], border: [] },
    wordWrap: true,
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  table.push(...rows);
  return table.toString();
}

/** `text` on one line (whitespace collapsed), cut to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}

/** A duration in seconds for people: `45 s`, `3 min 20 s`, `1 h 05 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
