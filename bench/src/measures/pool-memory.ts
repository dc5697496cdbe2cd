/**
 * What MEM-AS and MEM-API share: the introspection pool (100,000 distinct access tokens, lib/seed.ts),
 * presented once to a server so that it has seen every one of them, and the server's resident memory
 * after a full garbage collection over the inspector, printed with what it was before that collection.
 */
import type { Bench } from '../lib/bench.js';
import { memoryAfterGc } from '../lib/inspector.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { rssBytes, type ProcessSet } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { introspectionPool } from '../lib/seed.js';

/** Distinct tokens in the pool. */
export const POOL_SIZE = 100_000;

/** How far a server has been walked through the pool, and the last rate seen there. */
export interface PoolCursor {
  next: number;
  rps: number;
}

/** wrk runs for its whole duration even once the file is used up: runs are sized from a rate. */
const MAX_RUN_SECONDS = 120;

/**
 * Presents the pool's tokens from `cursor.next` on, each once, as `line(token)` requests to `url`, in
 * at most `attempts` runs sized from the cursor's rate (`rateIfUnknown` while none is known, never
 * below `rateFloor`), moving the cursor on. Returns the runs.
 */
export async function presentRestOfPool(
  bench: Bench,
  opts: {
    name: string;
    url: string;
    line: (token: string) => string;
    cursor: PoolCursor;
    rateIfUnknown: number;
    rateFloor: number;
    processes: ProcessSet;
    attempts: number;
    /** The status every answer must have, when not 2xx (LoadSpec.expectStatus). */
    expectStatus?: number;
  },
): Promise<RunResult[]> {
  const tokens = await introspectionPool(bench, POOL_SIZE);
  const runs: RunResult[] = [];
  for (let attempt = 0; attempt < opts.attempts && opts.cursor.next < POOL_SIZE; attempt++) {
    // The rest of the pool, then 200 tokens again: wrk stops when the file is used up, and the
    // requests in flight at that moment (≤ 50) are the repeated ones, not the pool's last.
    const rest = [...tokens.slice(opts.cursor.next), ...tokens.slice(0, 200)];
    const rate = Math.max(opts.cursor.rps || opts.rateIfUnknown, opts.rateFloor);
    const seconds = Math.min(MAX_RUN_SECONDS, Math.ceil((rest.length / rate) * 1.5) + 2);
    bench.log(
      `${opts.name}: presenting the pool's last ${int(POOL_SIZE - opts.cursor.next)} tokens (≤ ${seconds} s)`,
    );
    const r = await runLoad(
      {
        name: opts.name,
        url: opts.url,
        requestsFile: bench.requests(`${opts.name}-pool`, rest.map(opts.line)),
        once: true,
        expectStatus: opts.expectStatus,
        processes: opts.processes,
      },
      seconds,
    );
    runs.push(r);
    opts.cursor.next = Math.min(POOL_SIZE, opts.cursor.next + r.requests);
    opts.cursor.rps = r.rps;
  }
  for (const r of runs) if (r.errors) throw new Error(`${r.errors} of ${r.requests} requests failed`);
  if (opts.cursor.next < POOL_SIZE) {
    throw new Error(`only ${int(opts.cursor.next)} of the pool's tokens were presented`);
  }
  return runs;
}

/** The process's RSS after a full GC over its inspector (opened and closed again), in MB, and the line's text for it. */
export async function memoryAfterFullGc(
  pid: number,
  inspectPort: number,
): Promise<{ mb: number; text: string }> {
  const before = rssBytes(pid) / 2 ** 20;
  const after = await memoryAfterGc(pid, inspectPort);
  const mb = after.rss / 2 ** 20;
  return {
    mb,
    text:
      `rss ${mb.toFixed(0)} MB (heap used ${(after.heapUsed / 2 ** 20).toFixed(0)} MB) after a full GC; ` +
      `${before.toFixed(0)} MB before it`,
  };
}
