/**
 * RS1: what the API costs around its answer once a token is known. The case is the real resource API
 * answering `GET /api/v1/courses` to one token whose introspection is cached (helmet, request id and
 * log line, bearer check, scope, validation, the MongoDB read, `toApi`, `res.json`); the reference is
 * a bare Express 5 app (servers/express-bare.ts) answering byte-identical JSON on the same route to
 * the same requests by the API's own read (same handler, same database), with nothing around it: no
 * token check, headers, log line or validation. Both are one Node process; the CPU counted is that
 * process's (the auth server is idle on hits). The MongoDB-protocol server's CPU for the read, the
 * same on both sides, is printed, not counted (see PERFORMANCE.md, "Which CPU counts").
 *
 * Judged on the median of five paired rounds (lib/report.ts, `pairedRounds`; BENCH_RS1_RUN seconds a
 * run, default 3), each side first in turn, as AS2 is and for the same reason. BENCH_RS1_AA=1 (a
 * diagnosis, not a goal) loads a second bare Express process in the API's place: what the method
 * itself puts between two processes of the same code.
 */
import { join } from 'node:path';
import { freePort } from '#test-support/processes.js';
import type { Bench, Measure, Server } from '../lib/bench.js';
import { figuresText, pairedRounds, summaryOf } from '../lib/report.js';
import { startNodeServer } from '../lib/stack.js';
import { LIST_ROUTE, apiGet, hitSpec, hitToken } from './resource-api.js';

const GOAL = 0.95;
const ROUNDS = 5;
const RUN_S = Number(process.env.BENCH_RS1_RUN ?? 3);
/**
 * Both processes start fresh here, and their CPU per read keeps falling for tens of seconds (V8 and the
 * MongoDB driver warming up, FerretDB too): 1.9 ms a read in the first seconds, 0.9 ms after 40.
 */
const WARM_S = 10;

/** The bare Express reference, serving what the API answers on LIST_ROUTE (checked byte for byte). */
function expressBare(bench: Bench, name = 'express-bare'): Promise<Server> {
  return bench.memo(name, async () => {
    const api = await bench.resourceApi();
    const answer = await apiGet(api.url, await hitToken(bench));
    const items = (JSON.parse(answer.body) as { data?: unknown[] }).data?.length ?? 0;
    if (answer.status !== 200 || items === 0) {
      throw new Error(
        `the API has nothing to list on ${LIST_ROUTE}: ${answer.status} ${answer.body.slice(0, 200)}`,
      );
    }
    const port = await freePort();
    const server = await startNodeServer(
      name,
      join(bench.root, 'bench/dist/servers/express-bare.js'),
      [String(port)],
      { ...api.env, ROUTE: LIST_ROUTE },
      bench.dir,
      `http://127.0.0.1:${port}`,
      LIST_ROUTE,
    );
    const same = await apiGet(server.url, 'unused');
    if (same.body !== answer.body) throw new Error('bare Express does not answer the same bytes as the API');
    bench.log(`RS1: both answer ${Buffer.byteLength(answer.body)} bytes of JSON (${items} courses)`);
    return server;
  });
}

export const rs1: Measure = {
  id: 'RS1',
  title: 'API read, warm introspection cache, vs bare Express 5',
  goal: `≥ ${GOAL * 100} % of bare Express throughput`,
  async run(bench) {
    const aa = process.env.BENCH_RS1_AA === '1';
    const bare = await expressBare(bench);
    const hits = await hitSpec(bench, LIST_ROUTE);
    const twin = aa ? await expressBare(bench, 'express-bare-aa') : undefined;
    const s = await pairedRounds({
      count: ROUNDS,
      seconds: RUN_S,
      warmSeconds: Math.max(bench.durations.warm, WARM_S),
      ref: { ...hits, name: 'bare Express 5', url: bare.url, processes: { node: bare.pid } },
      caseSpec: twin
        ? { ...hits, name: 'the same bare Express (A/A)', url: twin.url, processes: { node: twin.pid } }
        : { ...hits, name: 'resource API', processes: { api: hits.processes.api } },
    });
    const f = s.figures;
    const ok = f.rpsRatio >= GOAL && f.errors === 0;
    const perRound = s.rounds.map((r) => (r.case.rps / r.ref.rps).toFixed(3)).join(', ');
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: `${figuresText(f)}  | median of ${ROUNDS} paired rounds (${perRound})  | goal ≥ ${GOAL.toFixed(2)}× req/s of bare Express`,
      ...summaryOf(f),
    };
  },
};
