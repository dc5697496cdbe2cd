/** What the auth server's measures share: its load spec, the introspection request, per-core goals. */
import { postForm } from '#test-support/oauth-flow.js';
import { join } from 'node:path';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import type { Bench, Measure, Outcome, Server } from '../lib/bench.js';
import { startNode } from '../lib/stack.js';
import { formLine } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import { runText, sandwich, type Sandwich } from '../lib/report.js';

/**
 * The reference of AS5 and DCR: the auth server on oidc-provider's memory adapter
 * (servers/auth-memory.ts), one process for the run, its own origin; its CPU and Redis's counted.
 */
export function memoryReference(bench: Bench): Promise<Server> {
  return bench.memo('auth-memory-reference', () =>
    startNode(bench.dir, 'auth-memory-reference', join(bench.root, 'bench/dist/servers/auth-memory.js'), {
      flags: [...AUTH_SERVER_NODE_FLAGS],
      env: (port, url) => ({ ...bench.authEnv, AUTH_PORT: String(port), BASE_URL: url }),
    }),
  );
}

/** A load on the auth server (`url`, default the main one), its CPU and its store's counted as usual. */
export function authSpec(bench: Bench, name: string, requestsFile: string, extra: Partial<LoadSpec> = {}) {
  return {
    name,
    url: bench.auth.url,
    requestsFile,
    processes: bench.authProcesses,
    shown: bench.authShown,
    ...extra,
  };
}

/** The form of an introspection as the resource API sends it (client_secret_post, access_token hint). */
function introspectForm(bench: Bench, token: string): Record<string, string> {
  const { INTROSPECTION_CLIENT_ID: client_id, INTROSPECTION_CLIENT_SECRET: client_secret } = bench.authEnv;
  return { token, token_type_hint: 'access_token', client_id: client_id!, client_secret: client_secret! };
}

export function introspectLine(bench: Bench, token: string): string {
  return formLine('/api/oauth/introspect', introspectForm(bench, token), ['Accept: application/json']);
}

/** Introspects `token` at `origin` as the resource API does; the parsed JSON answer. */
export async function introspect(bench: Bench, origin: string, token: string) {
  const form = introspectForm(bench, token);
  return (await postForm(`${origin}/api/oauth/introspect`, form, { accept: 'application/json' })).body ?? {};
}

/**
 * PASS when the case's CPU per request is at most `max` times the reference's (`refName`), measured
 * either side of each case run (the worse of the two ratios), without errors or a FAILED check.
 */
export function againstReferenceOutcome(
  { worst, cpuRatio, refs }: Sandwich,
  refName: string,
  max: number,
  checks: string[] = [],
): Outcome {
  const errors = worst.errors + refs.reduce((n, r) => n + r.errors, 0);
  const ok = cpuRatio <= max && errors === 0 && checks.every((c) => !c.includes('FAILED'));
  const digits = cpuRatio < 10 ? 2 : 0;
  const refCpu = refs.map((r) => r.cpuUs.toFixed(r.cpuUs < 100 ? 1 : 0)).join(', ');
  return {
    status: ok ? 'PASS' : 'FAIL',
    text: runText({ ...worst, errors }, [
      `| ${cpuRatio.toFixed(digits)}× ${refName}'s cpu/req (${refCpu} µs in its runs either side)`,
      ...checks.map((c) => `| ${c}`),
    ]),
    rows: [{ server: 'ours', ...worst }],
    judged: `${cpuRatio.toFixed(digits)}× ${refName} cpu/req`,
  };
}

/** What a measure against the memory adapter loads: the same requests, made for each origin. */
export interface MemoryAdapterLoad {
  /** The requests file for `origin`, and what was checked of an answer there (outside the runs). */
  (bench: Bench, origin: string, side: 'ours' | 'memory'): Promise<{ file: string; checks?: string[] }>;
}

/**
 * A measure of `name` on the main auth server against the memory-adapter reference (servers/auth-memory.ts),
 * loaded either side of each run: passes while its CPU per request is at most `goal` times the reference's.
 */
export function againstMemoryAdapter(
  m: { id: string; title: string; name: string; goal: number },
  load: MemoryAdapterLoad,
): Measure {
  return {
    id: m.id,
    title: m.title,
    goal: `≤ ${m.goal}× the memory adapter's cpu/req`,
    async run(bench) {
      const memory = await memoryReference(bench);
      const ours = await load(bench, bench.auth.url, 'ours');
      const reference = await load(bench, memory.url, 'memory');
      const spec = authSpec(bench, m.name, ours.file);
      const ref = authSpec(bench, `${m.name} (memory adapter)`, reference.file, {
        url: memory.url,
        processes: { node: memory.pid, redis: bench.redis.pid },
      });
      const s = await sandwich({ durations: bench.durations, caseSpec: () => spec, ref });
      const checks = [...(ours.checks ?? []), ...(reference.checks ?? [])];
      return againstReferenceOutcome(s, 'the memory adapter', m.goal, checks);
    },
  };
}
