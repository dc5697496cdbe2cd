/**
 * What the resource API's measures share (RS1, RS2, RS3, RV, MEM-API). Every one of them reads the
 * same list, `GET /api/v1/courses` (the demo school's first page, full view: the tokens carry
 * `courses:read`), from the real API process (`bench.resourceApi()`), so the only thing that changes
 * between a case and its reference is what the measure is about.
 *
 * - A hit: one real access token (a code exchange of the bench's public client), presented again and
 *   again; after its first request the API answers from its introspection cache.
 * - A miss: a token the API has never seen. The introspection pool's 100,000 tokens (lib/seed.ts) are
 *   fresh to the API whatever AS1 and MEM-AS did with them at the auth server, so the API walks it
 *   once with its own cursor: RS2, then RS3, then MEM-API goes through the rest. A run that went past
 *   the end would present tokens again (hits), so the measures check the cursor and fail instead.
 */
import type { Bench, ResourceApiServer } from '../lib/bench.js';
import { requestLine } from '../lib/bench.js';
import type { LoadSpec, RunResult } from '../lib/load.js';
import type { ProcessSet } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { flowTokens, introspectionPool } from '../lib/seed.js';
import { POOL_SIZE } from './as1-introspection.js';

/** The read every API measure sends. */
export const ROUTE = '/api/v1/courses';

/** How far the API has walked the introspection pool, and the last 50-connection miss rate. */
export const missCursor = { next: 0, rps: 0 };

/** The API read with `token`, as a request line. */
export function apiLine(token: string): string {
  return requestLine('GET', ROUTE, '', [`Authorization: Bearer ${token}`, 'Accept: application/json']);
}

/** One API read with `token` at `origin`: its status and body. */
export async function apiGet(origin: string, token: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${origin}${ROUTE}`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  return { status: res.status, body: await res.text() };
}

/** The CPU-counted processes of the API path: the API, the auth server and Redis. */
export function apiProcesses(bench: Bench, api: ResourceApiServer): ProcessSet {
  return { api: api.pid, ...bench.authProcesses() };
}

/** The hit side's token, checked once against the API (which then has it cached). */
export function hitToken(bench: Bench): Promise<string> {
  return bench.memo('api-hit-token', async () => {
    const api = await bench.resourceApi();
    const [token] = await flowTokens(bench, bench.auth.url, 1);
    const res = await apiGet(api.url, token!);
    if (res.status !== 200) throw new Error(`the API refused a fresh token: ${res.status} ${res.body}`);
    return token!;
  });
}

/**
 * An API process to load: its CPU-counted processes and its cursor through the introspection pool.
 * Instance 0 behind the auth server walks the shared `missCursor`; another process (RS3's floor,
 * `Bench.bareHopApi`) walks its own, since every token of the pool is new to it.
 */
export interface ApiTarget {
  api: ResourceApiServer;
  processes: ProcessSet;
  cursor: { next: number };
}

/** Instance 0, behind the auth server. */
async function instanceZero(bench: Bench): Promise<ApiTarget> {
  const api = await bench.resourceApi();
  return { api, processes: apiProcesses(bench, api), cursor: missCursor };
}

/** Hits: the same token on every request (to `target`'s API, default instance 0). */
export async function hitSpec(bench: Bench, connections?: number, target?: ApiTarget): Promise<LoadSpec> {
  const { api, processes } = target ?? (await instanceZero(bench));
  const token = await hitToken(bench);
  return {
    name: 'cache hit',
    url: api.url,
    requestsFile: await bench.memo('api-hit-file', async () => bench.requests('api-hit', [apiLine(token)])),
    connections,
    processes,
    shown: bench.authShown(),
  };
}

/** The pool's request file for the API (written once). */
function missFile(bench: Bench): Promise<string> {
  return bench.memo('api-miss-file', async () => {
    const tokens = await introspectionPool(bench, POOL_SIZE);
    return bench.requests('api-miss', tokens.map(apiLine));
  });
}

/** Misses: each request a token of the pool `target`'s API (default instance 0) has not seen. */
export async function missSpec(bench: Bench, connections?: number, target?: ApiTarget): Promise<LoadSpec> {
  const { api, processes, cursor } = target ?? (await instanceZero(bench));
  if (cursor.next >= POOL_SIZE) throw new Error('the introspection pool is used up: raise BENCH_POOL');
  return {
    name: 'cache miss',
    url: api.url,
    requestsFile: await missFile(bench),
    start: cursor.next,
    connections,
    processes,
    shown: bench.authShown(),
  };
}

/** Moves the cursor past a miss run; a 50-connection run also records its rate (MEM-API sizes by it). */
export function afterMisses(r: RunResult, saturating = true, cursor: { next: number } = missCursor): void {
  cursor.next += r.requests;
  if (saturating) missCursor.rps = r.rps;
}

/** Empty, or why the misses were not all misses (the pool ran out and wrk started over). */
export function poolProblem(): string {
  return missCursor.next > POOL_SIZE
    ? `| POOL USED UP: ${int(missCursor.next - POOL_SIZE)} requests reused tokens (raise BENCH_POOL)`
    : '';
}
