/**
 * What every measure gets: the running stack (dedicated Redis and MongoDB-protocol server, the auth
 * server as a real process), run lengths, helpers to write request files
 * and to start further servers, and the shared seeded state (accounts, clients, token pools).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthRuntime } from '@school/auth-server/dist/bootstrap.js';
import type { Started } from '#test-support/processes.js';
import type { ProcessSet } from './proc.js';
import type { Durations } from './report.js';

/** How a measure ended. SKIP: not applicable in this run (e.g. no peer built). */
export type Status = 'PASS' | 'FAIL' | 'SKIP';

/** What a measure prints and records. */
export interface Outcome {
  status: Status;
  /** The figures part of its line. */
  text: string;
  /** One row per server loaded, for the results file (absent: the status only). */
  rows?: ResultRow[];
  /** The figure its goal is judged on, short (e.g. "1.08× cpu/req, A/A ±4.1 %"). */
  judged?: string;
  /** P1–P3: our CPU per request ÷ each peer's, the ratio the goal is judged on. */
  peerRatios?: Record<string, number>;
}

/** One server's figures (the worse run's, as on the measure's line). */
export interface ResultRow {
  server: string;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** CPU per request of the server and its store, µs. */
  cpuUs: number;
}

/** One line of the benchmark. */
export interface Measure {
  /** The goal's id, e.g. "AS2". */
  id: string;
  title: string;
  /** The goal in words. */
  goal: string;
  run(bench: Bench): Promise<Outcome>;
  /**
   * Work started in the background when this measure starts, for a measure that judges no CPU: the
   * peers' start-up overlaps MEM-API's presentation of the pool, which only a memory figure follows.
   * Its failure surfaces in the measure that awaits the work, not here.
   */
  overlap?(bench: Bench): void;
}

/** A server started for the bench, with where it listens. */
export interface Server extends Started {
  url: string;
}

/** A resource API process started for the bench. */
export interface ResourceApiServer extends Server {
  /** Its inspector port, opened only for MEM-API's full GC (lib/inspector.ts). */
  inspectPort: number;
  /** The environment it was started with (its settings, e.g. INTROSPECTION_CACHE_SIZE, come from it). */
  env: Record<string, string>;
}

/** The bench's state, shared by all measures. */
export interface Bench {
  root: string;
  /** .data/bench: logs, request files, the dedicated Redis and MongoDB data. */
  dir: string;
  durations: Durations;
  redis: Server;
  /** Absent when BENCH_MONGODB_URI points at an external server (its CPU is then not counted). */
  mongo?: Server;
  /** The environment of the auth server process (also used to bootstrap the seeding provider). */
  authEnv: Record<string, string>;
  auth: Server;
  /** The auth server's inspector port, opened only for MEM-AS's full GC (lib/inspector.ts). */
  authInspectPort: number;
  account: { email: string; password: string };
  introspector: { clientId: string; clientSecret: string };
  /** The auth server's runtime inside the bench process: same storage, for seeding through models. */
  runtime: AuthRuntime;
  /** The CPU-counted processes behind the auth server: node (the auth server) and redis. */
  authProcesses(): ProcessSet;
  /**
   * Processes on the auth server's path whose CPU is printed but not counted: mongo, the dedicated
   * MongoDB-protocol server (FerretDB here, a development stand-in for MongoDB; see PERFORMANCE.md).
   */
  authShown(): ProcessSet;
  /**
   * Starts (once per `instance`, default 0) the resource API as the real process in front of the
   * bench's auth server, Redis and MongoDB. RS1–RS3 and MEM-API use instance 0; RV adds 1.
   */
  resourceApi(instance?: number): Promise<ResourceApiServer>;
  /**
   * Starts another resource API like instance 0, introspecting at `authUrl` (default the auth server)
   * with its environment changed by `env` (MET's processes, RS3's floor).
   */
  startApi(name: string, authUrl?: string, env?: Record<string, string>): Promise<ResourceApiServer>;
  /** Runs `fn` once per key and shares its result (servers, seeded clients, pools). */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Writes a request file for lua/bench.lua and returns its path. */
  requests(name: string, lines: string[]): string;
  /** Progress on stderr (the measure lines go to stdout). */
  log(message: string): void;
}

/** Writes request lines into DIR/requests/NAME.tsv. */
export function writeRequests(dir: string, name: string, lines: string[]): string {
  const folder = join(dir, 'requests');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}.tsv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const FORM = 'Content-Type: application/x-www-form-urlencoded';

/** A request line: METHOD, PATH, BODY, headers. */
export function requestLine(method: string, path: string, body: string, headers: string[] = []): string {
  for (const part of [method, path, body, ...headers]) {
    if (/[\t\n]/.test(part)) throw new Error('request parts may not contain tabs or newlines');
  }
  return [method, path, body, ...headers].join('\t');
}

/** A form POST line. */
export function formLine(path: string, form: Record<string, string>, headers: string[] = []): string {
  return requestLine('POST', path, new URLSearchParams(form).toString(), [FORM, ...headers]);
}

/** A JSON POST line. */
export function jsonLine(path: string, body: unknown): string {
  return requestLine('POST', path, JSON.stringify(body), [
    'Content-Type: application/json',
    'Accept: application/json',
  ]);
}
