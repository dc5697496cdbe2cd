/**
 * What the resource API's measures share, against the real API process with tokens that carry
 * `courses:read`. RS1, MET and RV read the list, `GET /api/v1/courses`; RS2, RS3 and MEM-API are about
 * the token check and read one course by id, the read that costs FerretDB least (~0.6 ms of CPU against
 * ~2.5 ms for the list), so that RS3 measures the hop rather than a cold machine.
 *
 * A hit: one real access token, presented again and again (cached after its first request). A miss: a
 * token the API has never seen, from the 100,000-token pool, which the API walks once with one cursor:
 * RS2, RS3, then MEM-API. A run past the end would present tokens again (hits): the measures fail then.
 */
import type { Bench, ResourceApiServer } from '../lib/bench.js';
import { requestLine } from '../lib/bench.js';
import type { LoadSpec, RunResult } from '../lib/load.js';
import type { ProcessSet } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { flowTokens, introspectionPool } from '../lib/seed.js';
import { POOL_SIZE } from './pool-memory.js';

/** Seconds of warm-up of fresh API processes: their CPU per read keeps falling for tens of seconds. */
export const API_WARM_S = 10;

/** RS1's and RV's read: the course list. */
export const LIST_ROUTE = '/api/v1/courses';

/** How far the API has walked the introspection pool, and the last 50-connection miss rate. */
export const missCursor = { next: 0, rps: 0 };

/** The API read of `route` with `token`, as a request line. */
export function apiLine(token: string, route: string): string {
  return requestLine('GET', route, '', [`Authorization: Bearer ${token}`, 'Accept: application/json']);
}

/** One API read of `route` (default the list) with `token` at `origin`: its status and body. */
export async function apiGet(
  origin: string,
  token: string,
  route = LIST_ROUTE,
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${origin}${route}`, {
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

/** The read of RS2, RS3 and MEM-API: the list's first course by id (checked once against the API). */
export function courseRoute(bench: Bench): Promise<string> {
  return bench.memo('api-course-route', async () => {
    const api = await bench.resourceApi();
    const token = await hitToken(bench);
    const list = await apiGet(api.url, token);
    const id = (JSON.parse(list.body) as { data?: { id?: string }[] }).data?.[0]?.id;
    if (list.status !== 200 || !id) {
      throw new Error(`no course to read on ${LIST_ROUTE}: ${list.status} ${list.body.slice(0, 200)}`);
    }
    const route = `${LIST_ROUTE}/${id}`;
    const one = await apiGet(api.url, token, route);
    if (one.status !== 200) throw new Error(`${route} answered ${one.status} ${one.body.slice(0, 200)}`);
    return route;
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

/** Hits: reads of `route` with the same token on every request (to `target`'s API, default instance 0). */
export async function hitSpec(
  bench: Bench,
  route: string,
  connections?: number,
  target?: ApiTarget,
): Promise<LoadSpec> {
  const { api, processes } = target ?? (await instanceZero(bench));
  const token = await hitToken(bench);
  const file = `api-hit${route.replace(/[^a-z0-9]+/gi, '-')}`;
  return {
    name: 'cache hit',
    url: api.url,
    requestsFile: await bench.memo(
      file,
      () => new Promise<string>((resolve) => resolve(bench.requests(file, [apiLine(token, route)]))),
    ),
    connections,
    processes,
    shown: bench.authShown(),
  };
}

/** The pool's request file for the API, reads of `courseRoute` (written once). */
function missFile(bench: Bench): Promise<string> {
  return bench.memo('api-miss-file', async () => {
    const tokens = await introspectionPool(bench, POOL_SIZE);
    const route = await courseRoute(bench);
    return bench.requests(
      'api-miss',
      tokens.map((t) => apiLine(t, route)),
    );
  });
}

/** Misses: reads of `courseRoute`, each with a token of the pool `target`'s API (default instance 0) has not seen. */
export async function missSpec(bench: Bench, connections?: number, target?: ApiTarget): Promise<LoadSpec> {
  const { api, processes, cursor } = target ?? (await instanceZero(bench));
  if (cursor.next >= POOL_SIZE) throw new Error('the introspection pool is used up');
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
    ? `| POOL USED UP: ${int(missCursor.next - POOL_SIZE)} requests reused tokens`
    : '';
}
