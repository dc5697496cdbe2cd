/**
 * CPU and memory of running processes, from /proc (Linux only).
 *
 * CPU is utime + stime of the whole thread group (the main thread, libuv's pool, Redis's I/O and
 * fsync threads), in clock ticks (USER_HZ, 100 on Linux). Summed over the server processes and
 * divided by the completed requests, it gives "server CPU per request", which is far steadier than
 * requests/s on a shared, noisy machine.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on every Linux we run on). */
export const TICKS_PER_SECOND = 100;

/** utime + stime of one process, in ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Field 2 (comm) may contain spaces and parentheses: split after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (field 14) is fields[11] and stime (field 15) fields[12].
  return Number(fields[11]) + Number(fields[12]);
}

/** Resident set size of one process, in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : NaN;
}

/** A named group of processes whose CPU is counted together ("node", "redis", "mongo"). */
export type ProcessSet = Record<string, number | undefined>;

/** CPU ticks of every process of the set, by name. */
export function snapshot(set: ProcessSet): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(set)) if (pid) out[name] = cpuTicks(pid);
  return out;
}

/** Microseconds of CPU per request, by process and in total, between two snapshots. */
export function cpuPerRequest(
  before: Record<string, number>,
  after: Record<string, number>,
  requests: number,
): { total: number; parts: Record<string, number> } {
  const parts: Record<string, number> = {};
  let total = 0;
  for (const name of Object.keys(before)) {
    const us = (((after[name] ?? 0) - before[name]!) * 1e6) / TICKS_PER_SECOND / Math.max(requests, 1);
    parts[name] = us;
    total += us;
  }
  return { total, parts };
}
