/**
 * Interleaving a case with its reference, and the one line each measure prints.
 *
 * Sandwich: ref, case, ref, case, ref. Each case run is compared with the mean of the reference runs
 * either side of it, so slow drifts of a shared machine cancel out; of the two case runs the worse
 * value of every figure is reported (lowest throughput and ratio, highest latency and CPU).
 * Paired rounds (AS2, RS1): the two sides in turn, each first as often, judged on the median ratio.
 */
import type { Outcome } from './bench.js';
import { runLoad, type LoadSpec, type RunResult } from './load.js';

/** Run lengths, seconds. */
export interface Durations {
  warm: number;
  run: number;
  ref: number;
}

/** What a measure found, as printed. */
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
  refName: string;
  /** The reference's CPU per request, µs (mean of its runs). */
  refCpuUs: number;
  /** Case throughput / reference throughput, same run. */
  rpsRatio: number;
  /** Case CPU per request / reference CPU per request, same run. */
  cpuRatio: number;
  errors: number;
  requests: number;
}

/** The two case runs and three reference runs of one sandwich. */
export interface Sandwich {
  runs: RunResult[];
  refs: RunResult[];
  figures: Figures;
}

/** ref, case, ref, case, ref (after a warm-up of each); `caseSpec(i)` may move pools forward. */
export async function sandwich(opts: {
  /** The case's load for run `run` (-1: the warm-up); may prepare single-use requests first. */
  caseSpec: (run: number) => LoadSpec | Promise<LoadSpec>;
  /** Called after every case run (warm-up too), e.g. to move a pool's cursor on. */
  after?: (result: RunResult, run: number) => void;
  ref: LoadSpec;
  durations: Durations;
  /** Skip the case warm-up (single-use pools: warming would burn requests). */
  noWarm?: boolean;
}): Promise<Sandwich> {
  const { durations: d } = opts;
  await runLoad(opts.ref, d.warm);
  if (!opts.noWarm) {
    // Not `opts.after?.(await runLoad(…))`: an optional call skips evaluating its arguments, which
    // silently dropped the case's warm-up from every measure without an `after`.
    const warm = await runLoad(await opts.caseSpec(-1), d.warm);
    opts.after?.(warm, -1);
  }
  const refs: RunResult[] = [await runLoad(opts.ref, d.ref)];
  const runs: RunResult[] = [];
  for (let i = 0; i < 2; i++) {
    const spec = await opts.caseSpec(i);
    const result = await runLoad(spec, d.run);
    opts.after?.(result, i);
    runs.push(result);
    refs.push(await runLoad(opts.ref, d.ref));
  }
  return { runs, refs, figures: figures(runs, refs, opts.ref.name) };
}

/** A case and its reference loaded in turn, round after round (see {@link pairedRounds}). */
export interface PairedRounds {
  rounds: { ref: RunResult; case: RunResult }[];
  /**
   * The case runs' figures as printed (the worst of each, as {@link figures} gives); its `cpuRatio`
   * and `rpsRatio` are the medians over the rounds of case ÷ reference.
   */
  figures: Figures;
}

/**
 * The case and its reference in `count` rounds of one run each, the reference first in odd rounds and
 * the case first in even ones (after a warm-up of each), judged on the median of the rounds' ratios.
 *
 * Why not a {@link sandwich} (ref, case, ref, case, ref; the worse of two): on these shared vCPUs
 * one run of a side varies by ±10-25 % from the next, and the worse of two such draws is biased
 * against the case. An A/A run (BENCH_AS2_AA=1: both sides the same Redis-adapter server) read 1.17×
 * and 1.22× CPU per request that way, more than AS2's 10 % goal allows; as five or seven paired
 * rounds, 0.94–1.08× (PERFORMANCE.md, "Measuring a process against itself"). Each side runs as often and
 * first as often, and one disturbed round does not decide.
 */
