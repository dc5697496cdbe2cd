/**
 * RS2: a cache miss (a token the API has never seen, so a whole introspection hop) against a cache
 * hit on the same read, CPU of the API, the auth server and Redis per request, in a sandwich.
 */
import type { Measure } from '../lib/bench.js';
import { int, runText, sandwich, sum } from '../lib/report.js';
import { courseRoute, hitSpec, missCursor, missSpec, poolProblem } from './resource-api.js';

const CPU_GOAL = 3;

export const rs2: Measure = {
  id: 'RS2',
  title: 'API read, cache miss vs cache hit, CPU per request',
  goal: `≤ ${CPU_GOAL}× cpu/req of a hit`,
  async run(bench) {
    const s = await sandwich({
      durations: bench.durations,
      ref: await hitSpec(bench, await courseRoute(bench)),
      caseSpec: () => missSpec(bench),
      after: (r) => {
        missCursor.next += r.requests;
        missCursor.rps = r.rps;
      },
    });
    const { worst, refs } = s;
    const pool = poolProblem();
    const errors = worst.errors + sum(refs.map((r) => r.errors));
    const refCpu = sum(refs.map((r) => r.cpuUs)) / refs.length;
    const vs = `| vs cache hit (${int(refCpu)} µs/req): ${s.rpsRatio.toFixed(3)}× req/s, ${s.cpuRatio.toFixed(2)}× cpu/req`;
    return {
      status: s.cpuRatio <= CPU_GOAL && errors === 0 && !pool ? 'PASS' : 'FAIL',
      text: [runText(worst, [vs]), pool].filter(Boolean).join('  '),
      rows: [{ server: 'ours', ...worst }],
      judged: `${s.cpuRatio.toFixed(2)}× cpu/req, ${s.rpsRatio.toFixed(2)}× req/s of cache hit`,
    };
  },
};
