/**
 * DI (opt-in: `BENCH_ONLY=DI scripts/bench`): what the direct introspection path
 * (packages/auth-server/src/provider/direct-introspection.ts) saves. Two auth server processes
 * started alike beside the bench's main one, on the same storage, one as deployed and one with
 * `DIRECT_INTROSPECTION=false`, and RS3's floor (servers/bare-introspection.ts), are loaded with
 * AS1's pool in turns: three rounds at 50 connections (CPU per request), then three at one
 * connection, back to back and 2 ms apart (p50, RS3's shape without the API). Printed, not judged;
 * the line ends with the direct-on process's `auth_direct_introspections_total`, which must have
 * counted its requests.
 *
 * BENCH_DI_BASELINE=<path to another build's main.js> (e.g. a copy of packages/auth-server/dist made
 * before a change, kept beside it so its modules resolve) puts that build, direct path on, in the
 * second process's place, named "baseline" in the line: an A/B of a change in one run.
 */
import { resolve } from 'node:path';
import type { Measure, Server } from '../lib/bench.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { median, ms } from '../lib/report.js';
import { startAuthInstance } from '../lib/stack.js';
import { introspectionPoolFile } from './as1-introspection.js';

const ROUNDS = 3;
const RUN_S = 3;
/**
 * The loads: many connections (CPU), one connection back to back (latency), and one connection with
 * the servers idle 2 ms between requests, as behind an API that reads its database after each
 * introspection (RS3): a process woken from idle pays more per request than a busy one.
 */
const SHAPES: { connections: number; delayMs?: number }[] = [
  { connections: 50 },
  { connections: 1 },
  { connections: 1, delayMs: 2 },
];

export const di: Measure = {
  id: 'DI',
  title: 'introspection with and without the direct path (opt-in)',
  goal: 'none (printed)',
  optIn: true,
  async run(bench) {
    const file = await introspectionPoolFile(bench);
    const baseline = process.env.BENCH_DI_BASELINE;
    const offName = baseline ? 'baseline' : 'through oidc-provider';
    const [on, off] = await Promise.all([
      startAuthInstance(bench, 'auth-direct-on'),
      baseline
        ? startAuthInstance(bench, 'auth-baseline', process.execPath, {}, resolve(baseline))
        : startAuthInstance(bench, 'auth-direct-off', process.execPath, { DIRECT_INTROSPECTION: 'false' }),
    ]);
    const { introspection: floor } = await bench.bareHopApi();
    let start = 0;
    const load = async (server: Server, connections: number, seconds: number, delayMs?: number) => {
      const spec = { name: server.name, url: server.url, requestsFile: file, start, connections, delayMs };
      const r = await runLoad({ ...spec, processes: { node: server.pid, redis: bench.redis.pid } }, seconds);
      start += r.requests;
      if (r.errors) throw new Error(`${r.errors} errors on ${server.name}`);
      return r;
    };
    const parts: string[] = [];
    for (const { connections, delayMs } of SHAPES) {
      for (const s of [on, off]) await load(s, connections, RUN_S, delayMs); // warm-up
      const runs = new Map<Server, RunResult[]>([
        [on, []],
        [off, []],
        [floor, []],
      ]);
      for (let i = 0; i < ROUNDS; i++)
        for (const s of runs.keys()) runs.get(s)!.push(await load(s, connections, RUN_S, delayMs));
      const fig = (s: Server) =>
        `${median(runs.get(s)!.map((r) => r.cpuUs)).toFixed(0)} µs/req, p50 ${ms(median(runs.get(s)!.map((r) => r.p50ms)))} ms`;
      parts.push(
        `${connections} conn.${delayMs ? `, ${delayMs} ms apart` : ''}: direct ${fig(on)}; ${offName} ${fig(off)}; floor ${fig(floor)}`,
      );
    }
    const metrics = await fetch(`${on.url}/metrics`).then((r) => r.text());
    const answered = /^auth_direct_introspections_total (\d+)/m.exec(metrics)?.[1] ?? '0';
    await Promise.all([on.stop(), off.stop()]);
    const ok = Number(answered) > 0;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: `${parts.join('  | ')}  | medians of ${ROUNDS} rounds of ${RUN_S} s; ${answered} answered directly`,
    };
  },
};
