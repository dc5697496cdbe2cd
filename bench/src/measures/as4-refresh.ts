/**
 * AS4 and AS5: the refresh_token grant of confidential clients (client_secret_post), whose refresh
 * tokens do not rotate before 70 % of their life, so each of a pool of 10 (10 clients, 10 grants) is
 * presented again and again. AS4's grants lack `openid` (no id_token); AS5's include it (an ES256
 * id_token, the default, signed per request). AS4's goal is P2's (ours beside Hydra and Keycloak);
 * AS5 keeps its per-core goal. Each request: client authentication, the refresh token,
 * its grant and the account (MongoDB) read, a new access token written (and an id_token signed).
 */
import { credentials, requestTokens } from '#test-support/oauth-flow.js';
import type { Bench, Measure, Outcome } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { SCOPE, SCOPE_NO_OPENID, refreshTokens } from '../lib/seed.js';
import { bareRef, figuresOnlyOutcome, perCoreOutcome } from './common.js';

async function refreshMeasure(bench: Bench, withIdToken: boolean, min?: number): Promise<Outcome> {
  const pool = await refreshTokens(bench, withIdToken ? SCOPE : SCOPE_NO_OPENID, 10);
  // Check the answer's shape once, outside the measured runs.
  const sample = await requestTokens({ issuer: bench.auth.url }, pool[0]!.client, {
    grant_type: 'refresh_token',
    refresh_token: pool[0]!.tokens.refresh_token!,
  });
  const checks: string[] = [];
  if (sample.refresh_token !== pool[0]!.tokens.refresh_token)
    checks.push('FAILED: the refresh token rotated');
  if (withIdToken) {
    const alg = sample.id_token
      ? (JSON.parse(Buffer.from(sample.id_token.split('.')[0]!, 'base64url').toString()) as { alg: string })
          .alg
      : undefined;
    checks.push(alg === 'ES256' ? 'id_token ES256' : `FAILED: id_token alg ${alg ?? 'missing'}`);
  } else if (sample.id_token) {
    checks.push('FAILED: an id_token was issued');
  }
  const file = bench.requests(
    withIdToken ? 'refresh-id-token' : 'refresh',
    pool.map(({ client, tokens }) =>
      formLine('/api/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        ...credentials(client),
      }),
    ),
  );
  const s = await sandwich({
    durations: bench.durations,
    ref: bareRef(bench),
    caseSpec: () => ({
      name: 'refresh',
      url: bench.auth.url,
      requestsFile: file,
      processes: bench.authProcesses(),
      shown: bench.authShown(),
    }),
  });
  const extra = checks.length ? [`| ${checks.join(', ')}`] : [];
  return min ? perCoreOutcome(s.figures, min, extra) : figuresOnlyOutcome(s.figures, 'P2', extra);
}

export const as4: Measure = {
  id: 'AS4',
  title: 'refresh_token grant, confidential client, no id_token',
  goal: 'none of its own: P2 (ratios to the peers)',
  run: (bench) => refreshMeasure(bench, false),
};

export const as5: Measure = {
  id: 'AS5',
  title: 'refresh_token grant with an ES256 id_token',
  goal: '≥ 1,100/s per core',
  run: (bench) => refreshMeasure(bench, true, 1100),
};
