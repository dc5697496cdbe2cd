/**
 * RS2 and RS3: what a cache miss costs the API path against a cache hit, on the same read.
 *
 * A miss is the whole hop: the API's bearer check finds nothing cached, POSTs the token to the auth
 * server's introspection endpoint over its undici pool, the auth server reads the token and its
 * grant from Redis (and counts the call in its rate limiter), then the API caches the answer and
 * serves the read. Each miss run presents tokens of the introspection pool the API has never seen
 * (resource-api.ts, `missCursor`); the reference presents one cached token. The CPU counted on both
 * sides is the API, the auth server and Redis (the MongoDB read is the same on both, printed only).
 *
 * RS2 loads with 50 connections and compares CPU per request. RS3 loads with one connection, so
 * latency is the hop's own rather than queueing, and reports how much the miss adds to p50 and p99
 * against the hit runs either side of it (the worse of the two case runs).
 */
import type { Measure } from '../lib/bench.js';
import { figuresText, ms, sandwich } from '../lib/report.js';
import type { RunResult } from '../lib/load.js';
import { afterMisses, hitSpec, missSpec, poolProblem } from './resource-api.js';

const CPU_GOAL = 3;
const P50_GOAL_MS = 1;
const P99_GOAL_MS = 5;

export const rs2: Measure = {
  id: 'RS2',
  title: 'API read, cache miss vs cache hit, CPU per request',
  goal: `≤ ${CPU_GOAL}× cpu/req`,
  async run(bench) {
    const s = await sandwich({
      durations: bench.durations,
      ref: await hitSpec(bench),
      caseSpec: () => missSpec(bench),
      after: (r) => afterMisses(r),
    });
    const f = s.figures;
    const pool = poolProblem();
    const ok = f.cpuRatio <= CPU_GOAL && f.errors === 0 && s.refs.every((r) => r.errors === 0) && !pool;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: [figuresText(f), pool, `| goal ≤ ${CPU_GOAL}× cpu/req of a hit`].filter(Boolean).join('  '),
    };
  },
};

/** Case minus the mean of the reference runs either side of it, the worse of the case runs. */
function added(runs: RunResult[], refs: RunResult[], pick: (r: RunResult) => number): number {
  return Math.max(...runs.map((r, i) => pick(r) - (pick(refs[i]!) + pick(refs[i + 1]!)) / 2));
}

export const rs3: Measure = {
  id: 'RS3',
  title: 'introspection hop latency, 1 connection (miss − hit)',
  goal: `≤ +${P50_GOAL_MS} ms p50, ≤ +${P99_GOAL_MS} ms p99`,
  async run(bench) {
    const s = await sandwich({
      durations: bench.durations,
      ref: await hitSpec(bench, 1),
      caseSpec: () => missSpec(bench, 1),
      after: (r) => afterMisses(r, false),
    });
    const f = s.figures;
    const p50 = added(s.runs, s.refs, (r) => r.p50ms);
    const p99 = added(s.runs, s.refs, (r) => r.p99ms);
    const pool = poolProblem();
    const ok =
      p50 <= P50_GOAL_MS &&
      p99 <= P99_GOAL_MS &&
      f.errors === 0 &&
      s.refs.every((r) => r.errors === 0) &&
      !pool;
    const sign = (n: number) => `${n < 0 ? '−' : '+'}${ms(Math.abs(n))}`;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: [
        figuresText(f),
        `| miss − hit: ${sign(p50)} ms p50, ${sign(p99)} ms p99`,
        pool,
        `| goal ≤ +${P50_GOAL_MS} ms p50, ≤ +${P99_GOAL_MS} ms p99`,
      ]
        .filter(Boolean)
        .join('  '),
    };
  },
};
