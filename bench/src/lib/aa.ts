/**
 * Rounds with an A/A (AS2, RS1, MET): three processes, two of them twins (the same code, started
 * alike), loaded in turn round after round; the ratio the goal is on is judged against what the twins
 * differ by in the same rounds (PERFORMANCE.md, "How a goal is judged").
 */
import type { Outcome } from './bench.js';
import { runLoad, type LoadSpec, type RunResult } from './load.js';
import { int, median } from './report.js';

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

/** A ratio judged against the same run's A/A. */
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
