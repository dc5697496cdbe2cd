/**
 * Drives load with wrk (one thread, N keep-alive connections, lua/bench.lua) and accounts the
 * servers' CPU for exactly the run: /proc snapshots right before wrk starts and right after it exits.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cpuPerRequest, snapshot, type ProcessSet } from './proc.js';

const LUA = fileURLToPath(new URL('../../lua/bench.lua', import.meta.url));

export interface LoadSpec {
  /** Human name of the target, e.g. "auth (Redis)". */
  name: string;
  /** Origin (paths come from the requests file). */
  url: string;
  /** Request lines (see lua/bench.lua); absent: GET of `url`. */
  requestsFile?: string;
  /** First line to use (rotating pools keep moving forward between runs). */
  start?: number;
  /** Single-use requests: stop when the file is used up. */
  once?: boolean;
  /** The status every answer must have when not 2xx/3xx (MEM-API's 404s); others are the errors then. */
  expectStatus?: number;
  connections?: number;
  /** The server processes whose CPU is counted (the goals' "per core"). */
  processes: ProcessSet;
  /** Processes on the path whose CPU is printed but not counted (see PERFORMANCE.md). */
  shown?: ProcessSet;
}

/** One wrk run with its CPU accounting (µs per completed request, in total and by process). */
export interface RunResult {
  name: string;
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** Socket errors, timeouts, HTTP status ≥ 400 (or other than `expectStatus`). */
  errors: number;
  cpuUs: number;
  cpuParts: Record<string, number>;
  shownParts: Record<string, number>;
}

/** lua/bench.lua's summary: counts, and latencies in µs. */
type WrkField = 'requests' | 'duration_us' | 'p50_us' | 'p99_us' | 'timeouts' | 'status_errors';
type WrkJson = Record<
  WrkField | 'unexpected_status' | 'connect_errors' | 'read_errors' | 'write_errors',
  number
>;

async function wrk(spec: LoadSpec, seconds: number): Promise<WrkJson> {
  const args = ['-t1', `-c${spec.connections ?? 50}`, `-d${seconds}s`, '--timeout', '10s', '-s', LUA];
  const env = {
    ...process.env,
    BENCH_REQUESTS: spec.requestsFile ?? '',
    BENCH_START: String(spec.start ?? 0),
    BENCH_ONCE: spec.once ? '1' : '0',
    BENCH_EXPECT_STATUS: spec.expectStatus === undefined ? '' : String(spec.expectStatus),
  };
  const { stdout } = await promisify(execFile)('wrk', [...args, spec.url], { env, maxBuffer: 1 << 24 });
  const line = stdout.split('\n').find((l) => l.startsWith('BENCHJSON '));
  if (!line) throw new Error(`wrk against ${spec.name} printed no result: ${stdout}`);
  return JSON.parse(line.slice('BENCHJSON '.length)) as WrkJson;
}

/** Runs wrk for `seconds` against `spec`, counting the servers' CPU over the run. */
export async function runLoad(spec: LoadSpec, seconds: number): Promise<RunResult> {
  const before = [snapshot(spec.processes), snapshot(spec.shown ?? {})] as const;
  const w = await wrk(spec, seconds);
  const cpu = cpuPerRequest(before[0], snapshot(spec.processes), w.requests);
  const shown = cpuPerRequest(before[1], snapshot(spec.shown ?? {}), w.requests);
  const rps = w.requests / (w.duration_us / 1e6);
  if (process.env.BENCH_VERBOSE === '1') {
    const parts = Object.entries(cpu.parts).map(([k, v]) => `${k} ${v.toFixed(0)}`);
    const figures = `${rps.toFixed(0)} req/s, cpu ${cpu.total.toFixed(0)} µs/req (${parts.join(' + ')})`;
    process.stderr.write(`      ${spec.name}: ${seconds} s, ${figures}\n`);
  }
  const statusErrors = spec.expectStatus === undefined ? w.status_errors : w.unexpected_status;
  return {
    name: spec.name,
    requests: w.requests,
    rps,
    p50ms: w.p50_us / 1000,
    p99ms: w.p99_us / 1000,
    errors: w.connect_errors + w.read_errors + w.write_errors + w.timeouts + statusErrors,
    cpuUs: cpu.total,
    cpuParts: cpu.parts,
    shownParts: shown.parts,
  };
}
