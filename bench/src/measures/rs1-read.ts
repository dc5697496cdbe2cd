/**
 * RS1: what the API costs around its answer with a cached token: the real API against bare Express 5
 * (servers/express-bare.ts) answering the same bytes by the same read, as two processes (the twins).
 */
import { join } from 'node:path';
import type { Bench, Measure, Server } from '../lib/bench.js';
import { judgeAgainstAa } from '../lib/aa.js';
import { startNode } from '../lib/stack.js';
import { API_WARM_S, LIST_ROUTE, apiGet, hitSpec, hitToken } from './resource-api.js';

const GOAL = 0.95;

/** A bare Express reference serving the list, checked byte for byte against the API's answer. */
async function expressBare(bench: Bench, name: string): Promise<Server> {
  const api = await bench.resourceApi();
  const answer = await apiGet(api.url, await hitToken(bench));
  if (answer.status !== 200 || !(JSON.parse(answer.text) as { data?: unknown[] }).data?.length) {
    throw new Error(
      `the API has nothing to list on ${LIST_ROUTE}: ${answer.status} ${answer.text.slice(0, 200)}`,
    );
  }
  const script = join(bench.root, 'bench/dist/servers/express-bare.js');
  const server = await startNode(bench.dir, name, script, { env: () => api.env, health: LIST_ROUTE });
  if ((await apiGet(server.url, 'unused')).text !== answer.text) {
    throw new Error('bare Express does not answer the same bytes as the API');
  }
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
    try {
      return await judgeAgainstAa({
        one: { ...hits, name: 'resource API', processes: { api: hits.processes.api } },
        a: { ...hits, name: 'bare Express a', url: a.url, processes: { node: a.pid } },
        b: { ...hits, name: 'bare Express b', url: b.url, processes: { node: b.pid } },
        warmSeconds: API_WARM_S,
        metric: 'rps',
        twins: 'ref',
        goal: GOAL,
        names: { one: 'resource API', twins: 'bare Express', metric: 'req/s of bare Express' },
      });
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  },
};
