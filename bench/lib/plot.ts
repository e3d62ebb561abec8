/**
 * A small hand-written SVG line chart for benchmark results (no dependency): a logarithmic x axis (sizes
 * growing by factors of ten), a linear y axis from 0, one polyline with labelled points per series.
 */

/** One line of the chart: its name (legend) and (x, y) points, x > 0. */
export interface Series {
  name: string;
  points: readonly (readonly [number, number])[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
}

const WIDTH = 640;
const HEIGHT = 400;
const MARGIN = { left: 64, right: 150, top: 40, bottom: 56 };
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

/** Escapes text for an SVG text node or attribute. */
function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A "nice" upper bound for the y axis (1, 2 or 5 times a power of ten) at or above `max`. */
function niceCeiling(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Renders `chart` as a standalone SVG document. Throws when a point has x ≤ 0 (log axis). */
export function lineChartSvg(chart: LineChart): string {
  const all = chart.series.flatMap((s) => s.points);
  if (all.some(([x]) => !(x > 0))) throw new Error('x values must be > 0 on a logarithmic axis');
  const xs = all.map(([x]) => Math.log10(x));
  const xMin = Math.floor(Math.min(...xs, 3));
  const xMax = Math.ceil(Math.max(...xs, xMin + 1));
  const yMax = niceCeiling(Math.max(...all.map(([, y]) => (Number.isFinite(y) ? y : 0))));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number): number => MARGIN.left + ((Math.log10(x) - xMin) / (xMax - xMin)) * plotW;
  const py = (y: number): number => MARGIN.top + plotH - (y / yMax) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(chart.title)}</text>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const y = (yMax * i) / 5;
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`);
    out.push(`<text x="${MARGIN.left - 6}" y="${py(y) + 4}" text-anchor="end">${+y.toPrecision(3)}</text>`);
  }
  for (let e = xMin; e <= xMax; e++) {
    const x = px(10 ** e);
    out.push(`<line x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${(10 ** e).toLocaleString('en-US')}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`);
  chart.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const points = series.points.filter(([, y]) => Number.isFinite(y));
    out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of points) {
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${colour}"/>`);
      out.push(`<text x="${(px(x) + 6).toFixed(1)}" y="${(py(y) - 6).toFixed(1)}" fill="${colour}">${y.toFixed(1)}</text>`);
    }
    const ly = MARGIN.top + 16 + i * 20;
    out.push(`<line x1="${WIDTH - MARGIN.right + 16}" x2="${WIDTH - MARGIN.right + 40}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="2"/>`);
    out.push(`<text x="${WIDTH - MARGIN.right + 46}" y="${ly}">${escapeXml(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
