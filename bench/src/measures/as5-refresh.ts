/**
 * AS5: the refresh_token grant of confidential clients (client_secret_post) whose grants include
 * `openid`, so each answer carries an ES256 id_token (the default) signed per request. Their refresh
 * tokens do not rotate before 70 % of their life, so each of a pool of 10 (10 clients, 10 grants) is
 * presented again and again. Each request: client authentication, the refresh token, its grant and
 * the account (MongoDB) read, a new access token written and an id_token signed.
 */
import { credentials, requestTokens } from '#test-support/oauth-flow.js';
import type { Measure } from '../lib/bench.js';
import { formLine } from '../lib/bench.js';
import { sandwich } from '../lib/report.js';
import { SCOPE, refreshTokens } from '../lib/seed.js';
import { perCoreOutcome } from './common.js';

export const as5: Measure = {
  id: 'AS5',
  title: 'refresh_token grant with an ES256 id_token',
  goal: '≥ 1,100/s per core',
  async run(bench) {
    const pool = await refreshTokens(bench, SCOPE, 10);
    // The answer's shape, checked once outside the measured runs.
    const sample = await requestTokens({ issuer: bench.auth.url }, pool[0]!.client, {
      grant_type: 'refresh_token',
      refresh_token: pool[0]!.tokens.refresh_token!,
    });
    const header = sample.id_token?.split('.')[0];
    const alg = header && (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg;
    const checks = [alg === 'ES256' ? 'id_token ES256' : `FAILED: id_token alg ${alg ?? 'missing'}`];
    if (sample.refresh_token !== pool[0]!.tokens.refresh_token)
      checks.push('FAILED: the refresh token rotated');
    const file = bench.requests(
      'refresh-id-token',
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
      caseSpec: () => ({
        name: 'refresh',
        url: bench.auth.url,
        requestsFile: file,
        processes: bench.authProcesses(),
        shown: bench.authShown(),
      }),
    });
    return perCoreOutcome(s.figures, 1100, checks);
  },
};
