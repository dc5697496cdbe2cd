/** Helpers the measures share: the introspection request and per-core goals. */
import type { Bench, Outcome } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import { figuresText, summaryOf, type Figures } from '../lib/report.js';

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

/** PASS when the figures reach `min` requests per core and no check failed. */
export function perCoreOutcome(f: Figures, min: number, checks: string[] = []): Outcome {
  const ok = f.perCore >= min && f.errors === 0 && checks.every((e) => !e.includes('FAILED'));
  return {
    status: ok ? 'PASS' : 'FAIL',
    text: [figuresText(f), ...checks.map((c) => `| ${c}`)].join('  '),
    ...summaryOf(f),
    judged: `${Math.round(f.perCore).toLocaleString('en-US')}/s per core`,
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
