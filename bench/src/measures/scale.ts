/**
 * SCALE (printed, no goal): the auth server and the resource API each as 1 and as 2
 * processes behind the real edge (docker/edge.conf.template through nginx, round robin, as
 * scripts/start runs AUTH_INSTANCES=2 API_INSTANCES=2), loaded through the edge by the same wrk:
 * introspection of P1's 500 tokens for the auth server, RS1's read with a cached token for the API.
 * Per service: a warm-up of the two-process set-up (8 s: its second processes are new), then 1, 2, 1,
 * 2 processes; the line gives the worse run of each and the throughput ratio 2 ÷ 1 of the worse
 * round. CPU counted: the service's processes and Redis (the edge's nginx and wrk share the same two
 * cores but are not counted). No goal: what the ratio predicts for more cores is written in
 * bench/PERFORMANCE.md.
 */
import { startEdge, type Edge } from '#test-support/edge.js';
import { freePort } from '#test-support/processes.js';
import type { Bench, Measure, Server, SummaryRow } from '../lib/bench.js';
import { runLoad, type LoadSpec, type RunResult } from '../lib/load.js';
import { cpuText, int, ms } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';
import { startAuthInstance } from '../lib/stack.js';
import { PEER_TOKENS } from '../peers/peer-set.js';
import { introspectLine } from './common.js';
import { LIST_ROUTE, apiGet, hitSpec, hitToken } from './resource-api.js';

/** Seconds of warm-up of the new processes (a JIT and a heap of their own; P1–P3 give peers 8). */
const WARM_TWO = 8;

const hostOf = (s: Server) => new URL(s.url).host;

async function edge(auth: Server[], api: Server[]): Promise<Edge> {
  return startEdge({
    LISTEN_PORT: String(await freePort()),
    AUTH_UPSTREAM: auth.map(hostOf).join(' '),
    API_UPSTREAM: api.map(hostOf).join(' '),
    EDGE_TRUSTED_PROXY: 'unix:',
  });
}

/** `spec` at `one` and at `two` (edges), warmed, interleaved twice: the worse runs and ratio. */
async function oneAndTwo(bench: Bench, spec: Omit<LoadSpec, 'url'>, one: Edge, two: Edge) {
  const at = (e: Edge) => ({ ...spec, url: e.url });
  // Only the two-process set-up needs warming: its second processes are new, the first ones have
  // served every measure before.
  await runLoad(at(two), WARM_TWO);
  const runs: [RunResult, RunResult][] = [];
  for (let round = 0; round < 2; round++) {
    runs.push([await runLoad(at(one), bench.durations.run), await runLoad(at(two), bench.durations.run)]);
  }
  const worse = (i: 0 | 1) => runs.map((r) => r[i]).reduce((a, b) => (b.rps < a.rps ? b : a));
  const ratio = Math.min(...runs.map(([a, b]) => b.rps / a.rps));
  return { one: worse(0), two: worse(1), ratio };
}

const figures = (r: RunResult) =>
  `${int(r.rps)} req/s  p50 ${ms(r.p50ms)} ms  p99 ${ms(r.p99ms)} ms  ${cpuText(r)}`;

export const scale: Measure = {
  id: 'SCALE',
  title: 'auth server and API as 1 and 2 processes behind the edge',
  goal: 'printed: throughput 2 ÷ 1 processes (no goal)',
  async run(bench) {
    const auth2 = await startAuthInstance(bench, 'auth-server-2');
    const [api0, api1] = [await bench.resourceApi(0), await bench.resourceApi(1)];
    const one = await edge([bench.auth], [api0]);
    const two = await edge([bench.auth, auth2], [api0, api1]);
    try {
      const token = await hitToken(bench);
      for (const e of [one, two]) {
        const read = await apiGet(e.url, token);
        if (read.status !== 200) throw new Error(`the edge answered ${read.status} to the API read`);
      }
      const pool = await introspectionPool(bench, PEER_TOKENS);
      const redis = bench.redis.pid;
      const authSpec = {
        name: 'auth through the edge',
        requestsFile: bench.requests(
          'scale-introspection',
          pool.map((t) => introspectLine(bench, t)),
        ),
        processes: { node: bench.auth.pid, node2: auth2.pid, redis },
        shown: bench.authShown(),
      };
      const hits = await hitSpec(bench, LIST_ROUTE);
      const apiSpec = {
        name: 'API through the edge',
        requestsFile: hits.requestsFile,
        processes: { api: api0.pid, api2: api1.pid, redis },
        shown: bench.authShown(),
      };
      const a = await oneAndTwo(bench, authSpec, one, two);
      const b = await oneAndTwo(bench, apiSpec, one, two);
      const errors = [a.one, a.two, b.one, b.two].reduce((n, r) => n + r.errors, 0);
      const row = (server: string, r: RunResult): SummaryRow => ({ server, ...r });
      return {
        status: errors ? 'FAIL' : 'PASS',
        ratio: `2 ÷ 1 processes: auth ${a.ratio.toFixed(2)}×, API ${b.ratio.toFixed(2)}× req/s`,
        rows: [row('auth ×1', a.one), row('auth ×2', a.two), row('API ×1', b.one), row('API ×2', b.two)],
        text: [
          `introspection: 1 process ${figures(a.one)}`,
          `2 processes ${figures(a.two)}  | 2 ÷ 1: ${a.ratio.toFixed(2)}× req/s`,
          `API read (cached token): 1 process ${figures(b.one)}`,
          `2 processes ${figures(b.two)}  | 2 ÷ 1: ${b.ratio.toFixed(2)}× req/s`,
          ...(errors ? [`${errors} ERRORS`] : []),
        ].join(`\n${' '.repeat(8)}`),
      };
    } finally {
      await Promise.all([one.stop(), two.stop(), auth2.stop()]);
    }
  },
};
