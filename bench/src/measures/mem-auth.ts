/**
 * MEM (auth server): resident memory of the auth server process once every token of AS1's pool
 * (100,000 distinct access tokens) has been introspected, measured after a full garbage collection
 * (over the inspector, lib/inspector.ts) so that it shows what the process keeps, not how much garbage
 * V8 let pile up (that is printed too, as "before it"). The auth server keeps no per-token state in
 * process; what it caches (oidc-provider's client LRU, the adapter's client cache, recent accounts) is
 * bounded, so memory must stay flat however many tokens pass through.
 */
import type { Measure } from '../lib/bench.js';
import { runLoad } from '../lib/load.js';
import { memoryAfterGc } from '../lib/inspector.js';
import { rssBytes } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';
import { introspectLine } from './common.js';
import { POOL_SIZE, introspectionPoolFile, poolCursor } from './as1-introspection.js';

const LIMIT_MB = 200;

export const memAuth: Measure = {
  id: 'MEM-AS',
  title: 'auth server resident memory after 100k distinct introspections',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    await introspectionPoolFile(bench);
    if (poolCursor.next < POOL_SIZE) {
      const tokens = await introspectionPool(bench, POOL_SIZE);
      // The rest of the pool, then 200 tokens again: wrk stops when the file is used up, and the
      // requests in flight at that moment (≤ 50) are the repeated ones, not the pool's last.
      const rest = [...tokens.slice(poolCursor.next), ...tokens.slice(0, 200)];
      // wrk runs for its whole duration even once the file is used up: size it from AS1's rate.
      const seconds = Math.min(120, Math.ceil((rest.length / Math.max(poolCursor.rps, 2000)) * 1.5) + 2);
      bench.log(
        `MEM-AS: introspecting the pool's last ${(POOL_SIZE - poolCursor.next).toLocaleString('en-US')} tokens`,
      );
      const r = await runLoad(
        {
          name: 'introspection',
          url: bench.auth.url,
          requestsFile: bench.requests(
            'introspection-rest',
            rest.map((t) => introspectLine(bench, t)),
          ),
          once: true,
          processes: bench.authProcesses(),
        },
        seconds,
      );
      poolCursor.next = Math.min(POOL_SIZE, poolCursor.next + r.requests);
    }
    const before = rssBytes(bench.auth.pid) / 2 ** 20;
    const after = await memoryAfterGc(bench.authInspectPort);
    const mb = after.rss / 2 ** 20;
    const ok = mb <= LIMIT_MB && poolCursor.next >= POOL_SIZE;
    return {
      status: ok ? 'PASS' : 'FAIL',
      text:
        `rss ${mb.toFixed(0)} MB (heap used ${(after.heapUsed / 2 ** 20).toFixed(0)} MB) after a full GC; ` +
        `${before.toFixed(0)} MB before it  | after ${int(poolCursor.next)} introspections of ${int(POOL_SIZE)} distinct tokens` +
        `  | goal ≤ ${LIMIT_MB} MB`,
    };
  },
};
