/**
 * MEM-AS: resident memory of the auth server process once it has introspected every token of the
 * pool (100,000 distinct access tokens) at 50 connections, after a full garbage collection (so it
 * shows what the process keeps, not how much garbage V8 let pile up; that is printed as "before it").
 * The auth server keeps no per-token state in process; what it caches (clients, recent accounts) is
 * bounded, so memory must stay flat however many tokens pass through.
 */
import type { Measure } from '../lib/bench.js';
import { cpuText, int } from '../lib/report.js';
import { introspectLine } from './common.js';
import { POOL_SIZE, memoryAfterFullGc, presentRestOfPool } from './pool-memory.js';

const LIMIT_MB = 200;

export const memAuth: Measure = {
  id: 'MEM-AS',
  title: 'auth server resident memory after 100k distinct introspections',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    bench.log(`minting ${int(POOL_SIZE)} access tokens`);
    const [run] = await presentRestOfPool(bench, {
      name: 'MEM-AS',
      url: bench.auth.url,
      line: (t) => introspectLine(bench, t),
      cursor: { next: 0, rps: 0 },
      rateIfUnknown: 2000,
      rateFloor: 2000,
      processes: bench.authProcesses(),
      attempts: 3,
    });
    const memory = await memoryAfterFullGc(bench.auth.pid, bench.authInspectPort);
    return {
      status: memory.mb <= LIMIT_MB ? 'PASS' : 'FAIL',
      judged: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
      text: `${memory.text}  | after ${int(POOL_SIZE)} distinct tokens at ${int(run!.rps)} req/s, ${cpuText(run!)}`,
    };
  },
};
