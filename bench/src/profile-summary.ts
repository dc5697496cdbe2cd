/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from BENCH_PROFILE=1 scripts/bench): self time
 * by package or file, and the top functions, as shares of the profile's busy (non-idle) time.
 *
 *   node bench/dist/profile-summary.js .data/bench/profiles/<file>.cpuprofile [top=25]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

// A reader that stops early (`| head`) closes the pipe: that ends the summary, it is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: profile-summary <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

const where = (url: string): string => {
  if (!url) return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const p = url.indexOf('/packages/');
  return p >= 0 ? url.slice(p + 1) : url;
};

let busy = 0;
const byPlace = new Map<string, number>();
const byFn = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const name = n.callFrame.functionName || '(anonymous)';
  if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
    if (name !== '(idle)') {
      byPlace.set(name, (byPlace.get(name) ?? 0) + us);
      busy += us;
    }
    continue;
  }
  busy += us;
  const place = where(n.callFrame.url);
  byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  const fn = `${name}  ${place}:${n.callFrame.lineNumber + 1}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${k}\n`);
  }
};
// Inclusive time by function: a node's self time plus everything it called, counted once per
// function even when it recurses (only the outermost frame of a function counts).
const inclusive = new Map<string, number>();
const key = (n: Node) =>
  `${n.callFrame.functionName || '(anonymous)'}  ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const total = (n: Node, open: Set<string>): number => {
  const k = key(n);
  const outer = !open.has(k);
  if (outer) open.add(k);
  let t = self.get(n.id) ?? 0;
  for (const c of n.children ?? []) t += total(byId.get(c)!, open);
  if (outer) {
    open.delete(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + t);
  }
  return t;
};
const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
for (const n of profile.nodes) if (!childIds.has(n.id)) total(n, new Set());
for (const k of [...inclusive.keys()])
  if (/^\((root|idle|program|garbage collector)\)/.test(k)) inclusive.delete(k);

process.stdout.write(`busy ${(busy / 1e6).toFixed(2)} s of ${file}\n`);
print('self time by package / file', byPlace);
print('self time by function', byFn);
print('inclusive time by function (self + callees)', inclusive);
