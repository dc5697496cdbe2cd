/**
 * MEM-API: resident memory of the resource API once it has introspected every token of the
 * introspection pool (100,000 distinct tokens, each presented once), measured after a full garbage
 * collection over the inspector (lib/inspector.ts), as MEM-AS does for the auth server. What the API
 * keeps per token is its introspection cache, an LRU bounded by INTROSPECTION_CACHE_SIZE (and the
 * revoked-hash and negative caches, bounded likewise), so memory must stay flat once the cache is
 * full however many tokens pass through; the line prints that setting.
 *
 * The misses of RS2 and RS3 count (they walked the same pool with the same cursor); this measure
 * presents the rest, in runs sized from the last miss rate, until the cursor has covered the pool.
 */
import { loadConfig } from '@school/resource-api/dist/config.js';
import type { Measure } from '../lib/bench.js';
import { runLoad } from '../lib/load.js';
import { memoryAfterGc } from '../lib/inspector.js';
import { rssBytes } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';
import { POOL_SIZE } from './as1-introspection.js';
import { apiLine, apiProcesses, missCursor } from './resource-api.js';

const LIMIT_MB = 200;
/** Runs of at most this long, until the pool is covered (wrk runs its whole duration regardless). */
const MAX_RUN_SECONDS = 120;

export const memApi: Measure = {
  id: 'MEM-API',
  title: 'resource API resident memory after 100k distinct tokens',
  goal: `≤ ${LIMIT_MB} MB, bounded by the cache size`,
  async run(bench) {
    const api = await bench.resourceApi();
    const cacheSize = loadConfig(api.env).INTROSPECTION_CACHE_SIZE;
    const tokens = await introspectionPool(bench, POOL_SIZE);
    for (let attempt = 0; missCursor.next < POOL_SIZE; attempt++) {
      if (attempt === 10) throw new Error(`only ${int(missCursor.next)} of the pool's tokens were presented`);
      // The rest of the pool, then 200 tokens again: wrk stops when the file is used up, and the
      // requests in flight at that moment (≤ 50) are the repeated ones, not the pool's last.
      const rest = [...tokens.slice(missCursor.next), ...tokens.slice(0, 200)];
      const seconds = Math.min(
        MAX_RUN_SECONDS,
        Math.ceil((rest.length / Math.max(missCursor.rps || 1000, 100)) * 1.5) + 2,
      );
      bench.log(
        `MEM-API: presenting the pool's last ${int(POOL_SIZE - missCursor.next)} tokens (${seconds} s)`,
      );
      const r = await runLoad(
        {
          name: 'cache miss',
          url: api.url,
          requestsFile: bench.requests('api-miss-rest', rest.map(apiLine)),
          once: true,
          processes: apiProcesses(bench, api),
        },
        seconds,
      );
      if (r.errors) throw new Error(`${r.errors} of ${r.requests} reads failed`);
      missCursor.next = Math.min(POOL_SIZE, missCursor.next + r.requests);
      missCursor.rps = r.rps;
    }
    const before = rssBytes(api.pid) / 2 ** 20;
    const after = await memoryAfterGc(api.inspectPort);
    const mb = after.rss / 2 ** 20;
    const ok = mb <= LIMIT_MB;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text:
        `rss ${mb.toFixed(0)} MB (heap used ${(after.heapUsed / 2 ** 20).toFixed(0)} MB) after a full GC; ` +
        `${before.toFixed(0)} MB before it  | after ${int(POOL_SIZE)} distinct tokens, ` +
        `INTROSPECTION_CACHE_SIZE ${int(cacheSize)}  | goal ≤ ${LIMIT_MB} MB`,
    };
  },
};
