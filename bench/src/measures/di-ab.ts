/**
 * DI (run only when asked: BENCH_ONLY=DI): what DIRECT_INTROSPECTION buys, against the A/A spread of
 * the same run. Four fresh auth servers (off a, off b, on a, on b), an API in front of each; P1's load
 * (50 connections, the 500 tokens of P1, CPU per request of the auth server and Redis) and RS3's hop
 * (miss p50 − hit p50 at one connection) on each, interleaved off, on, off, on, each round starting
 * one further along. Judges nothing: it prints medians and spreads (BENCH_DI_ROUNDS rounds, default 10).
 */
import { join } from 'node:path';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import type { Measure, Server } from '../lib/bench.js';
import { runLoad, type LoadSpec, type RunResult } from '../lib/load.js';
import { median } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';
import { startNode } from '../lib/stack.js';
import { authSpec, introspect, introspectLine } from './auth-load.js';
import { apiGet, courseRoute, hitSpec, hitToken, missSpec, type ApiTarget } from './resource-api.js';

const ROUNDS = Number(process.env.BENCH_DI_ROUNDS ?? 10);
const P1_TOKENS = 500;
const P1_WARM_S = 12;
const P1_RUN_S = 3;
const RS3_RUN_S = 2;

const SIDES = [
  { name: 'off a', direct: false },
  { name: 'on a', direct: true },
  { name: 'off b', direct: false },
  { name: 'on b', direct: true },
] as const;

const f = (n: number, d = 1) => n.toFixed(d);
const pct = (n: number) => `${(n * 100).toFixed(1)} %`;

/** Rounds × 4 sides of `run`, in the order off, on, off, on, each round starting one further along. */
async function interleaved<T>(run: (side: number) => Promise<T>): Promise<T[][]> {
  const rounds: T[][] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round: T[] = [];
    for (let k = 0; k < 4; k++) round[(i + k) % 4] = await run((i + k) % 4);
    rounds.push(round);
  }
  return rounds;
}

/** on ÷ off per round (means of the two processes), and the A/A of each side: |a ÷ b − 1|. */
function summary(label: string, rounds: number[][], unit: string, digits: number, asDiff: boolean): string {
  const off = rounds.map((r) => (r[0]! + r[2]!) / 2);
  const on = rounds.map((r) => (r[1]! + r[3]!) / 2);
  const effect = rounds.map((_, i) => (asDiff ? on[i]! - off[i]! : on[i]! / off[i]! - 1));
  const aaOff = rounds.map((r) => (asDiff ? Math.abs(r[0]! - r[2]!) : Math.abs(r[0]! / r[2]! - 1)));
  const aaOn = rounds.map((r) => (asDiff ? Math.abs(r[1]! - r[3]!) : Math.abs(r[1]! / r[3]! - 1)));
  const show = (xs: number[]) => (asDiff ? xs.map((x) => f(x, digits)).join(', ') : xs.map(pct).join(', '));
  const m = (xs: number[]) => (asDiff ? `${f(median(xs), digits)} ${unit}` : pct(median(xs)));
  return [
    `${label}: off ${f(median(off), digits)} ${unit}, on ${f(median(on), digits)} ${unit} (medians over ${ROUNDS} rounds)`,
    `  on − off per round ${asDiff ? '' : '(÷ off) '}: ${show(effect)}; median ${m(effect)}`,
    `  A/A off a vs off b: ${show(aaOff)}; median ${m(aaOff)}, max ${asDiff ? f(Math.max(...aaOff), digits) : pct(Math.max(...aaOff))}`,
    `  A/A on a vs on b:   ${show(aaOn)}; median ${m(aaOn)}, max ${asDiff ? f(Math.max(...aaOn), digits) : pct(Math.max(...aaOn))}`,
    `  per process, every round (off a, on a, off b, on b): ${rounds.map((r) => r.map((x) => f(x, digits)).join('/')).join('  ')}`,
  ].join('\n');
}

