/**
 * Drives load with wrk (one thread, N keep-alive connections) and accounts the servers' CPU for
 * exactly the run: /proc snapshots of every server process right before wrk starts and right after
 * it exits.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuPerRequest, snapshot, type ProcessSet } from './proc.js';

const LUA = fileURLToPath(new URL('../../lua/bench.lua', import.meta.url));

/** What to load and how. */
export interface LoadSpec {
  /** Human name of the target, e.g. "auth (Redis)". */
  name: string;
  /** Origin, e.g. http://127.0.0.1:41234 (paths come from the requests file). */
  url: string;
  /** Request lines (see lua/bench.lua); absent: GET of `url`. */
  requestsFile?: string;
  /** First line to use (rotating pools keep moving forward between runs). */
  start?: number;
  /** Single-use requests: stop when the file is used up. */
  once?: boolean;
  /**
   * The status every answer must have when it is not 2xx or 3xx (e.g. 404 for MEM-API's token
   * checks that stop before any read); answers with another status are the errors then.
   */
  expectStatus?: number;
  connections?: number;
  /** The server processes whose CPU is counted (the goals' "per core"). */
  processes: ProcessSet;
  /** Processes on the path whose CPU is measured and printed but not counted (see PERFORMANCE.md). */
  shown?: ProcessSet;
}

/** One wrk run with its CPU accounting. */
export interface RunResult {
  name: string;
  requests: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** Requests that failed: socket errors, timeouts, HTTP status ≥ 400. */
  errors: number;
  /** Server CPU per completed request, µs: total and by process. */
  cpuUs: number;
  cpuParts: Record<string, number>;
  /** CPU per request of the `shown` processes, µs, by process (not in cpuUs). */
  shownParts: Record<string, number>;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect_errors: number;
  read_errors: number;
  write_errors: number;
  status_errors: number;
  timeouts: number;
  /** Answers whose status was not `expectStatus` (0 without it). */
  unexpected_status: number;
}

function wrk(spec: LoadSpec, seconds: number): Promise<WrkJson> {
  const args = [
    '-t1',
    `-c${spec.connections ?? 50}`,
    `-d${seconds}s`,
    '--timeout',
    '10s',
    '-s',
    LUA,
    spec.url,
  ];
  const env = {
    ...process.env,
    BENCH_REQUESTS: spec.requestsFile ?? '',
    BENCH_START: String(spec.start ?? 0),
    BENCH_ONCE: spec.once ? '1' : '0',
    BENCH_EXPECT_STATUS: spec.expectStatus === undefined ? '' : String(spec.expectStatus),
  };
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('BENCHJSON '));
      if (code !== 0 || !line) {
        reject(new Error(`wrk against ${spec.name} failed (exit ${code}): ${err || out}`));
        return;
      }
      resolve(JSON.parse(line.slice('BENCHJSON '.length)) as WrkJson);
    });
  });
}

/** Runs wrk for `seconds` against `spec`, counting the servers' CPU over the run. */
export async function runLoad(spec: LoadSpec, seconds: number): Promise<RunResult> {
  const before = snapshot(spec.processes);
  const shownBefore = snapshot(spec.shown ?? {});
  const w = await wrk(spec, seconds);
  const after = snapshot(spec.processes);
  const shownAfter = snapshot(spec.shown ?? {});
  const cpu = cpuPerRequest(before, after, w.requests);
  const shown = cpuPerRequest(shownBefore, shownAfter, w.requests);
  const secs = w.duration_us / 1e6;
  if (process.env.BENCH_VERBOSE === '1') {
    const parts = Object.entries(cpu.parts)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(' + ');
    process.stderr.write(
      `      ${spec.name}: ${seconds} s, ${(w.requests / secs).toFixed(0)} req/s, cpu ${cpu.total.toFixed(0)} µs/req (${parts})\n`,
    );
  }
  return {
    name: spec.name,
    requests: w.requests,
    seconds: secs,
    rps: w.requests / secs,
    p50ms: w.p50_us / 1000,
    p99ms: w.p99_us / 1000,
    errors:
      w.connect_errors +
      w.read_errors +
      w.write_errors +
      w.timeouts +
      (spec.expectStatus === undefined ? w.status_errors : w.unexpected_status),
    cpuUs: cpu.total,
    cpuParts: cpu.parts,
    shownParts: shown.parts,
  };
}