export async function pairedRounds(opts: {
  ref: LoadSpec;
  caseSpec: LoadSpec;
  count: number;
  seconds: number;
  warmSeconds: number;
}): Promise<PairedRounds> {
  await runLoad(opts.ref, opts.warmSeconds);
  await runLoad(opts.caseSpec, opts.warmSeconds);
  const rounds: { ref: RunResult; case: RunResult }[] = [];
  for (let i = 0; i < opts.count; i++) {
    const refFirst = i % 2 === 0;
    const first = await runLoad(refFirst ? opts.ref : opts.caseSpec, opts.seconds);
    const second = await runLoad(refFirst ? opts.caseSpec : opts.ref, opts.seconds);
    rounds.push(refFirst ? { ref: first, case: second } : { ref: second, case: first });
  }
  const cases = rounds.map((r) => r.case);
  const worstCpu = cases.reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));
  const cpuRatio = median(rounds.map((r) => r.case.cpuUs / r.ref.cpuUs));
  const rpsRatio = median(rounds.map((r) => r.case.rps / r.ref.rps));
  return {
    rounds,
    figures: {
      rps: Math.min(...cases.map((r) => r.rps)),
      p50ms: Math.max(...cases.map((r) => r.p50ms)),
      p99ms: Math.max(...cases.map((r) => r.p99ms)),
      cpuUs: worstCpu.cpuUs,
      cpuParts: worstCpu.cpuParts,
      shownParts: worstCpu.shownParts,
      perCore: 1e6 / worstCpu.cpuUs,
      refName: opts.ref.name,
      refCpuUs: median(rounds.map((r) => r.ref.cpuUs)),
      cpuRatio,
      rpsRatio,
      errors: rounds.reduce((n, r) => n + r.case.errors + r.ref.errors, 0),
      requests: cases.reduce((n, r) => n + r.requests, 0),
    },
  };
}

/** Worse-of-two figures of case runs against the reference runs either side of each. */
export function figures(runs: RunResult[], refs: RunResult[], refName: string): Figures {
  const worst = (f: (r: RunResult) => number, pick: (...n: number[]) => number) => pick(...runs.map(f));
  const rpsRatios = runs.map((r, i) => r.rps / ((refs[i]!.rps + refs[i + 1]!.rps) / 2));
  const cpuRatios = runs.map((r, i) => r.cpuUs / ((refs[i]!.cpuUs + refs[i + 1]!.cpuUs) / 2));
  const worstCpu = runs.reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));
  const cpuUs = worst((r) => r.cpuUs, Math.max);
  return {
    rps: worst((r) => r.rps, Math.min),
    p50ms: worst((r) => r.p50ms, Math.max),
    p99ms: worst((r) => r.p99ms, Math.max),
    cpuUs,
    cpuParts: worstCpu.cpuParts,
    shownParts: worstCpu.shownParts,
    perCore: 1e6 / cpuUs,
    refName,
    refCpuUs: refs.reduce((n, r) => n + r.cpuUs, 0) / refs.length,
    rpsRatio: Math.min(...rpsRatios),
    cpuRatio: Math.max(...cpuRatios),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    requests: runs.reduce((n, r) => n + r.requests, 0),
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
/** The middle value (the upper one of an even count): the figure of RS3's and MET's interleaved rounds. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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

/** The figures part of a measure's line. */
export function figuresText(f: Figures): string {
  return [
    `${int(f.rps)} req/s`,
    `p50 ${ms(f.p50ms)} ms`,
    `p99 ${ms(f.p99ms)} ms`,
    cpuText(f),
    `= ${int(f.perCore)}/s per core`,
    `| vs ${f.refName} (${int(f.refCpuUs)} µs/req): ${f.rpsRatio.toFixed(3)}× req/s, ${f.cpuRatio.toFixed(2)}× cpu/req`,
    ...(f.errors ? [`| ${f.errors} ERRORS`] : []),
  ].join('  ');
}

/** The summary-table part of an outcome measured against a reference (one row: ours). */
export function summaryOf(f: Figures): Pick<Outcome, 'rows' | 'ratio'> {
  return {
    rows: [{ server: 'ours', rps: f.rps, p50ms: f.p50ms, p99ms: f.p99ms, cpuUs: f.cpuUs }],
    ratio: `${f.cpuRatio.toFixed(2)}× cpu/req, ${f.rpsRatio.toFixed(2)}× req/s of ${f.refName}`,
  };
}

export { int, median, ms };
