import { useId } from 'react';
import { formatUsd } from './account-format';
import { ScrollRegion } from './scroll-region';

/** One operation's usage: its name (docs/billing.md, "Prices"), calls and spend (micro-USD). */
export interface UsageOperation {
  operation: string;
  count: number;
  amountMicroUsd: number;
}

const LABEL = 120;
const BARS = 220;
const VALUE = 80;
const BAR = 12;
const GAP = 12;
const WIDTH = LABEL + BARS + VALUE;

/**
 * Calls and spend per operation as an SVG bar chart: one row per operation (most calls first), a calls bar
 * and a spend bar under it, each scaled to its own maximum, with the figures at the end of the bars. Like
 * the per-day chart ({@link UsageChart}) it is an image with a `<title>` and a `<desc>` that sums it up;
 * the exact figures are in the table that follows it (the accessible alternative).
 */
export function OperationsChart({ operations }: { operations: UsageOperation[] }) {
  const id = useId();
  const ordered = [...operations].sort((a, b) => b.count - a.count || b.amountMicroUsd - a.amountMicroUsd || a.operation.localeCompare(b.operation));
  const maxCalls = Math.max(1, ...ordered.map((o) => o.count));
  const maxSpend = Math.max(1, ...ordered.map((o) => o.amountMicroUsd));
  const row = BAR * 2 + GAP;
  const height = Math.max(row, ordered.length * row) + GAP;
  return (
    <figure className="usage-chart">
      <ScrollRegion label="Chart of calls and spend per operation" className="chart-scroll">
        <svg role="img" aria-labelledby={`${id}-t ${id}-d`} viewBox={`0 0 ${WIDTH} ${height}`} width={WIDTH} height={height}>
          <title id={`${id}-t`}>Calls and spend per operation</title>
          <desc id={`${id}-d`}>{operationsSummary(ordered)}</desc>
          <line x1={LABEL} y1={0} x2={LABEL} y2={height} className="axis" />
          {ordered.map((op, index) => {
            const y = GAP / 2 + index * row;
            const calls = Math.max(1, Math.round((op.count / maxCalls) * (BARS - 4)));
            const spend = op.amountMicroUsd > 0 ? Math.max(1, Math.round((op.amountMicroUsd / maxSpend) * (BARS - 4))) : 0;
            return (
              <g key={op.operation}>
                <text x={LABEL - 6} y={y + BAR + 3} textAnchor="end" className="tick">
                  {op.operation}
                </text>
                <rect x={LABEL} y={y} width={calls} height={BAR} className="bar-calls" />
                <text x={LABEL + calls + 4} y={y + BAR - 1} className="tick">
                  {op.count}
                </text>
                <rect x={LABEL} y={y + BAR} width={spend} height={BAR} className="bar-spend" />
                <text x={LABEL + spend + 4} y={y + 2 * BAR - 1} className="tick">
                  {formatUsd(op.amountMicroUsd)}
                </text>
              </g>
            );
          })}
        </svg>
      </ScrollRegion>
      <figcaption>
        <span className="swatch swatch-calls" aria-hidden="true" /> calls{' '}
        <span className="swatch swatch-spend" aria-hidden="true" /> spend, per operation
      </figcaption>
    </figure>
  );
}

/**
 * The text alternative of the chart: each operation with its calls and spend, most calls first, e.g.
 * "2 operations: remember 2 calls ($0.002), recall 1 call ($0.05)."; "No calls yet." when there is none.
 */
export function operationsSummary(operations: UsageOperation[]): string {
  if (operations.length === 0) return 'No calls yet.';
  const parts = operations.map((o) => `${o.operation} ${o.count} call${o.count === 1 ? '' : 's'} (${formatUsd(o.amountMicroUsd)})`);
  return `${operations.length} operation${operations.length === 1 ? '' : 's'}: ${parts.join(', ')}.`;
}
