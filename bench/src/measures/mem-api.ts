/**
 * MEM-API: resident memory of the resource API once it has introspected every token of the pool
 * (100,000 distinct tokens, each presented once), after a full garbage collection, as MEM-AS does for
 * the auth server. What the API keeps per token is its introspection cache, an LRU bounded by
 * INTROSPECTION_CACHE_SIZE (and the revoked-hash and negative caches, bounded likewise), so memory
 * must stay flat once the cache is full; the line prints that setting.
 *
 * RS2's and RS3's misses walked the same pool with the same cursor; this measure presents the rest as
 * reads of a course id that cannot exist: the API checks the token in full (introspection, then its
 * caches) and requires the scope, then answers 404 at the id's validation, before any database read.
 * Every answer must be that 404 (a 401 would be a token refused, a 503 a failed introspection).
 */
import { loadConfig } from '@school/resource-api/dist/config.js';
import type { Measure } from '../lib/bench.js';
import { int } from '../lib/report.js';
import { POOL_SIZE, memoryAfterFullGc, presentRestOfPool } from './pool-memory.js';
import { LIST_ROUTE, apiLine, apiProcesses, missCursor } from './resource-api.js';

const LIMIT_MB = 200;
/** A course id that is not one (not an ObjectId): the API's 404 after the token check. */
const NO_READ_ROUTE = `${LIST_ROUTE}/not-a-course-id`;

export const memApi: Measure = {
  id: 'MEM-API',
  title: 'resource API resident memory after 100k distinct tokens',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    const api = await bench.resourceApi();
    const cacheSize = loadConfig(api.env).INTROSPECTION_CACHE_SIZE;
    await presentRestOfPool(bench, {
      name: 'MEM-API',
      url: api.url,
      line: (token) => apiLine(token, NO_READ_ROUTE),
      expectStatus: 404,
      cursor: missCursor,
      rateIfUnknown: 1000,
      rateFloor: 100,
      processes: apiProcesses(bench, api),
      attempts: 10,
    });
    const memory = await memoryAfterFullGc(api.pid, api.inspectPort);
    return {
      status: memory.mb <= LIMIT_MB ? 'PASS' : 'FAIL',
      judged: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
      text: `${memory.text}  | after ${int(POOL_SIZE)} distinct tokens, INTROSPECTION_CACHE_SIZE ${int(cacheSize)}`,
    };
  },
};
