/**
 * RS2: what a cache miss costs the API path against a cache hit, on the same read (one course by
 * id, `courseRoute`; resource-api.ts says why that read). RS3, the same hop at one connection over
 * the machine's floor, is rs3-hop.ts.
 *
 * A miss is the whole hop: the API's bearer check finds nothing cached, POSTs the token to the auth
 * server's introspection endpoint over its undici pool, the auth server reads the token and its
 * grant from Redis (and counts the call in its rate limiter), then the API caches the answer and
 * serves the read. Each miss run presents tokens of the introspection pool the API has never seen
 * (resource-api.ts, `missCursor`); the reference presents one cached token. The CPU counted on both
 * sides is the API, the auth server and Redis (the MongoDB read is the same on both, printed only).
 *
 * RS2 loads with 50 connections and compares CPU per request.
 */
import type { Measure } from '../lib/bench.js';
import { figuresText, sandwich, summaryOf } from '../lib/report.js';
import { afterMisses, courseRoute, hitSpec, missSpec, poolProblem } from './resource-api.js';

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
      after: (r) => afterMisses(r),
    });
    const f = s.figures;
    const pool = poolProblem();
    const ok = f.cpuRatio <= CPU_GOAL && f.errors === 0 && s.refs.every((r) => r.errors === 0) && !pool;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: [figuresText(f), pool].filter(Boolean).join('  '),
      ...summaryOf(f),
    };
  },
};
