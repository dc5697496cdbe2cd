/**
 * MET: what the metrics cost, on RS1's load. The same API read as RS1 (one cached token,
 * `GET /api/v1/courses`) on three API processes of the same build, started the same way, side by
 * side: two as deployed (metrics on) and one with `METRICS=false` (no registry, no default metrics, no
 * histogram on the request path). CPU counted: the loaded API process alone.
 *
 * "Within noise" is measured, not assumed. Two identically configured processes differ by several per
 * cent on this machine (an A/A run of this measure, both sides with metrics, gave +6.3 % for one over
 * the other: which process, not what it runs), so the noise is that difference, taken in the same run:
 * - each round loads each of the three (BENCH_MET_RUN seconds each, default 3), starting with another
 *   one each round, after a warm-up of all three; five rounds;
 * - the cost is the median over the rounds of (mean CPU per request of the two with metrics ÷ the one
 *   without) − 1;
 * - the noise is the median over the rounds of |one with metrics ÷ the other − 1|.
 * PASS when the cost is no larger than the noise. Medians, so one disturbed run does not decide.
 */
import type { Measure } from '../lib/bench.js';
import { runLoad, type LoadSpec, type RunResult } from '../lib/load.js';
import { int, median } from '../lib/report.js';
import { LIST_ROUTE, hitSpec } from './resource-api.js';

const ROUNDS = 5;
const RUN_S = Number(process.env.BENCH_MET_RUN ?? 3);

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${(Math.abs(x) * 100).toFixed(1)} %`;

export const met: Measure = {
  id: 'MET',
  title: 'metrics cost: API read with metrics on vs METRICS=false',
  goal: 'cost within the same run’s noise',
  async run(bench) {
    const hits = await hitSpec(bench, LIST_ROUTE);
    const started = await Promise.all([
      bench.resourceApiWith('resource-api-metrics-a', {}),
      bench.resourceApiWith('resource-api-metrics-b', {}),
      bench.resourceApiWith('resource-api-no-metrics', { METRICS: 'false' }),
    ]);
    const [a, b, off] = started.map((api): LoadSpec => ({
      ...hits,
      name: api.name,
      url: api.url,
      processes: { api: api.pid },
    })) as [LoadSpec, LoadSpec, LoadSpec];
    for (const spec of [off, a, b]) await runLoad(spec, bench.durations.warm);
    const rounds: { off: RunResult; a: RunResult; b: RunResult }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Each round starts with another of the three, so no process always runs first or last.
      const order = (['off', 'a', 'b'] as const).map((_, k, keys) => keys[(i + k) % 3]!);
      const specs = { off, a, b };
      const round: Partial<Record<'off' | 'a' | 'b', RunResult>> = {};
      for (const key of order) round[key] = await runLoad(specs[key], RUN_S);
      rounds.push(round as { off: RunResult; a: RunResult; b: RunResult });
    }
    const cost = median(rounds.map((r) => (r.a.cpuUs + r.b.cpuUs) / 2 / r.off.cpuUs - 1));
    const noise = median(rounds.map((r) => Math.abs(r.a.cpuUs / r.b.cpuUs - 1)));
    const all = rounds.flatMap((r) => [r.off, r.a, r.b]);
    const errors = all.reduce((n, r) => n + r.errors, 0);
    const ok = cost <= noise && errors === 0;
    const on = rounds.flatMap((r) => [r.a, r.b]);
    const worst = on.reduce((x, y) => (y.cpuUs > x.cpuUs ? y : x));
    return {
      status: ok ? 'PASS' : 'FAIL',
      ratio: `metrics ${pct(cost)} cpu/req, noise ±${(noise * 100).toFixed(1)} %`,
      rows: [{ server: 'ours', rps: worst.rps, p50ms: worst.p50ms, p99ms: worst.p99ms, cpuUs: worst.cpuUs }],
      text: [
        `metrics on ${int(median(on.map((r) => r.cpuUs)))} µs/req, METRICS=false ${int(median(rounds.map((r) => r.off.cpuUs)))} µs/req (medians, ${ROUNDS} interleaved rounds)`,
        `| cost ${pct(cost)} cpu/req; noise (two processes both with metrics) ±${(noise * 100).toFixed(1)} %`,
        ...(errors ? [`| ${errors} ERRORS`] : []),
        '| goal: cost ≤ noise',
      ].join('  '),
    };
  },
};
