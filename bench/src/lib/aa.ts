/**
 * Rounds with an A/A (AS2, RS1, MET): one process and two twins of the other side's code, warmed
 * up together, then loaded in turn; the goal's ratio is judged against what the twins differ by.
 */
import type { Outcome } from './bench.js';
import { runLoad, type LoadSpec, type RunResult } from './load.js';
import { int, median, mostCpu, sum } from './report.js';

const ROUNDS = 5;
const RUN_S = 3;

/**
 * `twins: 'case'`: the twins are the case and `one` the reference; the ratio, mean(a, b) ÷ one on
 * `metric`, must be at most `goal` + spread. `twins: 'ref'`: the ratio is one ÷ mean(a, b) and must
 * be at least `goal` − spread. The spread: the median over the rounds of |a ÷ b − 1|. Errors fail it.
 */
export async function judgeAgainstAa(opts: {
  one: LoadSpec;
  a: LoadSpec;
  b: LoadSpec;
  warmSeconds: number;
  metric: 'cpuUs' | 'rps';
  twins: 'case' | 'ref';
  goal: number;
  names: { one: string; twins: string; metric: string };
}): Promise<Outcome> {
  const specs = [opts.one, opts.a, opts.b];
  await Promise.all(specs.map((s) => runLoad(s, opts.warmSeconds)));
  const rounds: RunResult[][] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round: RunResult[] = [];
    for (let k = 0; k < 3; k++) round[(i + k) % 3] = await runLoad(specs[(i + k) % 3]!, RUN_S);
    rounds.push(round);
  }
  const m = (r: RunResult) => r[opts.metric];
  const perRound = rounds.map(([one, a, b]) => {
    const pair = (m(a!) + m(b!)) / 2;
    return opts.twins === 'case' ? pair / m(one!) : m(one!) / pair;
  });
  const ratio = median(perRound);
  const spread = median(rounds.map(([, a, b]) => Math.abs(m(a!) / m(b!) - 1)));
  const bound = opts.twins === 'case' ? opts.goal + spread : opts.goal - spread;
  const errors = sum(rounds.flat().map((r) => r.errors));
  const pass = errors === 0 && (opts.twins === 'case' ? ratio <= bound : ratio >= bound);
  const ones = rounds.map((r) => r[0]!);
  const twins = rounds.flatMap((r) => r.slice(1));
  const medians = (runs: RunResult[]) =>
    `${int(median(runs.map((r) => r.rps)))} req/s, ${int(median(runs.map((r) => r.cpuUs)))} µs/req`;
  const { names } = opts;
  return {
    status: pass ? 'PASS' : 'FAIL',
    judged: `${ratio.toFixed(3)}× ${names.metric}, A/A ±${(spread * 100).toFixed(1)} %`,
    rows: [
      { server: names.one, ...mostCpu(ones) },
      { server: names.twins, ...mostCpu(twins) },
    ],
    text: [
      `${names.one} ${medians(ones)};`,
      `${names.twins} (two processes) ${medians(twins)} (medians)`,
      `| ${ratio.toFixed(3)}× ${names.metric}, median of ${ROUNDS} rounds (${perRound.map((x) => x.toFixed(3)).join(', ')})`,
      `| A/A: the twins differ by ±${(spread * 100).toFixed(1)} % (median), so the bound is ${bound.toFixed(3)}×`,
      ...(errors ? [`| ${errors} ERRORS`] : []),
    ].join('  '),
  };
}
