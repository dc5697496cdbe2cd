/**
 * MET: what the metrics cost, on RS1's load (one cached token, `GET /api/v1/courses`). Three API
 * processes of the same build, started alike for MET: one with `METRICS=false` (no registry, no
 * default metrics, no histogram on the request path) and two as deployed, metrics on (the A/A twins).
 * CPU counted: the loaded API process alone. Judged as AS2 is, with a goal of 1×: the twins' CPU per
 * request over the one without metrics may exceed 1 by no more than the twins differ by
 * (lib/aa.ts, `judgeAgainstAa`).
 */
import type { Measure } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import { aaOutcome, judgeAgainstAa, twinRounds } from '../lib/aa.js';
import { API_WARM_S, LIST_ROUTE, hitSpec } from './resource-api.js';

const ROUNDS = 5;
const RUN_S = 3;

export const met: Measure = {
  id: 'MET',
  title: 'metrics cost: API read with metrics on vs METRICS=false',
  goal: '≤ 1× cpu/req of METRICS=false + the A/A spread',
  async run(bench) {
    const hits = await hitSpec(bench, LIST_ROUTE);
    const apis = await Promise.all([
      bench.startApi('resource-api-no-metrics', undefined, { METRICS: 'false' }),
      bench.startApi('resource-api-metrics-a'),
      bench.startApi('resource-api-metrics-b'),
    ]);
    const [off, a, b] = apis.map((api): LoadSpec => ({
      ...hits,
      name: api.name,
      url: api.url,
      processes: { api: api.pid },
    })) as [LoadSpec, LoadSpec, LoadSpec];
    const rounds = await twinRounds({
      one: off,
      a,
      b,
      count: ROUNDS,
      seconds: RUN_S,
      warmSeconds: API_WARM_S,
    });
    await Promise.all(apis.map((api) => api.stop()));
    const j = judgeAgainstAa(rounds, (r) => r.cpuUs, 'case', 1);
    return aaOutcome(rounds, j, {
      one: 'METRICS=false',
      twins: 'metrics on',
      metric: 'cpu/req of METRICS=false',
    });
  },
};
