/**
 * P1–P3: our CPU per request beside Ory Hydra's and Keycloak's, same run, same wrk: warmed up together,
 * then ours, Hydra, Keycloak, twice; the goal's ratio is the worse of the two rounds'.
 */
import type { Bench, Measure, Outcome } from '../lib/bench.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { runText, worse } from '../lib/report.js';
import { peerSet } from './peer-set.js';
import type { Kind, PeerLoad, PeerTarget } from './peer.js';

const WARM_S = 8;
const RUN_S = 4;

/** One run at `t` of `load`, with fresh requests first if it needs them. */
async function measured(t: PeerTarget, load: PeerLoad, seconds: number): Promise<RunResult> {
  const requestsFile = load.renew ? await load.renew() : load.requestsFile;
  const { name, processes, shown } = t;
  return runLoad({ name, url: load.url, requestsFile, processes, shown }, seconds);
}

/** Loads every server, in turn, twice on `kind`: one line each, the ratios, the verdict. */
async function sideBySide(bench: Bench, kind: Kind, goals: Record<string, number>): Promise<Outcome> {
  const { targets, skipped, stop } = await peerSet(bench);
  try {
    if (targets.length < 2) return { status: 'SKIP', text: `nothing to compare with: ${skipped.join('; ')}` };
    await Promise.all(targets.map((t) => measured(t, t[kind], WARM_S)));
    const runs = targets.map((): RunResult[] => []);
    for (let round = 0; round < 2; round++) {
      for (const [i, t] of targets.entries()) runs[i]!.push(await measured(t, t[kind], RUN_S));
    }
    const [ours, ...peers] = runs as [RunResult[], ...RunResult[][]];
    let ok = runs.flat().every((r) => r.errors === 0);
    const peerRatios: Record<string, number> = {};
    const ratios = peers.map((theirs, p) => {
      const name = targets[p + 1]!.name;
      const cpu = Math.max(...ours.map((r, i) => r.cpuUs / theirs[i]!.cpuUs));
      const rps = Math.min(...ours.map((r, i) => r.rps / theirs[i]!.rps));
      peerRatios[name] = cpu;
      ok &&= cpu <= goals[name]!;
      return `ours ÷ ${name}: ${cpu.toFixed(2)}× cpu/req, ${rps.toFixed(2)}× req/s (goal ≤ ${goals[name]}×)`;
    });
    const lines = [
      ...targets.map((t, i) => `${t.name.padEnd(9)} ${runText(worse(runs[i]!))}`),
      ratios.join('  |  '),
      ...skipped.map((s) => `skipped: ${s}`),
      ...(kind === 'introspection' ? targets.map((t) => `${t.name}: ${t.label}`) : []),
      ...targets.map((t) => t.notes[kind] ?? ''),
    ];
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: lines.filter(Boolean).join(`\n${' '.repeat(8)}`),
      rows: targets.map((t, i) => ({ server: t.name, ...worse(runs[i]!) })),
      judged: Object.entries(peerRatios)
        .map(([name, r]) => `ours ÷ ${name} ${r.toFixed(2)}× cpu/req`)
        .join(', '),
      peerRatios,
    };
  } finally {
    if (kind === 'registration') await stop(); // P3, the last
  }
}

const halfKeycloak = "≤ Hydra's, ≤ ½ Keycloak's";
const eachPeer = "≤ each peer's with open registration";
const peerMeasure = (id: string, title: string, kind: Kind, goal: string, keycloak: number): Measure => ({
  id,
  title: `${title} CPU per request, side by side`,
  goal,
  run: (bench) => sideBySide(bench, kind, { hydra: 1, keycloak }),
});

export const p1 = peerMeasure('P1', 'introspection', 'introspection', halfKeycloak, 0.5);
export const p2 = peerMeasure('P2', 'refresh_token grant', 'refresh', halfKeycloak, 0.5);
export const p3 = peerMeasure('P3', 'registration', 'registration', eachPeer, 1);
