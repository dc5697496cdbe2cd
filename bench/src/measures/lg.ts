/**
 * LG: login form submissions with the production argon2id parameters, each on an interaction prepared
 * beforehand (not counted), 8 at a time; and the stored hash checked against OWASP's minimum.
 */
import { formAction, inputValue, openSignInFrom } from '#test-support/form-browser.js';
import { REDIRECT, type OAuthClient } from '#test-support/oauth-flow.js';
import { formLine, type Bench, type Measure } from '../lib/bench.js';
import { runLoad } from '../lib/load.js';
import { sandwich } from '../lib/report.js';
import { register } from '../lib/seed.js';
import { againstReferenceOutcome, authSpec } from './auth-load.js';

/** CPU per login at most this many times bare node:http's, same run (PERFORMANCE.md: how it was set). */
const GOAL = 3000;
const CONNECTIONS = 8;

/** OWASP Password Storage Cheat Sheet, argon2id: equivalent (memory KiB, iterations) settings, p=1. */
const OWASP_ARGON2ID = [
  [47104, 1],
  [19456, 2],
  [12288, 3],
  [9216, 4],
  [7168, 5],
] as const;

/** Checks a PHC string like `$argon2id$v=19$m=19456,p=1,t=2$…` against OWASP's minimum. */
export function owaspCheck(phc: string): string {
  const m = /^\$(argon2(?:id|i|d))\$v=\d+\$([a-z]=\d+(?:,[a-z]=\d+)*)\$/.exec(phc);
  if (!m) return 'FAILED: the stored hash is not an argon2 PHC string';
  const p = Object.fromEntries(m[2]!.split(',').map((kv) => [kv[0]!, Number(kv.slice(2))]));
  const [mem, t, par] = [p.m ?? 0, p.t ?? 0, p.p ?? 0];
  const params = `${m[1]} m=${mem} KiB t=${t} p=${par}`;
  const ok = m[1] === 'argon2id' && par >= 1 && OWASP_ARGON2ID.some(([m, it]) => mem >= m && t >= it);
  return ok ? `${params} ≥ OWASP` : `FAILED: ${params} is below OWASP's argon2id minimum`;
}

/** A fresh authorization (a new browser, no session) up to its login page: the form's submission line. */
async function loginLine(bench: Bench, client: OAuthClient): Promise<string> {
  const origin = bench.auth.url;
  const opened = { clientId: client.clientId, redirectUri: REDIRECT };
  const { browser, page } = await openSignInFrom(origin, opened, '127.0.0.1');
  const path = formAction(page.body, '/login');
  const csrf = inputValue(page.body, 'csrf');
  if (!path || !csrf) throw new Error(`no login form: ${page.status} ${page.body.slice(0, 200)}`);
  const { email, password } = bench.account;
  const cookie = await browser.cookieHeader(path);
  return formLine(path, { csrf, email, password }, [`Cookie: ${cookie}`, `Origin: ${origin}`]);
}

/** `n` prepared logins, four at a time, as a request file. */
async function prepare(bench: Bench, client: OAuthClient, n: number): Promise<string> {
  const lines: string[] = [];
  const worker = async () => {
    while (lines.length < n) lines.push(await loginLine(bench, client));
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return bench.requests(`logins-${Date.now()}`, lines.slice(0, n));
}

export const lg: Measure = {
  id: 'LG',
  title: 'login form submissions (argon2id)',
  goal: `≤ ${GOAL}× bare node:http's cpu/req, hash ≥ OWASP minimum`,
  async run(bench) {
    const stored = await bench.runtime.mongo.db
      ?.collection('accounts')
      .findOne({ email: bench.account.email });
    const checks = [owaspCheck(String(stored?.passwordHash ?? ''))];
    const client = await register(bench.auth.url, 'bench login app');
    const spec = (file: string) => authSpec(bench, 'login', file, { once: true, connections: CONNECTIONS });
    const { warm, run } = bench.durations;
    // Each run's batch is sized from the warm-up's rate (wrk runs its full duration even once a batch
    // is used up, so requests / duration is the rate, doubled when the warm-up's batch ran out).
    bench.log('LG: warming up');
    const warmBatch = 150;
    const w = await runLoad(spec(await prepare(bench, client, warmBatch)), warm);
    const rate = (w.requests >= warmBatch - CONNECTIONS ? 2 : 1) * (w.requests / warm);
    const batch = Math.ceil(Math.max(rate, 5) * run * 2) + 30;
    let exhausted = false;
    const s = await sandwich({
      durations: bench.durations,
      noWarm: true,
      ref: bench.bareHttp,
      caseSpec: async () => {
        bench.log(`LG: preparing ${batch} interactions`);
        return spec(await prepare(bench, client, batch));
      },
      after: (r) => void (exhausted ||= r.requests >= batch - CONNECTIONS),
    });
    // CPU per submission stays exact (the server idles once the batch is used up); req/s does not.
    if (exhausted) checks.push('a batch ran out: req/s is a lower bound');
    return againstReferenceOutcome(s, 'bare node:http', GOAL, checks);
  },
};
