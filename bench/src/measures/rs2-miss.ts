/**
 * RS2 and RS3: what a cache miss costs the API path against a cache hit, on the same read (one
 * course by id, `courseRoute`; resource-api.ts says why that read).
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
 *
 * When RS3 misses its goal it measures the machine's floor the same way, in the same run: a second
 * API process introspecting at servers/bare-introspection.ts (one Redis read and an answer, on bare
 * `node:http`) instead of the auth server. What that hop adds is what any introspection server would
 * add here, so the line tells how much of the miss is ours and how much the machine's (on these two
 * vCPUs, FerretDB's ~3 ms of CPU per read leaves every process on the path running cold; see
 * PERFORMANCE.md). It runs only on a miss, to keep the bench within its ten minutes.
 */
import type { Measure } from '../lib/bench.js';
import { cpuText, figuresText, ms, sandwich } from '../lib/report.js';
import type { RunResult } from '../lib/load.js';
import type { Bench } from '../lib/bench.js';
import {
  afterMisses,
  apiGet,
  courseRoute,
  hitSpec,
  hitToken,
  missSpec,
  poolProblem,
  type ApiTarget,
} from './resource-api.js';

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
      ref: await hitSpec(bench, await courseRoute(bench)),
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

const sign = (n: number) => `${n < 0 ? '−' : '+'}${ms(Math.abs(n))}`;

/** RS3's sandwich (hits, misses, one connection) at `target`, or at instance 0 behind the auth server. */
async function hopSandwich(bench: Bench, target?: ApiTarget) {
  const s = await sandwich({
    durations: bench.durations,
    ref: await hitSpec(bench, await courseRoute(bench), 1, target),
    caseSpec: () => missSpec(bench, 1, target),
    after: (r) => afterMisses(r, false, target?.cursor),
  });
  return {
    ...s,
    p50: added(s.runs, s.refs, (r) => r.p50ms),
    p99: added(s.runs, s.refs, (r) => r.p99ms),
    errors: s.figures.errors + s.refs.reduce((n, r) => n + r.errors, 0),
  };
}

/** The same hop against the bare introspection server: what this machine adds to any hop. */
async function floorText(bench: Bench): Promise<string> {
  const { api, introspection } = await bench.bareHopApi();
  const target: ApiTarget = {
    api,
    processes: { api: api.pid, node: introspection.pid, redis: bench.redis.pid },
    cursor: { next: 0 },
  };
  const hit = await apiGet(api.url, await hitToken(bench));
  if (hit.status !== 200) throw new Error(`${api.name} refused the hit token: ${hit.status} ${hit.body}`);
  const h = await hopSandwich(bench, target);
  return (
    `| the machine's floor, same run (the API against a bare node:http introspection server, one ` +
    `Redis read): ${sign(h.p50)} ms p50, ${sign(h.p99)} ms p99, misses at ${cpuText(h.figures)}` +
    (h.errors ? ` (${h.errors} ERRORS)` : '')
  );
}

export const rs3: Measure = {
  id: 'RS3',
  title: 'introspection hop latency, 1 connection (miss − hit)',
  goal: `≤ +${P50_GOAL_MS} ms p50, ≤ +${P99_GOAL_MS} ms p99`,
  async run(bench) {
    const h = await hopSandwich(bench);
    const pool = poolProblem();
    const ok = h.p50 <= P50_GOAL_MS && h.p99 <= P99_GOAL_MS && h.errors === 0 && !pool;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: [
        figuresText(h.figures),
        `| miss − hit: ${sign(h.p50)} ms p50, ${sign(h.p99)} ms p99`,
        pool,
        ok ? '' : await floorText(bench),
        `| goal ≤ +${P50_GOAL_MS} ms p50, ≤ +${P99_GOAL_MS} ms p99`,
      ]
        .filter(Boolean)
        .join('  '),
    };
  },
};
