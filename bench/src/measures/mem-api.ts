/**
 * MEM-API: resident memory of the resource API once it has introspected every token of the
 * introspection pool (100,000 distinct tokens, each presented once), measured after a full garbage
 * collection over the inspector (lib/inspector.ts), as MEM-AS does for the auth server. What the API
 * keeps per token is its introspection cache, an LRU bounded by INTROSPECTION_CACHE_SIZE (and the
 * revoked-hash and negative caches, bounded likewise), so memory must stay flat once the cache is
 * full however many tokens pass through; the line prints that setting.
 *
 * The misses of RS2 and RS3 count (they walked the same pool with the same cursor, reading the same
 * course); this measure presents the rest, in runs sized from the last miss rate, until the cursor
 * has covered the pool.
 *
 * It presents them as reads of a course id that cannot exist (`/api/v1/courses/not-a-course-id`):
 * the API checks the token in full (introspection, then its caches) and requires the scope, then
 * answers 404 at the id's validation, before any database read. Every answer must be that 404 (a
 * 401 would mean a token refused, a 503 an introspection failed). The memory measured is the same,
 * since a read keeps nothing, and the run no longer waits on FerretDB's ~1 ms of CPU per read: this
 * measure presented its 70,000-odd tokens in 151 and 215 s with reads, the longest step of the
 * bench, and most of it over its 15 minutes.
 */
import { loadConfig } from '@school/resource-api/dist/config.js';
import type { Measure } from '../lib/bench.js';
import { int } from '../lib/report.js';
import { POOL_SIZE } from './as1-introspection.js';
import { memoryAfterFullGc, presentRestOfPool } from './pool-memory.js';
import { LIST_ROUTE, apiLine, apiProcesses, missCursor } from './resource-api.js';

const LIMIT_MB = 200;
/** A course id that is not one (not an ObjectId): the API's 404 after the token check. */
const NO_READ_ROUTE = `${LIST_ROUTE}/not-a-course-id`;

export const memApi: Measure = {
  id: 'MEM-API',
  title: 'resource API resident memory after 100k distinct tokens',
  goal: `≤ ${LIMIT_MB} MB, bounded by the cache size`,
  async run(bench) {
    const api = await bench.resourceApi();
    const cacheSize = loadConfig(api.env).INTROSPECTION_CACHE_SIZE;
    const runs = await presentRestOfPool(bench, {
      name: 'MEM-API',
      file: 'api-miss-rest',
      url: api.url,
      line: (token) => apiLine(token, NO_READ_ROUTE),
      expectStatus: 404,
      cursor: missCursor,
      rateIfUnknown: 1000,
      rateFloor: 100,
      processes: apiProcesses(bench, api),
      attempts: 10,
    });
    for (const r of runs) if (r.errors) throw new Error(`${r.errors} of ${r.requests} reads failed`);
    if (missCursor.next < POOL_SIZE) {
      throw new Error(`only ${int(missCursor.next)} of the pool's tokens were presented`);
    }
    const memory = await memoryAfterFullGc(api.pid, api.inspectPort);
    return {
      status: memory.mb <= LIMIT_MB ? 'PASS' : 'FAIL',
      ratio: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
      text:
        `${memory.text}  | after ${int(POOL_SIZE)} distinct tokens, ` +
        `INTROSPECTION_CACHE_SIZE ${int(cacheSize)}  | goal ≤ ${LIMIT_MB} MB`,
    };
  },
};
