/**
 * MEM (auth server): resident memory of the auth server process once every token of AS1's pool
 * (100,000 distinct access tokens) has been introspected, measured after a full garbage collection
 * (over the inspector, lib/inspector.ts) so that it shows what the process keeps, not how much garbage
 * V8 let pile up (that is printed too, as "before it"). The auth server keeps no per-token state in
 * process; what it caches (oidc-provider's client LRU, the adapter's client cache, recent accounts) is
 * bounded, so memory must stay flat however many tokens pass through.
 */
import type { Measure } from '../lib/bench.js';
import { int } from '../lib/report.js';
import { introspectLine } from './common.js';
import { POOL_SIZE, introspectionPoolFile, poolCursor } from './as1-introspection.js';
import { memoryAfterFullGc, presentRestOfPool } from './pool-memory.js';

const LIMIT_MB = 200;

export const memAuth: Measure = {
  id: 'MEM-AS',
  title: 'auth server resident memory after 100k distinct introspections',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    await introspectionPoolFile(bench);
    await presentRestOfPool(bench, {
      name: 'MEM-AS',
      file: 'introspection-rest',
      url: bench.auth.url,
      line: (t) => introspectLine(bench, t),
      cursor: poolCursor,
      rateIfUnknown: 2000,
      rateFloor: 2000,
      processes: bench.authProcesses(),
      attempts: 1,
    });
    const memory = await memoryAfterFullGc(bench.auth.pid, bench.authInspectPort);
    const ok = memory.mb <= LIMIT_MB && poolCursor.next >= POOL_SIZE;
    return {
      status: ok ? 'PASS' : 'FAIL',
      ratio: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
      text:
        `${memory.text}  | after ${int(poolCursor.next)} introspections of ${int(POOL_SIZE)} distinct tokens` +
        `  | goal ≤ ${LIMIT_MB} MB`,
    };
  },
};
