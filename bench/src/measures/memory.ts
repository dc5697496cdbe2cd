/**
 * MEM-AS and MEM-API: a server's RSS after a full GC once it has seen each of the pool's 100,000
 * distinct tokens once. Neither keeps unbounded per-token state, so memory must stay flat.
 */
import { loadConfig } from '@school/resource-api/dist/config.js';
import type { Bench, Measure, Outcome } from '../lib/bench.js';
import { memoryAfterGc } from '../lib/inspector.js';
import { runLoad, type LoadSpec, type RunResult } from '../lib/load.js';
import { cpuText, int } from '../lib/report.js';
import { introspectionPool, POOL_SIZE } from '../lib/seed.js';
import { introspectLine } from './auth-load.js';
import { LIST_ROUTE, apiLine, instanceZero, missCursor } from './resource-api.js';

const LIMIT_MB = 200;
const ATTEMPTS = 5;
/** wrk runs for its whole duration even once the file is used up: runs are sized from a rate. */
const MAX_RUN_SECONDS = 120;

/**
 * Presents the pool's tokens from `cursor.next` on, each once, as `line(token)` requests, in runs
 * sized from the cursor's last rate (at least `minRate`), moving the cursor on; then the outcome of
 * process `pid`'s memory after a full GC, `note` adding to its line.
 */
async function afterPool(
  bench: Bench,
  spec: Omit<LoadSpec, 'requestsFile'> & { line: (token: string) => string; minRate: number },
  cursor: { next: number; rps: number },
  server: { pid: number; inspectPort: number; note: (first: RunResult) => string },
): Promise<Outcome> {
  const tokens = await introspectionPool(bench, POOL_SIZE);
  const runs: RunResult[] = [];
  for (let attempt = 0; attempt < ATTEMPTS && cursor.next < POOL_SIZE; attempt++) {
    // The rest of the pool, then 200 tokens again: wrk stops when the file is used up, and the
    // requests in flight at that moment (≤ 50) are the repeated ones, not the pool's last.
    const rest = [...tokens.slice(cursor.next), ...tokens.slice(0, 200)];
    const rate = Math.max(cursor.rps, spec.minRate);
    const seconds = Math.min(MAX_RUN_SECONDS, Math.ceil((rest.length / rate) * 1.5) + 2);
    bench.log(
      `${spec.name}: presenting the pool's last ${int(POOL_SIZE - cursor.next)} tokens (≤ ${seconds} s)`,
    );
    const requestsFile = bench.requests(`${spec.name}-pool`, rest.map(spec.line));
    const r = await runLoad({ ...spec, requestsFile, once: true }, seconds);
    runs.push(r);
    cursor.next = Math.min(POOL_SIZE, cursor.next + r.requests);
    cursor.rps = r.rps;
  }
  for (const r of runs) if (r.errors) throw new Error(`${r.errors} of ${r.requests} requests failed`);
  if (cursor.next < POOL_SIZE)
    throw new Error(`only ${int(cursor.next)} of the pool's tokens were presented`);
  const memory = await memoryAfterGc(server.pid, server.inspectPort);
  return {
    status: memory.mb <= LIMIT_MB ? 'PASS' : 'FAIL',
    judged: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
    text: `${memory.text}  | after ${int(POOL_SIZE)} distinct tokens${server.note(runs[0]!)}`,
  };
}

export const memAuth: Measure = {
  id: 'MEM-AS',
  title: 'auth server resident memory after 100k distinct introspections',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    bench.log(`minting ${int(POOL_SIZE)} access tokens`);
    const line = (t: string) => introspectLine(bench, t);
    const spec = { name: 'MEM-AS', url: bench.auth.url, processes: bench.authProcesses, line, minRate: 2000 };
    const note = (run: RunResult) => ` at ${int(run.rps)} req/s, ${cpuText(run)}`;
    return afterPool(
      bench,
      spec,
      { next: 0, rps: 0 },
      { pid: bench.auth.pid, inspectPort: bench.authInspectPort, note },
    );
  },
};

/**
 * MEM-API presents the rest of the pool instance 0 has not seen (RS2 and RS3 walked it first) as reads
 * of a course id that cannot exist: the token checked in full, then 404 at the id's validation, before
 * any read. Every answer must be that 404 (a 401 would be a token refused, a 503 a failed introspection).
 */
export const memApi: Measure = {
  id: 'MEM-API',
  title: 'resource API resident memory after 100k distinct tokens',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    const { api, processes } = await instanceZero(bench);
    const line = (t: string) => apiLine(t, `${LIST_ROUTE}/not-a-course-id`);
    const spec = { name: 'MEM-API', url: api.url, processes, expectStatus: 404, line, minRate: 100 };
    const note = () => `, INTROSPECTION_CACHE_SIZE ${int(loadConfig(api.env).INTROSPECTION_CACHE_SIZE)}`;
    return afterPool(bench, spec, missCursor, { ...api, note });
  },
};
