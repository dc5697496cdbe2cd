/**
 * AS5: the refresh_token grant of 10 confidential clients with `openid`, so each answer signs an ES256
 * id_token. Their refresh tokens rotate only after 70 % of their life: each is presented again and again.
 * Judged against the same grant on the memory-adapter server, loaded either side of each run.
 */
import { credentials, requestTokens } from '#test-support/oauth-flow.js';
import { formLine, type Bench, type Measure } from '../lib/bench.js';
import { SCOPE, refreshTokens } from '../lib/seed.js';
import { againstMemoryAdapter } from './auth-load.js';

/** CPU per refresh at most this many times the memory adapter's, same run (PERFORMANCE.md: how it was set). */
const GOAL = 2;

/** The refresh requests of 10 clients at `origin`, and the id_token check of one answer there. */
async function refreshLoad(bench: Bench, origin: string, name: string) {
  const pool = await refreshTokens(bench, SCOPE, 10, origin);
  const form = ({ client, tokens }: (typeof pool)[number]) => ({
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token!,
    ...credentials(client),
  });
  // The answer's shape, checked once outside the measured runs.
  const sample = await requestTokens({ issuer: origin }, pool[0]!.client, form(pool[0]!));
  const header = sample.id_token?.split('.')[0];
  const alg = header && (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg;
  const checks = [
    alg === 'ES256' ? `${name}: id_token ES256` : `FAILED: ${name}: id_token alg ${alg ?? 'missing'}`,
  ];
  if (sample.refresh_token !== pool[0]!.tokens.refresh_token)
    checks.push(`FAILED: ${name}: the refresh token rotated`);
  const line = (p: (typeof pool)[number]) => formLine('/api/oauth/token', form(p));
  return { file: bench.requests(`refresh-id-token-${name}`, pool.map(line)), checks };
}

export const as5: Measure = againstMemoryAdapter(
  { id: 'AS5', title: 'refresh_token grant with an ES256 id_token', name: 'refresh', goal: GOAL },
  (bench, origin, side) => refreshLoad(bench, origin, side),
);
