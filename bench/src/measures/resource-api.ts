/**
 * What the API measures share. A hit: one cached token, again and again. A miss: a pool token the API
 * has never seen; instance 0 walks the pool once (RS2, RS3, then MEM-API). Misses read one course, the
 * read that costs FerretDB least, so that RS3 measures the hop rather than the database.
 */
import { get, type HttpResult } from '#test-support/oauth-flow.js';
import type { Bench, ResourceApiServer } from '../lib/bench.js';
import { requestLine } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import type { ProcessSet } from '../lib/proc.js';
import { int } from '../lib/report.js';
import { flowTokens, introspectionPool, POOL_SIZE } from '../lib/seed.js';

/** Seconds of warm-up of fresh API processes: their CPU per read keeps falling for tens of seconds. */
export const API_WARM_S = 10;
export const LIST_ROUTE = '/api/v1/courses';

/** How far instance 0 has walked the pool, and the last 50-connection miss rate (MEM-API sizes by it). */
export const missCursor = { next: 0, rps: 0 };

export function apiLine(token: string, route: string): string {
  return requestLine('GET', route, '', [`Authorization: Bearer ${token}`, 'Accept: application/json']);
}

/** One API read of `route` (default the list) with `token` at `origin`: its status and body. */
export function apiGet(origin: string, token: string, route = LIST_ROUTE): Promise<HttpResult> {
  return get(`${origin}${route}`, { authorization: `Bearer ${token}`, accept: 'application/json' });
}

/** An API process to load, its CPU-counted processes and its cursor through the pool. */
export interface ApiTarget {
  api: ResourceApiServer;
  processes: ProcessSet;
  cursor: { next: number };
}

/** Instance 0 behind the auth server: the API, the auth server and Redis counted. */
export async function instanceZero(bench: Bench): Promise<ApiTarget> {
  const api = await bench.resourceApi();
  return { api, processes: { api: api.pid, ...bench.authProcesses }, cursor: missCursor };
}

/** The hit side's token, checked once against the API (which then has it cached). */
export function hitToken(bench: Bench): Promise<string> {
  return bench.memo('api-hit-token', async () => {
    const [token] = await flowTokens(bench, bench.auth.url, 1);
    const res = await apiGet((await bench.resourceApi()).url, token!);
    if (res.status !== 200) throw new Error(`the API refused a fresh token: ${res.status} ${res.text}`);
    return token!;
  });
}

/** The read of RS2, RS3 and MEM-API: the list's first course by id (checked once). */
export function courseRoute(bench: Bench): Promise<string> {
  return bench.memo('api-course-route', async () => {
    const { url } = await bench.resourceApi();
    const token = await hitToken(bench);
    const list = await apiGet(url, token);
    const id = (JSON.parse(list.text) as { data?: { id?: string }[] }).data?.[0]?.id;
    if (list.status !== 200 || !id)
      throw new Error(`no course on ${LIST_ROUTE}: ${list.status} ${list.text.slice(0, 200)}`);
    const one = await apiGet(url, token, `${LIST_ROUTE}/${id}`);
    if (one.status !== 200)
      throw new Error(`${LIST_ROUTE}/${id} answered ${one.status} ${one.text.slice(0, 200)}`);
    return `${LIST_ROUTE}/${id}`;
  });
}

/** Hits: reads of `route` with the same token every time, on `target` (default instance 0). */
export async function hitSpec(bench: Bench, route: string, connections?: number, target?: ApiTarget) {
  const { api, processes } = target ?? (await instanceZero(bench));
  const lines = [apiLine(await hitToken(bench), route)];
  const requestsFile = bench.requests(`api-hit${route.replace(/[^a-z0-9]+/gi, '-')}`, lines);
  return { name: 'cache hit', url: api.url, requestsFile, connections, processes, shown: bench.authShown };
}

/** Misses: reads of `courseRoute`, each with a pool token `target` (default instance 0) has not seen. */
export async function missSpec(bench: Bench, connections?: number, target?: ApiTarget): Promise<LoadSpec> {
  const { api, processes, cursor } = target ?? (await instanceZero(bench));
  if (cursor.next >= POOL_SIZE) throw new Error('the introspection pool is used up');
  const requestsFile = await bench.memo('api-miss-file', async () => {
    const [tokens, route] = [await introspectionPool(bench, POOL_SIZE), await courseRoute(bench)];
    const line = (t: string) => apiLine(t, route);
    return bench.requests('api-miss', tokens.map(line));
  });
  const start = cursor.next;
  return {
    name: 'cache miss',
    url: api.url,
    requestsFile,
    start,
    connections,
    processes,
    shown: bench.authShown,
  };
}

/** Empty, or why the misses were not all misses (the pool ran out and wrk started over). */
export function poolProblem(): string {
  const over = missCursor.next - POOL_SIZE;
  return over > 0 ? `| POOL USED UP: ${int(over)} requests reused tokens` : '';
}
