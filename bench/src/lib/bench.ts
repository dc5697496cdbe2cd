/**
 * What every measure gets: the running stack (dedicated Redis and MongoDB-protocol server, the auth
 * server as a real process, the bare reference server), run lengths, helpers to write request files
 * and to start further servers, and the shared seeded state (accounts, clients, token pools).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthRuntime } from '@school/auth-server/dist/bootstrap.js';
import type { Started } from '#test-support/processes.js';
import type { ProcessSet } from './proc.js';
import type { Durations } from './report.js';

/** How a measure ended. TODO: a placeholder that does not gate; SKIP: not applicable in this run. */
export type Status = 'PASS' | 'FAIL' | 'TODO' | 'SKIP';

/** What a measure prints: its status and the figures part of its line. */
export interface Outcome {
  status: Status;
  text: string;
  /** Its rows in the closing summary table, one per server loaded (absent: the status only). */
  rows?: SummaryRow[];
  /** The figure its goal is judged on, short, for the summary table (e.g. "0.65× Hydra's cpu/req"). */
  ratio?: string;
}

/** One server's figures in the closing summary table (the worse run's, as on the measure's line). */
export interface SummaryRow {
  server: string;
  rps: number;
  p50ms: number;
  p99ms: number;
  /** CPU per request of the server and its store, µs. */
  cpuUs: number;
}

/** One line of the benchmark. */
export interface Measure {
  /** The goal id, e.g. "AS1". */
  id: string;
  title: string;
  /** The goal in words, printed on the line. */
  goal: string;
  run(bench: Bench): Promise<Outcome>;
  /**
   * Work started in the background when this measure starts, for a measure that judges no CPU: the
   * peers' start-up overlaps MEM-API's presentation of the pool, which only a memory figure follows.
   * Its failure surfaces in the measure that awaits the work, not here.
   */
  overlap?(bench: Bench): void;
  /** Run only when named in BENCH_ONLY (a diagnosis, not a goal of the full run). */
  optIn?: boolean;
}

/** A server started for the bench, with where it listens. */
export interface Server extends Started {
  url: string;
}

/** A resource API process started for the bench (see {@link Bench.resourceApi}). */
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
  mongoUri: string;
  /** The environment of the auth server process (also used to bootstrap the seeding provider). */
  authEnv: Record<string, string>;
  auth: Server;
  /** The auth server's inspector port, opened only for MEM-AS's full GC (lib/inspector.ts). */
  authInspectPort: number;
  bare: Server;
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
  /** Starts (once) the auth server with oidc-provider's memory adapter (AS2's reference). */
  authMemory(): Promise<Server>;
  /**
   * Starts (once per `instance`, default 0) the resource API as the real process,
   * `packages/resource-api/dist/main.js`, production mode, in front of the bench's auth server, Redis
   * and MongoDB; the first start seeds the demo school. RS1–RS3 and MEM-API use instance 0; RV adds 1.
   */
  resourceApi(instance?: number): Promise<ResourceApiServer>;
  /**
   * Starts (once) RS3's floor: a resource API like instance 0 but introspecting at
   * servers/bare-introspection.ts (one Redis read, nothing else), which it also starts.
   */
  bareHopApi(): Promise<{ api: ResourceApiServer; introspection: Server }>;
  /**
   * Starts (once per `name`) another resource API like instance 0, its environment changed by `env`
   * (MET's processes with and without metrics).
   */
  resourceApiWith(name: string, env: Record<string, string>): Promise<ResourceApiServer>;
  /** Runs `fn` once per key and shares its result (seeded clients, pools). */
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
