/**
 * MEM-AS and MEM-API: resident memory of a server once it has seen every token of the introspection
 * pool (100,000 distinct access tokens, each presented once at 50 connections), after a full garbage
 * collection over the inspector (so it shows what the process keeps, not the garbage V8 let pile up;
 * the RSS before it is printed too). Neither server keeps unbounded per-token state (the auth server
 * none in process, the API an LRU of INTROSPECTION_CACHE_SIZE), so memory must stay flat.
 */
import { loadConfig } from '@school/resource-api/dist/config.js';
import type { Bench, Measure } from '../lib/bench.js';
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
 * sized from the cursor's last rate (at least `minRate`), moving the cursor on. Returns the runs.
 */
async function presentRestOfPool(
  bench: Bench,
  spec: Omit<LoadSpec, 'requestsFile'>,
  line: (token: string) => string,
  cursor: { next: number; rps: number },
  minRate: number,
): Promise<RunResult[]> {
  const tokens = await introspectionPool(bench, POOL_SIZE);
  const runs: RunResult[] = [];
  for (let attempt = 0; attempt < ATTEMPTS && cursor.next < POOL_SIZE; attempt++) {
    // The rest of the pool, then 200 tokens again: wrk stops when the file is used up, and the
    // requests in flight at that moment (≤ 50) are the repeated ones, not the pool's last.
    const rest = [...tokens.slice(cursor.next), ...tokens.slice(0, 200)];
    const seconds = Math.min(
      MAX_RUN_SECONDS,
      Math.ceil((rest.length / Math.max(cursor.rps, minRate)) * 1.5) + 2,
    );
    bench.log(
      `${spec.name}: presenting the pool's last ${int(POOL_SIZE - cursor.next)} tokens (≤ ${seconds} s)`,
    );
    const requestsFile = bench.requests(`${spec.name}-pool`, rest.map(line));
    const r = await runLoad({ ...spec, requestsFile, once: true }, seconds);
    runs.push(r);
    cursor.next = Math.min(POOL_SIZE, cursor.next + r.requests);
    cursor.rps = r.rps;
  }
  for (const r of runs) if (r.errors) throw new Error(`${r.errors} of ${r.requests} requests failed`);
  if (cursor.next < POOL_SIZE)
    throw new Error(`only ${int(cursor.next)} of the pool's tokens were presented`);
  return runs;
}

async function memoryOutcome(pid: number, inspectPort: number, after: string) {
  const memory = await memoryAfterGc(pid, inspectPort);
  return {
    status: memory.mb <= LIMIT_MB ? ('PASS' as const) : ('FAIL' as const),
    judged: `rss ${memory.mb.toFixed(0)} MB after a full GC`,
    text: `${memory.text}  | after ${int(POOL_SIZE)} distinct tokens${after}`,
  };
}

export const memAuth: Measure = {
  id: 'MEM-AS',
  title: 'auth server resident memory after 100k distinct introspections',
  goal: `≤ ${LIMIT_MB} MB`,
  async run(bench) {
    bench.log(`minting ${int(POOL_SIZE)} access tokens`);
    const spec = { name: 'MEM-AS', url: bench.auth.url, processes: bench.authProcesses };
    const line = (t: string) => introspectLine(bench, t);
    const [run] = await presentRestOfPool(bench, spec, line, { next: 0, rps: 0 }, 2000);
    return memoryOutcome(
      bench.auth.pid,
      bench.authInspectPort,
      ` at ${int(run!.rps)} req/s, ${cpuText(run!)}`,
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
    const spec = { name: 'MEM-API', url: api.url, processes, expectStatus: 404 };
    await presentRestOfPool(bench, spec, (t) => apiLine(t, `${LIST_ROUTE}/not-a-course-id`), missCursor, 100);
    const cacheSize = loadConfig(api.env).INTROSPECTION_CACHE_SIZE;
    return memoryOutcome(api.pid, api.inspectPort, `, INTROSPECTION_CACHE_SIZE ${int(cacheSize)}`);
  },
};
