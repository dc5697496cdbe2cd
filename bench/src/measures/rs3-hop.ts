/**
 * RS3: the introspection hop at one connection, ours over the machine's
 * floor in the same run.
 *
 * Two API processes read the same course (`courseRoute`) at one connection: instance 0 introspects
 * at our auth server, the floor's instance at servers/bare-introspection.ts (bare `node:http`, one
 * Redis read, the token's claims as the answer: what any introspection server costs at least on this
 * machine). A round loads, on each, cache hits (one cached token) then misses (tokens it has never
 * seen, so every request is a hop); the hop is the miss p50 minus the hit p50 of the same process, and
 * ours over the floor is our hop minus the floor's hop. Five rounds, interleaved, each side first in
 * turn; BENCH_RS3_RUN seconds per run (default 3); the goal is on the median of the five, and the
 * line prints every round's figure.
 *
 * Why over the floor: on these two shared vCPUs the hop alone costs +1.2 to +2.1 ms p50 whatever
 * answers the introspection (PERFORMANCE.md, "RS3's floor"), so an absolute goal measured the
 * machine's day; the difference measures what our auth server adds.
 */
import type { Bench, Measure } from '../lib/bench.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { cpuText, median, ms } from '../lib/report.js';
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

const GOAL_MS = 0.5;
const ROUNDS = 5;
const RUN_S = Number(process.env.BENCH_RS3_RUN ?? 3);

const sign = (n: number) => `${n < 0 ? '−' : '+'}${ms(Math.abs(n))}`;

/** The floor's API process and what its path counts. */
function floorTarget(bench: Bench): Promise<ApiTarget> {
  return bench.memo('rs3-floor-target', async () => {
    const { api, introspection } = await bench.bareHopApi();
    const hit = await apiGet(api.url, await hitToken(bench));
    if (hit.status !== 200) throw new Error(`${api.name} refused the hit token: ${hit.status} ${hit.body}`);
    return {
      api,
      processes: { api: api.pid, node: introspection.pid, redis: bench.redis.pid },
      cursor: { next: 0 },
    };
  });
}

/** One hit run and one miss run at one connection on `target` (instance 0 when undefined). */
async function hop(
  bench: Bench,
  seconds: number,
  target?: ApiTarget,
): Promise<{ hit: RunResult; miss: RunResult }> {
  const route = await courseRoute(bench);
  const hit = await runLoad(await hitSpec(bench, route, 1, target), seconds);
  const miss = await runLoad(await missSpec(bench, 1, target), seconds);
  afterMisses(miss, false, target?.cursor);
  return { hit, miss };
}

export const rs3: Measure = {
  id: 'RS3',
  title: 'introspection hop at 1 connection, ours over the floor',
  goal: `≤ +${GOAL_MS} ms p50, median of ${ROUNDS} rounds`,
  async run(bench) {
    const floor = await floorTarget(bench);
    await hop(bench, bench.durations.warm);
    await hop(bench, bench.durations.warm, floor);
    const ours: { hit: RunResult; miss: RunResult }[] = [];
    const bare: { hit: RunResult; miss: RunResult }[] = [];
    // Each side first as often (as lib/report.ts's paired rounds): the machine drifts within a
    // round, and a fixed order would charge the drift to one side.
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) ours.push(await hop(bench, RUN_S));
      bare.push(await hop(bench, RUN_S, floor));
      if (i % 2 === 1) ours.push(await hop(bench, RUN_S));
    }
    const hopOf = (r: { hit: RunResult; miss: RunResult }, pick: (x: RunResult) => number) =>
      pick(r.miss) - pick(r.hit);
    const overs = ours.map((r, i) => hopOf(r, (x) => x.p50ms) - hopOf(bare[i]!, (x) => x.p50ms));
    const over = median(overs);
    const oursP50 = median(ours.map((r) => hopOf(r, (x) => x.p50ms)));
    const oursP99 = median(ours.map((r) => hopOf(r, (x) => x.p99ms)));
    const floorP50 = median(bare.map((r) => hopOf(r, (x) => x.p50ms)));
    const errors = [...ours, ...bare].reduce((n, r) => n + r.hit.errors + r.miss.errors, 0);
    const pool = poolProblem();
    const ok = over <= GOAL_MS && errors === 0 && !pool;
    const worstMiss = ours.map((r) => r.miss).reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));
    return {
      status: ok ? 'PASS' : 'FAIL',
      ratio: `ours over the floor ${sign(over)} ms p50 (our hop ${sign(oursP50)}, the floor's ${sign(floorP50)})`,
      text: [
        `ours over the floor ${sign(over)} ms p50 (median of ${ROUNDS} rounds: ${overs.map(sign).join(', ')})`,
        `| our hop ${sign(oursP50)} ms p50, ${sign(oursP99)} ms p99; the floor's ${sign(floorP50)} ms p50 (the API against a bare node:http introspection server, one Redis read)`,
        `| our misses at ${cpuText(worstMiss)}`,
        ...(errors ? [`| ${errors} ERRORS`] : []),
        pool,
        `| goal ≤ +${GOAL_MS} ms p50 over the floor`,
      ]
        .filter(Boolean)
        .join('  '),
    };
  },
};
