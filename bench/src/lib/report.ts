/**
 * Runs into figures and a line's text. Of several runs the worse figure of each kind counts. The
 * sandwich (RS2): ref, case, ref, case, ref, each case against the references either side of it.
 */
import type { Durations } from './bench.js';
import { runLoad, type LoadSpec, type RunResult } from './load.js';

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The middle value (of an even count, the mean of the middle two). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The run with the most CPU per request. */
export const mostCpu = (runs: RunResult[]) => runs.reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));

/** The worse of `runs`: lowest throughput, highest latency and CPU (that run's parts), errors summed. */
export function worse(runs: RunResult[]): RunResult {
  return {
    ...mostCpu(runs),
    rps: Math.min(...runs.map((r) => r.rps)),
    p50ms: Math.max(...runs.map((r) => r.p50ms)),
    p99ms: Math.max(...runs.map((r) => r.p99ms)),
    errors: sum(runs.map((r) => r.errors)),
  };
}

/** "cpu 262 µs/req (node 220 + redis 42; mongo 80 not counted)". */
export function cpuText(r: Pick<RunResult, 'cpuUs' | 'cpuParts' | 'shownParts'>): string {
  const list = (parts: Record<string, number>, suffix: string) =>
    Object.entries(parts)
      .filter(([, v]) => Math.round(v) > 0)
      .map(([k, v]) => `${k} ${int(v)}${suffix}`);
  const all = [list(r.cpuParts, '').join(' + '), list(r.shownParts, ' not counted').join(', ')];
  const text = all.filter(Boolean).join('; ');
  return `cpu ${int(r.cpuUs)} µs/req${text ? ` (${text})` : ''}`;
}

/** A run's figures as printed: rate, latencies, CPU, requests per core, then `extra`, then errors. */
export function runText(r: RunResult, extra: string[] = []): string {
  return [
    `${int(r.rps)} req/s`,
    `p50 ${ms(r.p50ms)} ms`,
    `p99 ${ms(r.p99ms)} ms`,
    cpuText(r),
    `= ${int(1e6 / r.cpuUs)}/s per core`,
    ...extra,
    ...(r.errors ? [`| ${r.errors} ERRORS`] : []),
  ].join('  ');
}

export interface Sandwich {
  /** The worse of the case runs. */
  worst: RunResult;
  /** Against the reference runs either side (NaN without a reference): lowest req/s, highest CPU ratio. */
  rpsRatio: number;
  cpuRatio: number;
  refs: RunResult[];
}

/** ref, case, ref, case, ref (after a warm-up of each), or case, case. */
export async function sandwich(opts: {
  /** The case's load, asked for before each run (so it may prepare single-use requests). */
  caseSpec: () => LoadSpec | Promise<LoadSpec>;
  /** Called after every case run (warm-up too), e.g. to move a pool's cursor on. */
  after?: (result: RunResult) => void;
  ref?: LoadSpec;
  durations: Durations;
  /** Skip the case warm-up (single-use requests that warming would burn). */
  noWarm?: boolean;
}): Promise<Sandwich> {
  const { durations: d, ref } = opts;
  const caseRun = async (seconds: number) => {
    const r = await runLoad(await opts.caseSpec(), seconds);
    opts.after?.(r);
    return r;
  };
  if (ref) await runLoad(ref, d.warm);
  if (!opts.noWarm) await caseRun(d.warm);
  const refs = ref ? [await runLoad(ref, d.ref)] : [];
  const runs: RunResult[] = [];
  for (let i = 0; i < 2; i++) {
    runs.push(await caseRun(d.run));
    if (ref) refs.push(await runLoad(ref, d.ref));
  }
  const ratio = (f: (r: RunResult) => number) =>
    runs.map((r, i) => (refs.length ? (2 * f(r)) / (f(refs[i]!) + f(refs[i + 1]!)) : NaN));
  return {
    worst: worse(runs),
    rpsRatio: Math.min(...ratio((r) => r.rps)),
    cpuRatio: Math.max(...ratio((r) => r.cpuUs)),
    refs,
  };
}
