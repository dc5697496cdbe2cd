/**
 * CPU (utime + stime of the whole thread group) and memory of running processes, from /proc. Summed
 * over the servers and divided by the completed requests: CPU per request, steady on a noisy machine.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

/** /proc/<pid>/stat from field 3 on: utime is [11], stime [12], cutime [13], cstime [14]. */
export function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) may contain spaces and parentheses: split after its closing parenthesis.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of one process, in ticks. */
export function cpuTicks(pid: number): number {
  const f = statFields(pid);
  return Number(f[11]) + Number(f[12]);
}

/** The pids of `pid`'s live children. */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
}

/** Resident set size of one process, in bytes. */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** Named processes whose CPU is counted together ("node", "redis"): a pid, or a process tree's ticks. */
export type ProcessSet = Record<string, number | (() => number) | undefined>;

/** CPU ticks of every process of the set, by name. */
export function snapshot(set: ProcessSet): Record<string, number> {
  const ticks = (p: number | (() => number)) => (typeof p === 'number' ? cpuTicks(p) : p());
  return Object.fromEntries(Object.entries(set).flatMap(([k, p]) => (p ? [[k, ticks(p)]] : [])));
}

/** Microseconds of CPU per request, by process and in total, between two snapshots. */
export function cpuPerRequest(before: Record<string, number>, after: typeof before, requests: number) {
  const parts: Record<string, number> = {};
  for (const [k, t] of Object.entries(before)) {
    parts[k] = (((after[k] ?? 0) - t) * 1e6) / TICKS_PER_SECOND / Math.max(requests, 1);
  }
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}
