/**
 * How a measure's runs become its figures, and the text of its line.
 *
 * Sandwich (RS2): ref, case, ref, case, ref. Each case run is compared with the mean of the reference
 * runs either side of it; of the two case runs the worse value of every figure is reported (lowest
 * throughput and ratio, highest latency and CPU). Without a reference (AS5, DCR, LG, judged on CPU
 * per request alone): the two case runs, the worse figures.
 */
import type { Outcome } from './bench.js';
import { runLoad, type LoadSpec, type RunResult } from './load.js';

/** Run lengths, seconds. */
export interface Durations {
  warm: number;
  run: number;
  ref: number;
}

/** What a sandwich found, as printed. */
export interface Figures {
  rps: number;
  p50ms: number;
  p99ms: number;
  cpuUs: number;
  cpuParts: Record<string, number>;
  /** CPU of processes measured but not counted, µs/request (e.g. the MongoDB-protocol server). */
  shownParts: Record<string, number>;
  /** Requests per CPU-second of the server processes: 10^6 / cpuUs. */
  perCore: number;
  /** The reference, when there is one: its name and CPU per request (mean of its runs). */
  ref?: { name: string; cpuUs: number };
  /** Case throughput / reference throughput, same run (NaN without a reference). */
  rpsRatio: number;
  /** Case CPU per request / reference CPU per request, same run (NaN without a reference). */
  cpuRatio: number;
  errors: number;
}

/** ref, case, ref, case, ref (after a warm-up of each), or case, case; `caseSpec(i)` may move pools forward. */
export async function sandwich(opts: {
  /** The case's load for run `run` (-1: the warm-up); may prepare single-use requests first. */
  caseSpec: (run: number) => LoadSpec | Promise<LoadSpec>;
  /** Called after every case run (warm-up too), e.g. to move a pool's cursor on. */
  after?: (result: RunResult, run: number) => void;
  ref?: LoadSpec;
  durations: Durations;
  /** Skip the case warm-up (single-use pools: warming would burn requests). */
  noWarm?: boolean;
}): Promise<{ refs: RunResult[]; figures: Figures }> {
  const { durations: d } = opts;
  const { ref } = opts;
  if (ref) await runLoad(ref, d.warm);
  if (!opts.noWarm) {
    const warm = await runLoad(await opts.caseSpec(-1), d.warm);
    opts.after?.(warm, -1);
  }
  const refs: RunResult[] = ref ? [await runLoad(ref, d.ref)] : [];
  const runs: RunResult[] = [];
  for (let i = 0; i < 2; i++) {
    const result = await runLoad(await opts.caseSpec(i), d.run);
    opts.after?.(result, i);
    runs.push(result);
    if (ref) refs.push(await runLoad(ref, d.ref));
  }
  return { refs, figures: figures(runs, refs, ref?.name) };
}

/** Worse-of-two figures of case runs against the reference runs either side of each. */
function figures(runs: RunResult[], refs: RunResult[], refName?: string): Figures {
  const around = (i: number, f: (r: RunResult) => number) =>
    refs.length ? (f(refs[i]!) + f(refs[i + 1]!)) / 2 : NaN;
  const worstCpu = runs.reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));
  return {
    rps: Math.min(...runs.map((r) => r.rps)),
    p50ms: Math.max(...runs.map((r) => r.p50ms)),
    p99ms: Math.max(...runs.map((r) => r.p99ms)),
    cpuUs: worstCpu.cpuUs,
    cpuParts: worstCpu.cpuParts,
    shownParts: worstCpu.shownParts,
    perCore: 1e6 / worstCpu.cpuUs,
    ref: refName ? { name: refName, cpuUs: refs.reduce((n, r) => n + r.cpuUs, 0) / refs.length } : undefined,
    rpsRatio: Math.min(...runs.map((r, i) => r.rps / around(i, (x) => x.rps))),
    cpuRatio: Math.max(...runs.map((r, i) => r.cpuUs / around(i, (x) => x.cpuUs))),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
/** The middle value (of an even count, the mean of the middle two). */
function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** "cpu 262 µs/req (node 220 + redis 42; mongo 80 not counted)". */
export function cpuText(f: Pick<Figures, 'cpuUs' | 'cpuParts' | 'shownParts'>): string {
  const parts = Object.entries(f.cpuParts)
    .filter(([, v]) => Math.round(v) > 0)
    .map(([k, v]) => `${k} ${int(v)}`)
    .join(' + ');
  const shown = Object.entries(f.shownParts)
    .filter(([, v]) => Math.round(v) > 0)
    .map(([k, v]) => `${k} ${int(v)} not counted`)
    .join(', ');
  const all = [parts, shown].filter(Boolean).join('; ');
  return `cpu ${int(f.cpuUs)} µs/req${all ? ` (${all})` : ''}`;
}

/** The figures part of a sandwich measure's line. */
export function figuresText(f: Figures): string {
  return [
    `${int(f.rps)} req/s`,
    `p50 ${ms(f.p50ms)} ms`,
    `p99 ${ms(f.p99ms)} ms`,
    cpuText(f),
    `= ${int(f.perCore)}/s per core`,
    ...(f.ref
      ? [
          `| vs ${f.ref.name} (${int(f.ref.cpuUs)} µs/req): ${f.rpsRatio.toFixed(3)}× req/s, ${f.cpuRatio.toFixed(2)}× cpu/req`,
        ]
      : []),
    ...(f.errors ? [`| ${f.errors} ERRORS`] : []),
  ].join('  ');
}

/** A sandwich's row in the results (ours, its worse run's figures) and its ratio to the reference. */
export function summaryOf(f: Figures): Pick<Outcome, 'rows' | 'judged'> {
  return {
    rows: [{ server: 'ours', rps: f.rps, p50ms: f.p50ms, p99ms: f.p99ms, cpuUs: f.cpuUs }],
    judged: `${f.cpuRatio.toFixed(2)}× cpu/req, ${f.rpsRatio.toFixed(2)}× req/s of ${f.ref?.name ?? '—'}`,
  };
}

export { int, median, ms };