export const di: Measure = {
  id: 'DI',
  title: 'DIRECT_INTROSPECTION off vs on, A/A of each',
  goal: 'none (a decision)',
  async run(bench) {
    const servers: Server[] = await Promise.all(
      SIDES.map((s) =>
        startNode(
          bench.dir,
          `auth-di-${s.name.replace(' ', '-')}`,
          join(bench.root, 'packages/auth-server/dist/main.js'),
          {
            flags: [...AUTH_SERVER_NODE_FLAGS],
            env: (port) => ({
              ...bench.authEnv,
              AUTH_PORT: String(port),
              DIRECT_INTROSPECTION: String(s.direct),
            }),
          },
        ),
      ),
    );
    const tokens = await introspectionPool(bench, P1_TOKENS);
    const answers = await Promise.all(servers.map((s) => introspect(bench, s.url, tokens[0]!)));
    const shapes = answers.map((x) => JSON.stringify(x));
    if (answers[0]!.active !== true || new Set(shapes).size !== 1)
      throw new Error(`the servers answer differently: ${shapes.join(' / ')}`);
    const file = bench.requests(
      'di-p1',
      tokens.map((t) => introspectLine(bench, t)),
    );
    const p1Specs: LoadSpec[] = servers.map((s, i) =>
      authSpec(bench, `P1 ${SIDES[i]!.name}`, file, {
        url: s.url,
        processes: { node: s.pid, redis: bench.redis.pid },
      }),
    );
    bench.log('DI: P1 warm-up of the four servers at once');
    await Promise.all(p1Specs.map((s) => runLoad(s, P1_WARM_S)));
    const p1 = await interleaved((i) => runLoad(p1Specs[i]!, P1_RUN_S));

    bench.log('DI: RS3, an API in front of each server');
    const route = await courseRoute(bench);
    const targets: ApiTarget[] = [];
    for (const [i, s] of servers.entries()) {
      const api = await bench.startApi(`resource-api-di-${i}`, s.url);
      const hit = await apiGet(api.url, await hitToken(bench), route);
      if (hit.status !== 200) throw new Error(`${api.name} refused the hit token: ${hit.status}`);
      targets.push({
        api,
        processes: { api: api.pid, node: s.pid, redis: bench.redis.pid },
        cursor: { next: 0 },
      });
    }
    const hop = async (i: number, seconds: number) => {
      const t = targets[i]!;
      const hitRun = await runLoad(await hitSpec(bench, route, 1, t), seconds);
      const missRun = await runLoad(await missSpec(bench, 1, t), seconds);
      t.cursor.next += missRun.requests;
      return { hit: hitRun, miss: missRun };
    };
    for (let i = 0; i < 4; i++) await hop(i, bench.durations.warm);
    const rs3 = await interleaved((i) => hop(i, RS3_RUN_S));

    await Promise.all([...targets.map((t) => t.api.stop()), ...servers.map((s) => s.stop())]);
    const errors = [...p1.flat(), ...rs3.flat().flatMap((h) => [h.hit, h.miss])].reduce(
      (n, r: RunResult) => n + r.errors,
      0,
    );
    const text = [
      summary(
        'P1 cpu/req (auth + Redis)',
        p1.map((r) => r.map((x) => x.cpuUs)),
        'µs',
        0,
        false,
      ),
      summary(
        'P1 req/s',
        p1.map((r) => r.map((x) => x.rps)),
        'req/s',
        0,
        false,
      ),
      summary(
        'RS3 hop p50',
        rs3.map((r) => r.map((h) => h.miss.p50ms - h.hit.p50ms)),
        'ms',
        3,
        true,
      ),
      summary(
        'RS3 miss cpu/req (API + auth + Redis)',
        rs3.map((r) => r.map((h) => h.miss.cpuUs)),
        'µs',
        0,
        false,
      ),
      `errors: ${errors}`,
    ].join('\n');
    return { status: errors ? 'FAIL' : 'PASS', text: `\n${text}` };
  },
};
