/**
 * AS5: the refresh_token grant of 10 confidential clients with `openid`, so each answer signs an ES256
 * id_token. Their refresh tokens rotate only after 70 % of their life: each is presented again and again.
 */
import { credentials, requestTokens } from '#test-support/oauth-flow.js';
import { formLine, type Measure } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { SCOPE, refreshTokens } from '../lib/seed.js';
import { authSpec, perCoreOutcome } from './auth-load.js';

export const as5: Measure = {
  id: 'AS5',
  title: 'refresh_token grant with an ES256 id_token',
  goal: '≥ 1,100/s per core',
  async run(bench) {
    const pool = await refreshTokens(bench, SCOPE, 10);
    const form = ({ client, tokens }: (typeof pool)[number]) => ({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      ...credentials(client),
    });
    // The answer's shape, checked once outside the measured runs.
    const sample = await requestTokens({ issuer: bench.auth.url }, pool[0]!.client, form(pool[0]!));
    const header = sample.id_token?.split('.')[0];
    const alg = header && (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg;
    const checks = [alg === 'ES256' ? 'id_token ES256' : `FAILED: id_token alg ${alg ?? 'missing'}`];
    if (sample.refresh_token !== pool[0]!.tokens.refresh_token)
      checks.push('FAILED: the refresh token rotated');
    const line = (p: (typeof pool)[number]) => formLine('/api/oauth/token', form(p));
    const file = bench.requests('refresh-id-token', pool.map(line));
    const spec = authSpec(bench, 'refresh', file);
    return perCoreOutcome(await sandwich({ durations: bench.durations, caseSpec: () => spec }), 1100, checks);
  },
};
