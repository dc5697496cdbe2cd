/**
 * P1–P3: our CPU per request against Ory Hydra's and Keycloak's, same machine, same run, same load
 * generator (wrk, 1 thread, 50 keep-alive connections), same token count.
 *
 * The servers are warmed up together (WARM_S: the JVM's JIT needs more than our 3 s, and every server
 * gets the same), then loaded in turn, ours, Hydra, Keycloak, twice, RUN_S seconds each. Of each
 * server's two runs the worse figure is printed, and the ratio that decides the goal is the worse of
 * the two rounds' ratios (ours ÷ the peer's CPU per request, each round's runs side by side). The
 * goals are won by factors of 3 to 30, so two short rounds decide them.
 */
import type { Bench, Measure, Outcome } from '../lib/bench.js';
import { runLoad, type RunResult } from '../lib/load.js';
import { TICKS_PER_SECOND } from '../lib/proc.js';
import { cpuText, int, ms } from '../lib/report.js';
import { peerSet } from './peer-set.js';
import type { PeerLoad, PeerTarget } from './peer.js';

type Kind = 'introspection' | 'refresh' | 'registration';

const WARM_S = 8;
const RUN_S = 4;
const INDENT = ' '.repeat(8);

/** One run at `t`, its store's process tree (if any) counted with its processes. */
async function measured(t: PeerTarget, load: PeerLoad, seconds: number): Promise<RunResult> {
  const requestsFile = load.renew ? await load.renew() : load.requestsFile;
  const before = t.tree?.ticks() ?? 0;
  const spec = { name: t.name, url: load.url, requestsFile, processes: t.processes, shown: t.shown };
  const r = await runLoad(spec, seconds);
  if (!t.tree) return r;
  const us = ((t.tree.ticks() - before) * 1e6) / TICKS_PER_SECOND / Math.max(r.requests, 1);
  return { ...r, cpuUs: r.cpuUs + us, cpuParts: { ...r.cpuParts, [t.tree.name]: us } };
}

/** The worse of a server's runs: lowest throughput, highest latency and CPU. */
function worse(runs: RunResult[]): RunResult {
  const cpu = runs.reduce((a, b) => (b.cpuUs > a.cpuUs ? b : a));
  return {
    ...cpu,
    rps: Math.min(...runs.map((r) => r.rps)),
    p50ms: Math.max(...runs.map((r) => r.p50ms)),
    p99ms: Math.max(...runs.map((r) => r.p99ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

function serverLine(name: string, r: RunResult): string {
  return [
    `${name.padEnd(9)} ${int(r.rps)} req/s`,
    `p50 ${ms(r.p50ms)} ms`,
    `p99 ${ms(r.p99ms)} ms`,
    cpuText(r),
    `= ${int(1e6 / r.cpuUs)}/s per core`,
    ...(r.errors ? [`| ${r.errors} ERRORS`] : []),
  ].join('  ');
}

/** Loads every server that has `kind`, in turn, twice: one line each, the ratios, the verdict. */
async function sideBySide(
  bench: Bench,
  kind: Kind,
  goals: Record<string, number>,
  last: boolean,
): Promise<Outcome> {
  const set = await peerSet(bench);
  const skipped = [...set.skipped];
  const loaded: [PeerTarget, PeerLoad][] = [];
  for (const t of set.targets) {
    const load = t[kind];
    if ('url' in load) loaded.push([t, load]);
    else skipped.push(`${t.name}: ${load.unsupported}`);
  }
  try {
    if (loaded.length < 2) return { status: 'SKIP', text: `nothing to compare with: ${skipped.join('; ')}` };
    await Promise.all(loaded.map(([t, load]) => measured(t, load, WARM_S)));
    const runs = new Map<string, RunResult[]>(loaded.map(([t]) => [t.name, []]));
    for (let round = 0; round < 2; round++) {
      for (const [t, load] of loaded) runs.get(t.name)!.push(await measured(t, load, RUN_S));
    }
    const ours = runs.get('ours')!;
    let ok = [...runs.values()].every((rs) => rs.every((r) => r.errors === 0));
    const peerRatios: Record<string, number> = {};
    const ratios: string[] = [];
    for (const [t] of loaded.slice(1)) {
      const theirs = runs.get(t.name)!;
      const cpu = Math.max(...ours.map((r, i) => r.cpuUs / theirs[i]!.cpuUs));
      const rps = Math.min(...ours.map((r, i) => r.rps / theirs[i]!.rps));
      peerRatios[t.name] = cpu;
      ok &&= cpu <= goals[t.name]!;
      ratios.push(
        `ours ÷ ${t.name}: ${cpu.toFixed(2)}× cpu/req, ${rps.toFixed(2)}× req/s (goal ≤ ${goals[t.name]}×)`,
      );
    }
    const tail = [
      ratios.join('  |  '),
      ...skipped.map((s) => `skipped: ${s}`),
      ...(kind === 'introspection' ? loaded.map(([t]) => `${t.name}: ${t.label}`) : []),
      ...loaded.map(([t]) => t.notes[kind] ?? ''),
    ].filter(Boolean);
    return {
      status: ok ? 'PASS' : 'FAIL',
      text: [...loaded.map(([t]) => serverLine(t.name, worse(runs.get(t.name)!))), ...tail].join(
        `\n${INDENT}`,
      ),
      rows: loaded.map(([t]) => ({ server: t.name, ...worse(runs.get(t.name)!) })),
      judged: Object.entries(peerRatios)
        .map(([name, r]) => `ours ÷ ${name} ${r.toFixed(2)}× cpu/req`)
        .join(', '),
      peerRatios,
    };
  } finally {
    if (last) await set.stop();
  }
}

export const p1: Measure = {
  id: 'P1',
  title: 'introspection CPU per request, side by side',
  goal: "≤ Hydra's, ≤ ½ Keycloak's",
  run: (bench) => sideBySide(bench, 'introspection', { hydra: 1, keycloak: 0.5 }, false),
};

export const p2: Measure = {
  id: 'P2',
  title: 'refresh_token grant CPU per request, side by side',
  goal: "≤ Hydra's, ≤ ½ Keycloak's",
  run: (bench) => sideBySide(bench, 'refresh', { hydra: 1, keycloak: 0.5 }, false),
};

export const p3: Measure = {
  id: 'P3',
  title: 'registration CPU per request, side by side',
  goal: "≤ each peer's with open registration",
  run: (bench) => sideBySide(bench, 'registration', { hydra: 1, keycloak: 1 }, true),
};
