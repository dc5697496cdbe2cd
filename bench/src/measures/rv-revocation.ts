/**
 * RV: a revoked token is refused at once by every API instance that had it cached. Its own client:
 * revoking a token revokes its grant's other tokens, and the shared client holds the hit token.
 */
import { FormBrowser } from '#test-support/form-browser.js';
import { postForm } from '#test-support/oauth-flow.js';
import type { Measure } from '../lib/bench.js';
import { register, tokensFor } from '../lib/seed.js';
import { apiGet } from './resource-api.js';

const ROUNDS = 20;

export const rv: Measure = {
  id: 'RV',
  title: 'revoked token refused at once on every API instance',
  goal: '401 on every instance at the next request',
  async run(bench) {
    const apis = [await bench.resourceApi(0), await bench.resourceApi(1)];
    const reads = (token: string) => Promise.all(apis.map(async (a) => (await apiGet(a.url, token)).status));
    bench.log(`RV: ${ROUNDS} rounds: a fresh token, a read on each instance, revoke, a read on each`);
    const client = await register(bench.auth.url, 'bench RV');
    const browser = new FormBrowser(bench.auth.url);
    const served: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { access_token: token } = await tokensFor(bench, browser, client);
      const before = await reads(token);
      if (before.some((s) => s !== 200))
        throw new Error(`a fresh token was not served: ${before.join(', ')}`);
      const form = { token, token_type_hint: 'access_token', client_id: client.clientId };
      const res = await postForm(`${bench.auth.url}/api/oauth/revoke`, form);
      if (res.status !== 200) throw new Error(`the revocation answered ${res.status}`);
      const after = await reads(token);
      if (after.some((s) => s !== 401)) served.push(after.join('/'));
    }
    const refused = ROUNDS - served.length;
    return {
      status: refused === ROUNDS ? 'PASS' : 'FAIL',
      judged: `refused ${refused}/${ROUNDS}`,
      text:
        `refused ${refused}/${ROUNDS} on ${apis.length} instances right after the revocation answered, ` +
        `each having answered 200 with the token just before (so had it cached)` +
        (served.length ? `  | NOT REFUSED: ${served.join(', ')}` : ''),
    };
  },
};
