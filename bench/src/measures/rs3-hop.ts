/**
 * RS3: the introspection hop at one connection (miss p50 − hit p50 of one process), ours over the
 * floor's (an API introspecting at servers/bare-introspection.ts), judged against the floor's own
 * round-to-round spread so that an erratic auth server cannot widen its allowance.
 */
import { join } from 'node:path';
import type { Bench, Measure } from '../lib/bench.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { cpuText, median, mostCpu, ms, sum } from '../lib/report.js';
import { startNode } from '../lib/stack.js';
import {
  apiGet,
  courseRoute,
  hitSpec,
  hitToken,
  instanceZero,
  missSpec,
  poolProblem,
  type ApiTarget,
} from './resource-api.js';

const GOAL_MS = 0.5;
const ROUNDS = 5;
const RUN_S = 2;

const sign = (n: number) => `${n < 0 ? '−' : '+'}${ms(Math.abs(n))}`;

/** The floor: the bare introspection server and an API process in front of it, like instance 0. */
async function floorTarget(bench: Bench): Promise<ApiTarget> {
  const script = join(bench.root, 'bench/dist/servers/bare-introspection.js');
  const env = () => ({ REDIS_URL: bench.redis.url, REDIS_KEY_PREFIX: bench.authEnv.REDIS_KEY_PREFIX! });
  const introspection = await startNode(bench.dir, 'bare-introspection', script, { env, health: '/' });
  const api = await bench.startApi('resource-api-floor', introspection.url);
  const hit = await apiGet(api.url, await hitToken(bench));
  if (hit.status !== 200) throw new Error(`${api.name} refused the hit token: ${hit.status} ${hit.text}`);
  return {
    api,
    processes: { api: api.pid, node: introspection.pid, redis: bench.redis.pid },
    cursor: { next: 0 },
  };
}

interface Hop {
  hit: RunResult;
  miss: RunResult;
}

/** One hit run and one miss run at one connection on `target`. */
async function hop(bench: Bench, seconds: number, target: ApiTarget): Promise<Hop> {
  const hit = await runLoad(await hitSpec(bench, await courseRoute(bench), 1, target), seconds);
  const miss = await runLoad(await missSpec(bench, 1, target), seconds);
  target.cursor.next += miss.requests;
  return { hit, miss };
}

const hopMs = (r: Hop, pick: (x: RunResult) => number) => pick(r.miss) - pick(r.hit);

export const rs3: Measure = {
  id: 'RS3',
  title: 'introspection hop at 1 connection, ours over the floor',
  goal: `≤ +${GOAL_MS} ms p50 + the floor's round-to-round spread`,
  async run(bench) {
    const [zero, floor] = [await instanceZero(bench), await floorTarget(bench)];
    await hop(bench, bench.durations.warm, zero);
    await hop(bench, bench.durations.warm, floor);
    const ours: Hop[] = [];
    const bare: Hop[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) ours.push(await hop(bench, RUN_S, zero));
      bare.push(await hop(bench, RUN_S, floor));
      if (i % 2 === 1) ours.push(await hop(bench, RUN_S, zero));
    }
    const floorHops = bare.map((r) => hopMs(r, (x) => x.p50ms));
    const overs = ours.map((r, i) => hopMs(r, (x) => x.p50ms) - floorHops[i]!);
    const over = median(overs);
    const spread = median(floorHops.slice(1).map((h, i) => Math.abs(h - floorHops[i]!)));
    const bound = GOAL_MS + spread;
    const ourHop = (pick: (x: RunResult) => number) => sign(median(ours.map((r) => hopMs(r, pick))));
    const errors = sum([...ours, ...bare].map((r) => r.hit.errors + r.miss.errors));
    const pool = poolProblem();
    const worstMiss = mostCpu(ours.map((r) => r.miss));
    return {
      status: over <= bound && errors === 0 && !pool ? 'PASS' : 'FAIL',
      judged: `ours over the floor ${sign(over)} ms p50, bound ${sign(bound)} ms`,
      rows: [{ server: 'ours (misses)', ...worstMiss }],
      text: [
        `ours over the floor ${sign(over)} ms p50 (median of ${ROUNDS} rounds: ${overs.map(sign).join(', ')})`,
        `| our hop ${ourHop((x) => x.p50ms)} ms p50, ${ourHop((x) => x.p99ms)} ms p99; the floor's ${sign(median(floorHops))} ms p50 (rounds ${floorHops.map(sign).join(', ')})`,
        `| the floor's round-to-round spread ${ms(spread)} ms, so the bound is ${sign(bound)} ms`,
        `| our misses at ${cpuText(worstMiss)}`,
        ...(errors ? [`| ${errors} ERRORS`] : []),
        pool,
      ]
        .filter(Boolean)
        .join('  '),
    };
  },
};
