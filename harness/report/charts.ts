/**
 * Small SVG charts drawn into the report, so it stays one file that works offline. Pure:
 * data in, an SVG string out (numbers and fixed labels only; callers escape any text).
 */

export interface Series {
  readonly label: string;
  readonly color: string;
  readonly values: readonly number[];
}

const WIDTH = 640;
const HEIGHT = 200;
const PAD = { left: 40, right: 10, top: 10, bottom: 24 };

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

function axis(max: number): string {
  const ticks = [0, max / 2, max].map((value) => {
    const y = PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - value / (max || 1));
    return (
      `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y}" y2="${y}" stroke="#ddd"/>` +
      `<text x="${PAD.left - 4}" y="${y + 4}" text-anchor="end" font-size="10">${Math.round(value)}</text>`
    );
  });
  return ticks.join('');
}

function legend(series: readonly Series[]): string {
  const step = Math.min(130, (WIDTH - PAD.left) / Math.max(1, series.length));
  return series
    .map(
      (s, i) =>
        `<rect x="${PAD.left + i * step}" y="${HEIGHT - 10}" width="10" height="10" fill="${s.color}"/>` +
        `<text x="${PAD.left + 14 + i * step}" y="${HEIGHT - 1}" font-size="11">${escapeXml(s.label)}</text>`,
    )
    .join('');
}

/** Stacked bars, one per x position (runs in the trend, seconds in a load probe). */
export function stackedBars(title: string, series: readonly Series[], xLabels: readonly string[]): string {
  const n = Math.max(1, ...series.map((s) => s.values.length));
  const totals = Array.from({ length: n }, (_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const plotHeight = HEIGHT - PAD.top - PAD.bottom - 10;
  const slot = (WIDTH - PAD.left - PAD.right) / n;
  const bars: string[] = [];
  for (let i = 0; i < n; i += 1) {
    let y = PAD.top + plotHeight + 10;
    for (const s of series) {
      const h = ((s.values[i] ?? 0) / max) * plotHeight;
      y -= h;
      if (h > 0) {
        const width = Math.min(slot * 0.8, 48);
        const x = PAD.left + i * slot + (slot - width) / 2;
        const tip = escapeXml(`${xLabels[i] ?? i}: ${s.label} ${s.values[i] ?? 0}`);
        bars.push(
          `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${width.toFixed(1)}" height="${h.toFixed(1)}" ` +
            `fill="${s.color}"><title>${tip}</title></rect>`,
        );
      }
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(title)}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">` +
    `${axis(max)}${bars.join('')}${legend(series)}</svg>`
  );
}

/** Points (x, y) per series joined by lines: attempt times against the expected backoff. */
export function lines(
  title: string,
  series: ReadonlyArray<{
    label: string;
    color: string;
    points: ReadonlyArray<readonly [number, number]>;
    dashed?: boolean;
  }>,
): string {
  const all = series.flatMap((s) => s.points);
  const maxX = Math.max(1, ...all.map((p) => p[0]));
  const maxY = Math.max(1, ...all.map((p) => p[1]));
  const px = (x: number) => PAD.left + (x / maxX) * (WIDTH - PAD.left - PAD.right);
  const py = (y: number) => PAD.top + (1 - y / maxY) * (HEIGHT - PAD.top - PAD.bottom - 10);
  const paths = series.map((s) => {
    const d = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join(' ');
    const dots = s.points
      .map((p) => `<circle cx="${px(p[0]).toFixed(1)}" cy="${py(p[1]).toFixed(1)}" r="3" fill="${s.color}"/>`)
      .join('');
    const dash = s.dashed ? ' stroke-dasharray="5,4"' : '';
    return `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>${dots}`;
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(title)}" ` +
    `viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">` +
    `${axis(maxY)}${paths.join('')}${legend(series.map((s) => ({ label: s.label, color: s.color, values: [] })))}</svg>`
  );
}
