/**
 * RV: a revoked token is refused at once by every API instance, although each had it cached. Each of
 * 20 rounds takes a fresh token (a code exchange of RV's own public client), reads with it on two API
 * instances (200: now cached on both for up to 60 s), revokes it, and the moment the revocation
 * answers reads on each again: both must answer 401, which only the Redis revocation feed can cause.
 * Its own client, because revoking a token revokes its grant's other tokens, and the bench's shared
 * public client holds the API measures' hit token.
 */
import type { Bench, Measure } from '../lib/bench.js';
import { FormBrowser } from '#test-support/form-browser.js';
import { signIn, type OAuthClient } from '#test-support/oauth-flow.js';
import { register, SCOPE } from '../lib/seed.js';
import { apiGet } from './resource-api.js';

const ROUNDS = 20;

/** Revokes `token` as `client`, the public client that got it; the endpoint's status. */
async function revoke(bench: Bench, client: OAuthClient, token: string): Promise<number> {
  const res = await fetch(`${bench.auth.url}/api/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'access_token', client_id: client.clientId }),
  });
  await res.arrayBuffer();
  return res.status;
}

export const rv: Measure = {
  id: 'RV',
  title: 'revoked token refused at once on every API instance',
  goal: '401 on every instance at the next request',
  async run(bench) {
    const apis = [await bench.resourceApi(0), await bench.resourceApi(1)];
    bench.log(`RV: ${ROUNDS} rounds: a fresh token, a read on each instance, revoke, a read on each`);
    const client = await register(bench.auth.url, 'bench RV', false);
    const browser = new FormBrowser(bench.auth.url);
    let refused = 0;
    const served: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { access_token: token } = await signIn({ issuer: bench.auth.url }, client, {
        scope: SCOPE,
        account: bench.account,
        browser,
      });
      const before = await Promise.all(apis.map((a) => apiGet(a.url, token)));
      if (before.some((r) => r.status !== 200)) {
        throw new Error(`a fresh token was not served: ${before.map((r) => r.status).join(', ')}`);
      }
      const status = await revoke(bench, client, token);
      if (status !== 200) throw new Error(`the revocation answered ${status}`);
      const after = await Promise.all(apis.map((a) => apiGet(a.url, token)));
      const statuses = after.map((r) => r.status);
      if (statuses.every((s) => s === 401)) refused++;
      else served.push(statuses.join('/'));
    }
    const ok = refused === ROUNDS;
    return {
      status: ok ? 'PASS' : 'FAIL',
      judged: `refused ${refused}/${ROUNDS}`,
      text:
        `refused ${refused}/${ROUNDS} on ${apis.length} instances right after the revocation answered, ` +
        `each having answered 200 with the token just before (so had it cached)` +
        (served.length ? `  | NOT REFUSED: ${served.join(', ')}` : ''),
    };
  },
};
