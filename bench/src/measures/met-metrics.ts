/**
 * MET: what the metrics cost on RS1's load: an API with `METRICS=false` against two as deployed (the
 * twins). CPU counted: the loaded API process alone.
 */
import type { Measure } from '../lib/bench.js';
import { judgeAgainstAa } from '../lib/aa.js';
import { API_WARM_S, LIST_ROUTE, hitSpec } from './resource-api.js';

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
    const [off, a, b] = apis.map((api) => ({
      ...hits,
      name: api.name,
      url: api.url,
      processes: { api: api.pid },
    }));
    try {
      return await judgeAgainstAa({
        one: off!,
        a: a!,
        b: b!,
        warmSeconds: API_WARM_S,
        metric: 'cpuUs',
        twins: 'case',
        goal: 1,
        names: { one: 'METRICS=false', twins: 'metrics on', metric: 'cpu/req of METRICS=false' },
      });
    } finally {
      await Promise.all(apis.map((api) => api.stop()));
    }
  },
};
