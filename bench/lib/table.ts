/**
 * Plain-text table printing for benchmark results (GitHub-flavoured Markdown, so that the output can be
 * pasted into a report as is).
 */

/** A cell: strings are printed as is, numbers with `digits` decimals (default 1), NaN as "–". */
export type Cell = string | number;

/** Formats a number with fixed decimals; NaN and infinities become "–". */
export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/**
 * Renders `rows` under `headers` as a Markdown table with padded columns. Numeric columns are
 * right-aligned. `digits` sets the decimals of number cells.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly Cell[])[], digits = 1): string {
  const text = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? fmt(cell, digits) : cell)));
  const numeric = headers.map((_, c) => rows.length > 0 && rows.every((row) => typeof row[c] === 'number'));
  const widths = headers.map((h, c) => Math.max(h.length, 3, ...text.map((row) => (row[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (numeric[c] ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join(' | ')} |`;
  const rule = `|${widths.map((w, c) => (numeric[c] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(headers), rule, ...text.map(line)].join('\n');
}

/** Prints a table (see {@link renderTable}) followed by a blank line. */
export function printTable(headers: readonly string[], rows: readonly (readonly Cell[])[], digits = 1): void {
  process.stdout.write(`${renderTable(headers, rows, digits)}\n\n`);
}
