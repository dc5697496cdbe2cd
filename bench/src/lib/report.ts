/**
 * How a measure's runs become its figures, and the text of its line.
 *
 * Sandwich (RS2): ref, case, ref, case, ref. Each case run is compared with the mean of the reference
 * runs either side of it; of the two case runs the worse value of every figure is reported (lowest
 * throughput and ratio, highest latency and CPU). Without a reference (AS5, DCR, LG, judged on CPU
 * per request alone): the two case runs, the worse figures.
 *
 * Rounds with an A/A (AS2, RS1, MET): three processes, one of them a twin of another, loaded in turn
 * round after round; the ratio is judged against what the twins differ by in the same rounds.
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

/** One round of {@link twinRounds}: a run of each of the three processes. */
export interface TwinRound {
  one: RunResult;
  a: RunResult;
  b: RunResult;
}

/**
 * `one` and the twins `a` and `b` (two processes of the same code, started alike) in `count` rounds of
 * one run each, every round starting with another of the three, after a warm-up of the three at once.
 */
export async function twinRounds(opts: {
  one: LoadSpec;
  a: LoadSpec;
  b: LoadSpec;
  count: number;
  seconds: number;
  warmSeconds: number;
}): Promise<TwinRound[]> {
  const specs = { one: opts.one, a: opts.a, b: opts.b };
  await Promise.all(Object.values(specs).map((s) => runLoad(s, opts.warmSeconds)));
  const rounds: TwinRound[] = [];
  const keys = ['one', 'a', 'b'] as const;
  for (let i = 0; i < opts.count; i++) {
    const round: Partial<TwinRound> = {};
    for (let k = 0; k < 3; k++) {
      const key = keys[(i + k) % 3]!;
      round[key] = await runLoad(specs[key], opts.seconds);
    }
    rounds.push(round as TwinRound);
  }
  return rounds;
}

/** A ratio judged against the same run's A/A (PERFORMANCE.md, "How a goal is judged"). */
export interface AaJudgement {
  /** Median over the rounds of the ratio the goal is on. */
  ratio: number;
  /** Every round's ratio, in order. */
  perRound: number[];
  /** The A/A spread: median over the rounds of |a ÷ b − 1|. */
  spread: number;
  /** The goal widened by the spread: the bound the ratio is judged against. */
  bound: number;
  pass: boolean;
}

/**
 * Judges `rounds` on `metric` (CPU per request or requests/s). `twins: 'case'`: the twins are the case
 * and `one` the reference, the ratio is mean(a, b) ÷ one and must be at most `goal` + spread.
 * `twins: 'ref'`: the twins are the reference, the ratio is one ÷ mean(a, b) and must be at least
 * `goal` − spread. Errors in any run fail it.
 */
export function judgeAgainstAa(
  rounds: TwinRound[],
  metric: (r: RunResult) => number,
  twins: 'case' | 'ref',
  goal: number,
): AaJudgement {
  const perRound = rounds.map((r) => {
    const pair = (metric(r.a) + metric(r.b)) / 2;
    return twins === 'case' ? pair / metric(r.one) : metric(r.one) / pair;
  });
  const ratio = median(perRound);
  const spread = median(rounds.map((r) => Math.abs(metric(r.a) / metric(r.b) - 1)));
  const bound = twins === 'case' ? goal + spread : goal - spread;
  const errors = rounds.reduce((n, r) => n + r.one.errors + r.a.errors + r.b.errors, 0);
  const pass = errors === 0 && (twins === 'case' ? ratio <= bound : ratio >= bound);
  return { ratio, perRound, spread, bound, pass };
}

/** The outcome of a measure judged by {@link judgeAgainstAa}: its line and its summary row. */
export function aaOutcome(
  rounds: TwinRound[],
  j: AaJudgement,
  names: { one: string; twins: string; metric: string },
): Outcome {
  const all = rounds.flatMap((r) => [r.one, r.a, r.b]);
  const errors = all.reduce((n, r) => n + r.errors, 0);
  const cpu = (pick: (r: TwinRound) => RunResult[]) => int(median(rounds.flatMap(pick).map((r) => r.cpuUs)));
  const rps = (pick: (r: TwinRound) => RunResult[]) => int(median(rounds.flatMap(pick).map((r) => r.rps)));
  const worst = (runs: RunResult[]) => runs.reduce((x, y) => (y.cpuUs > x.cpuUs ? y : x));
  const judged = `${j.ratio.toFixed(3)}× ${names.metric}, A/A ±${(j.spread * 100).toFixed(1)} %`;
  return {
    status: j.pass ? 'PASS' : 'FAIL',
    judged,
    rows: [
      { server: names.one, ...worst(rounds.map((r) => r.one)) },
      { server: names.twins, ...worst(rounds.flatMap((r) => [r.a, r.b])) },
    ],
    text: [
      `${names.one} ${rps((r) => [r.one])} req/s, ${cpu((r) => [r.one])} µs/req;`,
      `${names.twins} (two processes) ${rps((r) => [r.a, r.b])} req/s, ${cpu((r) => [r.a, r.b])} µs/req (medians)`,
      `| ${j.ratio.toFixed(3)}× ${names.metric}, median of ${rounds.length} rounds (${j.perRound.map((x) => x.toFixed(3)).join(', ')})`,
      `| A/A: the twins differ by ±${(j.spread * 100).toFixed(1)} % (median), so the bound is ${j.bound.toFixed(3)}×`,
      ...(errors ? [`| ${errors} ERRORS`] : []),
    ].join('  '),
  };
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
/** The middle value (the upper one of an even count). */
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
