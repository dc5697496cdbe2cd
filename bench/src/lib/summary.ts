/**
 * The closing summary of a bench run: one Markdown table, measure × server (req/s, p50, p99, CPU per
 * request of the server and its store), the figure each goal is judged on, the goal and PASS/FAIL.
 * It is printed after the measure lines so that it can be pasted as it is into
 * bench/PERFORMANCE.md's results; the lines above it keep the detail (CPU by process, references, notes).
 */
import type { Measure, Outcome } from './bench.js';
import { int, ms } from './report.js';

const HEADER = [
  '| measure | server | req/s | p50 ms | p99 ms | CPU µs/req | judged on | goal | result |',
  '|---|---|---:|---:|---:|---:|---|---|---|',
];

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The table's lines for the measures run, in order, with their outcomes. */
export function summaryTable(results: { measure: Measure; outcome: Outcome }[]): string[] {
  const lines = [...HEADER];
  for (const { measure, outcome } of results) {
    const head = [measure.id, cell(outcome.ratio ?? ''), cell(measure.goal), outcome.status];
    const rows = outcome.rows ?? [];
    if (!rows.length) {
      lines.push(`| ${head[0]} | — | | | | | ${head[1]} | ${head[2]} | ${head[3]} |`);
      continue;
    }
    rows.forEach((r, i) => {
      const figures = `${int(r.rps)} | ${ms(r.p50ms)} | ${ms(r.p99ms)} | ${int(r.cpuUs)}`;
      const tail = i === 0 ? `${head[1]} | ${head[2]} | ${head[3]}` : ' | | ';
      lines.push(`| ${i === 0 ? head[0] : ''} | ${r.server} | ${figures} | ${tail} |`);
    });
  }
  return lines;
}
