/**
 * RS1: what the API costs around its answer once a token is known. The case is the real resource API
 * answering `GET /api/v1/courses` to one token whose introspection is cached (helmet, request id and
 * log line, bearer check, scope, validation, the MongoDB read, `toApi`, `res.json`); the reference is
 * bare Express 5 (servers/express-bare.ts) answering byte-identical JSON on the same route by the
 * API's own read (same handler, same database) with nothing around it, as two processes: the A/A
 * twins. Each is one Node process; the CPU counted is that process's (the auth server is idle on
 * hits). The MongoDB-protocol server's CPU for the read, the same on every side, is printed only.
 * Judged on the median of five rounds against the twins' spread (lib/aa.ts, `judgeAgainstAa`).
 */
import { join } from 'node:path';
import { freePort } from '#test-support/processes.js';
import type { Bench, Measure, Server } from '../lib/bench.js';
import { aaOutcome, judgeAgainstAa, twinRounds } from '../lib/aa.js';
import { startNodeServer } from '../lib/stack.js';
import { API_WARM_S, LIST_ROUTE, apiGet, hitSpec, hitToken } from './resource-api.js';

const GOAL = 0.95;
const ROUNDS = 5;
const RUN_S = 3;

/** A bare Express reference, serving what the API answers on LIST_ROUTE (checked byte for byte). */
async function expressBare(bench: Bench, name: string): Promise<Server> {
  const api = await bench.resourceApi();
  const answer = await apiGet(api.url, await hitToken(bench));
  const items = (JSON.parse(answer.body) as { data?: unknown[] }).data?.length ?? 0;
  if (answer.status !== 200 || items === 0) {
    throw new Error(
      `the API has nothing to list on ${LIST_ROUTE}: ${answer.status} ${answer.body.slice(0, 200)}`,
    );
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const script = join(bench.root, 'bench/dist/servers/express-bare.js');
  const env = { ...api.env, ROUTE: LIST_ROUTE };
  const server = await startNodeServer(name, script, [String(port)], env, bench.dir, url, LIST_ROUTE);
  const same = await apiGet(server.url, 'unused');
  if (same.body !== answer.body) throw new Error('bare Express does not answer the same bytes as the API');
  return server;
}

export const rs1: Measure = {
  id: 'RS1',
  title: 'API read, warm introspection cache, vs bare Express 5',
  goal: `≥ ${GOAL}× req/s of bare Express − the A/A spread`,
  async run(bench) {
    const hits = await hitSpec(bench, LIST_ROUTE);
    const [a, b] = await Promise.all([
      expressBare(bench, 'express-bare-a'),
      expressBare(bench, 'express-bare-b'),
    ]);
    const rounds = await twinRounds({
      one: { ...hits, name: 'resource API', processes: { api: hits.processes.api } },
      a: { ...hits, name: 'bare Express a', url: a.url, processes: { node: a.pid } },
      b: { ...hits, name: 'bare Express b', url: b.url, processes: { node: b.pid } },
      count: ROUNDS,
      seconds: RUN_S,
      warmSeconds: API_WARM_S,
    });
    await Promise.all([a.stop(), b.stop()]);
    const j = judgeAgainstAa(rounds, (r) => r.rps, 'ref', GOAL);
    return aaOutcome(rounds, j, {
      one: 'resource API',
      twins: 'bare Express',
      metric: 'req/s of bare Express',
    });
  },
};
