import { useId } from 'react';
import { formatUsd } from './account-format';
import { ScrollRegion } from './scroll-region';

/** One day of usage: UTC date `YYYY-MM-DD`, calls and spend (micro-USD). */
export interface UsageDay {
  date: string;
  count: number;
  amountMicroUsd: number;
}

const HEIGHT = 160;
const BAR = 10;
const GAP = 8;
const AXIS = 20;

/**
 * Calls and spend per day as an SVG bar chart (two bars a day: calls, then spend, each scaled to its own
 * maximum), oldest day on the left. It is an image with a `<title>` and a `<desc>` that sums it up; the
 * exact figures are in the table that follows it (the accessible alternative, also for phones).
 */
export function UsageChart({ days }: { days: UsageDay[] }) {
  const id = useId();
  const ordered = [...days].sort((a, b) => a.date.localeCompare(b.date));
  const maxCalls = Math.max(1, ...ordered.map((d) => d.count));
  const maxSpend = Math.max(1, ...ordered.map((d) => d.amountMicroUsd));
  const step = BAR * 2 + GAP;
  const width = Math.max(200, ordered.length * step + GAP);
  const totalCalls = ordered.reduce((sum, d) => sum + d.count, 0);
  const totalSpend = ordered.reduce((sum, d) => sum + d.amountMicroUsd, 0);
  const summary =
    ordered.length === 0
      ? 'No calls yet.'
      : `${ordered.length} day${ordered.length === 1 ? '' : 's'} from ${ordered[0].date} to ${ordered[ordered.length - 1].date}: ${totalCalls} calls, ${formatUsd(totalSpend)} spent; busiest day ${busiest(ordered).date} with ${busiest(ordered).count} calls.`;
  return (
    <figure className="usage-chart">
      <ScrollRegion label="Chart of calls and spend per day" className="chart-scroll">
        <svg role="img" aria-labelledby={`${id}-t ${id}-d`} viewBox={`0 0 ${width} ${HEIGHT + AXIS}`} width={width} height={HEIGHT + AXIS}>
          <title id={`${id}-t`}>Calls and spend per day</title>
          <desc id={`${id}-d`}>{summary}</desc>
          <line x1={0} y1={HEIGHT} x2={width} y2={HEIGHT} className="axis" />
          {ordered.map((day, index) => {
            const x = GAP + index * step;
            const calls = Math.max(1, Math.round((day.count / maxCalls) * (HEIGHT - 4)));
            const spend = day.amountMicroUsd > 0 ? Math.max(1, Math.round((day.amountMicroUsd / maxSpend) * (HEIGHT - 4))) : 0;
            return (
              <g key={day.date}>
                <rect x={x} y={HEIGHT - calls} width={BAR} height={calls} className="bar-calls" />
                <rect x={x + BAR} y={HEIGHT - spend} width={BAR} height={spend} className="bar-spend" />
                {ordered.length <= 14 || index % Math.ceil(ordered.length / 14) === 0 ? (
                  <text x={x} y={HEIGHT + 14} className="tick">
                    {day.date.slice(5)}
                  </text>
                ) : null}
              </g>
            );
          })}
        </svg>
      </ScrollRegion>
      <figcaption>
        <span className="swatch swatch-calls" aria-hidden="true" /> calls (highest {maxCalls === 1 && totalCalls === 0 ? 0 : maxCalls} a day){' '}
        <span className="swatch swatch-spend" aria-hidden="true" /> spend (highest {formatUsd(ordered.length ? maxSpend : 0)} a day)
      </figcaption>
    </figure>
  );
}

function busiest(days: UsageDay[]): UsageDay {
  return days.reduce((best, day) => (day.count > best.count ? day : best), days[0]);
}
