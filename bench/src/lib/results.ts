/**
 * The results file a full bench run writes (bench/results/results.json): every measure's status, the
 * figure it is judged on and its servers' figures. lib/chart.ts draws P1–P3 from it.
 */
import type { Measure, Outcome } from './bench.js';

export interface MeasureResult extends Omit<Outcome, 'text'> {
  id: string;
  title: string;
  goal: string;
}

export interface Results {
  /** When the run ended, e.g. "2026-11-27T06:40Z". */
  date: string;
  /** Where the figures come from when not from a run as it wrote them. */
  source?: string;
  seconds?: number;
  /** The bare node:http reference at the run's start: the machine's speed beside the figures. */
  bareHttp?: { rps: number; cpuUs: number };
  measures: MeasureResult[];
}

/** A measure's record: its outcome without the line's text, figures rounded to 0.01. */
export function measureResult(m: Measure, { text: _text, rows, ...recorded }: Outcome): MeasureResult {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    id: m.id,
    title: m.title,
    goal: m.goal,
    ...recorded,
    ...(rows && {
      rows: rows.map((r) => ({
        server: r.server,
        rps: round(r.rps),
        p50ms: round(r.p50ms),
        p99ms: round(r.p99ms),
        cpuUs: round(r.cpuUs),
      })),
    }),
  };
}
