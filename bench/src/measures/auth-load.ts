/** What the auth server's measures share: its load spec, the introspection request, per-core goals. */
import { postForm } from '#test-support/oauth-flow.js';
import type { Bench, Outcome } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import { int, runText, type Sandwich } from '../lib/report.js';

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

/** PASS when the worse run reaches `min` requests per core, without errors or a FAILED check. */
export function perCoreOutcome({ worst }: Sandwich, min: number, checks: string[] = []): Outcome {
  const perCore = 1e6 / worst.cpuUs;
  const ok = perCore >= min && worst.errors === 0 && checks.every((c) => !c.includes('FAILED'));
  return {
    status: ok ? 'PASS' : 'FAIL',
    text: runText(
      worst,
      checks.map((c) => `| ${c}`),
    ),
    rows: [{ server: 'ours', ...worst }],
    judged: `${int(perCore)}/s per core`,
  };
}
