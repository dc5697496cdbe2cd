/** Helpers the measures share: the reference load, request lines, and per-core goals. */
import type { Bench, Outcome } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import type { LoadSpec } from '../lib/load.js';
import { figuresText, int, summaryOf, type Figures } from '../lib/report.js';

/** The bare `node:http` reference server as a load target. */
export function bareRef(bench: Bench): LoadSpec {
  return { name: 'bare http', url: bench.bare.url, processes: { node: bench.bare.pid } };
}

/** The form of an introspection as the resource API sends it (client_secret_post, access_token hint). */
function introspectForm(bench: Bench, token: string): Record<string, string> {
  return {
    token,
    token_type_hint: 'access_token',
    client_id: bench.introspector.clientId,
    client_secret: bench.introspector.clientSecret,
  };
}

/** That introspection as a request line. */
export function introspectLine(bench: Bench, token: string): string {
  return formLine('/api/oauth/introspect', introspectForm(bench, token), ['Accept: application/json']);
}

/** PASS when the figures reach `min` requests per core and nothing failed. */
export function perCoreOutcome(f: Figures, min: number, extra: string[] = []): Outcome {
  const ok = f.perCore >= min && f.errors === 0 && extra.every((e) => !e.includes('FAILED'));
  return {
    status: ok ? 'PASS' : 'FAIL',
    text: [figuresText(f), ...extra, `| goal ≥ ${int(min)}/s per core`].join('  '),
    ...summaryOf(f),
    ratio: `${int(f.perCore)}/s per core`,
  };
}

/**
 * A measure whose goal the side-by-side measures hold (AS1's and AS4's goals are P1
 * and P2, ratios to Hydra's and Keycloak's CPU in the same run): its figures, PASS when
 * nothing failed.
 */
export function figuresOnlyOutcome(f: Figures, goalId: string, extra: string[] = []): Outcome {
  const ok = f.errors === 0 && extra.every((e) => !e.includes('FAILED'));
  return {
    status: ok ? 'PASS' : 'FAIL',
    text: [figuresText(f), ...extra, `| goal: see ${goalId}`].join('  '),
    ...summaryOf(f),
  };
}

/** Introspects `token` at `origin` as the resource API does; the parsed JSON answer. */
export async function introspect(
  bench: Bench,
  origin: string,
  token: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(introspectForm(bench, token)),
  });
  return (await res.json()) as Record<string, unknown>;
}
