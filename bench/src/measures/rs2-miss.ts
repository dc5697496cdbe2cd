/**
 * RS2: what a cache miss costs the API path against a cache hit, on the same read (one course by id).
 * A miss is the whole hop: the API finds nothing cached, POSTs the token to the auth server's
 * introspection endpoint, the auth server reads the token and its grant from Redis (and counts the
 * call in its rate limiter), then the API caches the answer and serves the read. The CPU counted on
 * both sides is the API, the auth server and Redis. 50 connections; a sandwich of hits and misses.
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
