/**
 * What every measure gets (the running stack, run lengths, shared seeded state, helpers to start
 * further servers and write request files), what it returns, and the request lines lua/bench.lua reads.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuthRuntime } from '@school/auth-server/dist/bootstrap.js';
import type { Started } from '#test-support/processes.js';
import type { LoadSpec } from './load.js';
import type { ProcessSet } from './proc.js';

/** SKIP: not applicable in this run (e.g. no peer built). */
export type Status = 'PASS' | 'FAIL' | 'SKIP';

/** Run lengths, seconds. */
export type Durations = Record<'warm' | 'run' | 'ref', number>;

/** One server's figures (the worse run's, as on the measure's line); CPU of the server and its store. */
export type ResultRow = { server: string } & Record<'rps' | 'p50ms' | 'p99ms' | 'cpuUs', number>;

/** What a measure prints (`text`) and records. */
export interface Outcome {
  status: Status;
  text: string;
  /** One row per server loaded, for the results file. */
  rows?: ResultRow[];
  /** The figure its goal is judged on, short (e.g. "1.08× cpu/req, A/A ±4.1 %"). */
  judged?: string;
  /** P1–P3: our CPU per request ÷ each peer's. */
  peerRatios?: Record<string, number>;
}

/** The results file a full run writes (bench/results/results.json); lib/chart.ts draws P1–P3 from it. */
export interface MeasureResult extends Omit<Outcome, 'text'> {
  id: string;
  title: string;
  goal: string;
}

export interface Results {
  /** When the run ended, e.g. "2026-11-27T06:40Z". */
  date: string;
  /** Where the figures come from when not from a run as it wrote them. */
  source?: string;
  seconds?: number;
  /** The bare node:http reference at the run's start: the machine's speed beside the figures. */
  bareHttp?: { rps: number; cpuUs: number };
  measures: MeasureResult[];
}

/** One line of the benchmark: its id, title and goal, and how it runs. */
export interface Measure {
  id: string;
  title: string;
  goal: string;
  run(bench: Bench): Promise<Outcome>;
}

export interface Server extends Started {
  url: string;
}

export interface ResourceApiServer extends Server {
  /** Its inspector port, opened only for MEM-API's full GC (lib/inspector.ts). */
  inspectPort: number;
  env: Record<string, string>;
}

/** The bench's state, shared by all measures. */
export interface Bench {
  root: string;
  /** .data/bench: logs, request files, the dedicated Redis and MongoDB data. */
  dir: string;
  durations: Durations;
  redis: Server;
  authEnv: Record<string, string>;
  auth: Server;
  /** The machine's reference, bare node:http (servers/bare.ts): loaded beside AS5, DCR and LG. */
  bareHttp: LoadSpec;
  /** The auth server's inspector port, opened only for MEM-AS's full GC. */
  authInspectPort: number;
  account: { email: string; password: string };
  /** The auth server's runtime inside the bench process: same storage, for seeding through models. */
  runtime: AuthRuntime;
  /** The CPU-counted processes behind the auth server: node (the auth server) and redis. */
  authProcesses: ProcessSet;
  /** The MongoDB-protocol server, measured but not counted (PERFORMANCE.md says why); empty if external. */
  authShown: ProcessSet;
  /** The resource API in front of the bench's stack, started once per instance (default 0). */
  resourceApi(instance?: number): Promise<ResourceApiServer>;
  /** Another resource API introspecting at `authUrl` (default the auth server), `env` changed. */
  startApi(name: string, authUrl?: string, env?: Record<string, string>): Promise<ResourceApiServer>;
  /** Runs `fn` once per key and shares its result (servers, seeded clients, pools). */
  memo<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Writes a request file for lua/bench.lua; its path. */
  requests(name: string, lines: string[]): string;
  /** Progress on stderr (the measure lines go to stdout). */
  log(message: string): void;
}

/** Writes request lines into DIR/requests/NAME.tsv; its path. */
export function writeRequests(dir: string, name: string, lines: string[]): string {
  const file = join(dir, 'requests', `${name}.tsv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A request line: METHOD, PATH, BODY, headers, tab-separated. */
export function requestLine(method: string, path: string, body: string, headers: string[] = []): string {
  const parts = [method, path, body, ...headers];
  if (parts.some((p) => /[\t\n]/.test(p))) throw new Error('request parts may not contain tabs or newlines');
  return parts.join('\t');
}

export function formLine(path: string, form: Record<string, string>, headers: string[] = []): string {
  const type = 'Content-Type: application/x-www-form-urlencoded';
  return requestLine('POST', path, new URLSearchParams(form).toString(), [type, ...headers]);
}

export function jsonLine(path: string, body: unknown): string {
  const headers = ['Content-Type: application/json', 'Accept: application/json'];
  return requestLine('POST', path, JSON.stringify(body), headers);
}
