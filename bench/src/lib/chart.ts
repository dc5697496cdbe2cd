/**
 * The chart of P1–P3 (bench/results/cpu-per-request.svg): a panel per measure, ours beside each peer,
 * in µs per request when the results have every server's row, else as multiples of ours.
 */
import { int } from './report.js';
import type { MeasureResult, Results } from './bench.js';

const PANEL = { width: 220, height: 260, top: 56, bottom: 44 };
const COLORS: Record<string, string> = { ours: '#2f6fb0', hydra: '#d08c2c', keycloak: '#8a5aa8' };
const TITLES: Record<string, string> = {
  P1: 'introspection',
  P2: 'refresh_token grant',
  P3: 'client registration',
};

type Bar = { server: string; value: number; label: string };

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The bars of one measure: µs when every server has a row, else multiples of ours. */
function bars(m: MeasureResult): Bar[] {
  const ratios = m.peerRatios ?? {};
  const servers = ['ours', ...Object.keys(ratios)];
  const rows = new Map((m.rows ?? []).map((r) => [r.server, r]));
  if (servers.every((s) => rows.has(s))) {
    return servers.map((s) => ({
      server: s,
      value: rows.get(s)!.cpuUs,
      label: `${int(rows.get(s)!.cpuUs)} µs`,
    }));
  }
  return servers.map((s) => {
    const value = s === 'ours' ? 1 : 1 / ratios[s]!;
    return { server: s, value, label: `${value < 10 ? value.toFixed(1) : value.toFixed(0)}×` };
  });
}

function panel(m: MeasureResult, x: number): string {
  const list = bars(m);
  const max = Math.max(...list.map((b) => b.value));
  const plot = PANEL.height - PANEL.top - PANEL.bottom;
  const slot = PANEL.width / Math.max(list.length, 1);
  const out = [
    `<text x="${x + PANEL.width / 2}" y="${PANEL.top - 30}" text-anchor="middle" font-weight="bold">${escape(`${m.id} ${TITLES[m.id] ?? ''}`)}</text>`,
    `<line x1="${x + 8}" x2="${x + PANEL.width - 8}" y1="${PANEL.height - PANEL.bottom}" y2="${PANEL.height - PANEL.bottom}" stroke="#444"/>`,
  ];
  list.forEach((b, i) => {
    const h = Math.max(1, (b.value / max) * plot);
    const bx = x + i * slot + slot * 0.2;
    const y = PANEL.height - PANEL.bottom - h;
    out.push(
      `<rect x="${bx.toFixed(1)}" y="${y.toFixed(1)}" width="${(slot * 0.6).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[b.server] ?? '#888'}"/>`,
      `<text x="${(bx + slot * 0.3).toFixed(1)}" y="${(y - 6).toFixed(1)}" text-anchor="middle">${escape(b.label)}</text>`,
      `<text x="${(bx + slot * 0.3).toFixed(1)}" y="${PANEL.height - PANEL.bottom + 18}" text-anchor="middle">${escape(b.server)}</text>`,
    );
  });
  return out.join('\n');
}

/** The SVG of P1–P3 in `results` (the measures it has, in that order). */
export function cpuChart(results: Results): string {
  const measures = ['P1', 'P2', 'P3']
    .map((id) => results.measures.find((m) => m.id === id))
    .filter((m): m is MeasureResult => Boolean(m?.peerRatios && Object.keys(m.peerRatios).length));
  const width = Math.max(1, measures.length) * PANEL.width + 20;
  const relative = measures.some((m) => bars(m)[0]?.label.endsWith('×'));
  const unit = relative ? 'as multiples of ours' : 'in µs, each server with its store';
  const notes = [
    `CPU per request ${unit}; lower is better; each panel on its own scale.`,
    results.source ?? `bench run of ${results.date}`,
  ];
  const height = PANEL.height + 16 * notes.length + 8;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...measures.map((m, i) => panel(m, 10 + i * PANEL.width)),
    ...notes.map(
      (n, i) =>
        `<text x="10" y="${PANEL.height + 8 + 16 * i}" font-size="11" fill="#444">${escape(n)}</text>`,
    ),
    '</svg>',
    '',
  ].join('\n');
}
