/**
 * The resource API's measures: PLACEHOLDERS until packages/resource-api lands (issue 3). Each prints
 * a TODO line and does not gate the run. To fill one in, replace its `run` with a real measure like
 * the auth server's (see as1-introspection.ts): start the resource API as a real process next to the
 * auth server (a `resourceApi()` starter on the Bench, like `authMemory()`, with API_PORT, BASE_URL,
 * AUTH_INTERNAL_URL = bench.auth.url, INTROSPECTION_CLIENT_ID/SECRET = bench.introspector, and its
 * own REDIS_URL/MONGODB_URI = the bench's), use tokens from lib/seed.ts (introspectionPool or
 * flowTokens with a `resource` if needed), and count CPU over every process on the path:
 * { api: <pid>, node: bench.auth.pid, redis: bench.redis.pid, mongo: bench.mongo?.pid }.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench, Measure, Outcome } from '../lib/bench.js';

function placeholder(bench: Bench, how: string): Outcome {
  const built = existsSync(join(bench.root, 'packages/resource-api/dist/main.js'));
  return {
    status: 'TODO',
    text: `not measured yet (${built ? 'resource API is built' : 'resource API not built'}): ${how}`,
  };
}

/** RS1: a warm-cache API read against bare Express answering the same JSON on the same route. */
export const rs1: Measure = {
  id: 'RS1',
  title: 'API read, warm introspection cache, vs bare Express 5',
  goal: '≥ 95 % of bare Express throughput',
  run: async (bench) =>
    placeholder(
      bench,
      'GET /api/v1/<area> with one token (warm cache) vs servers/express-bare.js serving the same JSON on the same route; rpsRatio ≥ 0.95',
    ),
};

/** RS2: CPU of a cache miss (API + auth server + Redis) against a cache hit. */
export const rs2: Measure = {
  id: 'RS2',
  title: 'API read, cache miss vs cache hit, CPU per request',
  goal: '≤ 3× cpu/req',
  run: async (bench) =>
    placeholder(
      bench,
      'case: the introspection pool (every request a new token: a miss), ref: one token (hits); CPU over api+auth+redis; cpuRatio ≤ 3',
    ),
};

/** RS3: latency the introspection hop adds, one connection. */
export const rs3: Measure = {
  id: 'RS3',
  title: 'introspection hop latency, 1 connection (miss − hit)',
  goal: '≤ +1 ms p50, ≤ +5 ms p99',
  run: async (bench) =>
    placeholder(
      bench,
      'wrk -c1 (LoadSpec.connections = 1) for the miss and hit cases above; p50/p99 differences',
    ),
};

/** RV: revocation reaches every API instance before the next request. */
export const rv: Measure = {
  id: 'RV',
  title: 'revoked token refused at once on every API instance',
  goal: 'refused',
  run: async (bench) =>
    placeholder(
      bench,
      'two API processes, warm both caches with one token, POST /api/oauth/revoke, then the next request on each must be 401',
    ),
};

/** MEM for the resource API. */
export const memApi: Measure = {
  id: 'MEM-API',
  title: 'resource API resident memory after 100k distinct tokens',
  goal: '≤ 200 MB, bounded by the cache size',
  run: async (bench) =>
    placeholder(bench, 'GET with each token of the introspection pool once, then rssBytes(api pid) ≤ 200 MB'),
};
