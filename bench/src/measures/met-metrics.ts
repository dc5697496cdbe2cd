/**
 * MET (issue 18): what the metrics cost, on RS1's load. The same API read as RS1 (one cached token,
 * `GET /api/v1/courses`) on two API processes of the same build, interleaved in one sandwich: the
 * reference with `METRICS=false` (no registry, no default metrics, no histogram on the request path),
 * the case as deployed (metrics on). CPU counted: the API process alone on each side.
 *
 * "Within noise" is measured here, not assumed: the noise is the largest difference between two runs
 * of the same server in this measure (the reference's three runs, the case's two), and the metrics'
 * cost is the case's CPU per request over the reference's (the worse of its two runs against the
 * references either side). PASS when that cost is no larger than the noise.
 */
import type { Measure } from '../lib/bench.js';
import type { RunResult } from '../lib/load.js';
import { sandwich } from '../lib/report.js';
import { LIST_ROUTE, hitSpec } from './resource-api.js';

/** Largest relative difference between two runs of one server, by CPU per request. */
function spread(runs: RunResult[]): number {
  const cpu = runs.map((r) => r.cpuUs);
  return Math.max(...cpu) / Math.min(...cpu) - 1;
}

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${(Math.abs(x) * 100).toFixed(1)} %`;

export const met: Measure = {
  id: 'MET',
  title: 'metrics cost: API read with metrics on vs METRICS=false',
  goal: 'cost within the same run’s noise',
  async run(bench) {
    const hits = await hitSpec(bench, LIST_ROUTE);
    const off = await bench.resourceApiWithoutMetrics();
    const s = await sandwich({
      durations: bench.durations,
      fullLengthRef: true,
      ref: { ...hits, name: 'API, METRICS=false', url: off.url, processes: { api: off.pid } },
      caseSpec: () => ({ ...hits, name: 'API, metrics on', processes: { api: hits.processes.api! } }),
    });
    const f = s.figures;
    const cost = f.cpuRatio - 1;
    const noise = Math.max(spread(s.refs), spread(s.runs));
    const errors = f.errors + s.refs.reduce((n, r) => n + r.errors, 0);
    const ok = cost <= noise && errors === 0;
    return {
      status: ok ? 'PASS' : 'FAIL',
      ratio: `metrics ${pct(cost)} cpu/req, noise ±${(noise * 100).toFixed(1)} %`,
      rows: [{ server: 'ours', rps: f.rps, p50ms: f.p50ms, p99ms: f.p99ms, cpuUs: f.cpuUs }],
      text: [
        `metrics on: ${Math.round(f.rps).toLocaleString('en-US')} req/s, ${Math.round(f.cpuUs).toLocaleString('en-US')} µs/req`,
        `| METRICS=false: ${Math.round(f.refCpuUs).toLocaleString('en-US')} µs/req`,
        `| cost ${pct(cost)} cpu/req (${f.rpsRatio.toFixed(3)}× req/s); noise of the same server between runs ±${(noise * 100).toFixed(1)} %`,
        ...(errors ? [`| ${errors} ERRORS`] : []),
        '| goal: cost ≤ noise',
      ].join('  '),
    };
  },
};
