/**
 * Token lifetime against the cache: with 2-second access tokens, a token that was cached while valid
 * is refused once its `exp` has passed, although the cache bound (60 s) has not.
 */
import { beforeAll, expect, it } from '@jest/globals';
import { authAndApiForFile, call, introspectionCounter } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let tokens: TokenSource;

const { auth, api } = authAndApiForFile({
  auth: { ACCESS_TOKEN_TTL: '2' },
  api: { INTROSPECTION_CACHE_TTL: '60' },
});
beforeAll(() => {
  tokens = new TokenSource(auth);
});

it('refuses a cached token after its exp with 401 invalid_token', async () => {
  const counter = introspectionCounter(auth);
  const set = await tokens.fresh(['courses:read'], { resource: auth.issuer });
  const exp = Date.now() + set.expires_in! * 1000;
  expect((await call(api.url, '/api/v1/courses', { token: set.access_token })).status).toBe(200);
  expect((await call(api.url, '/api/v1/courses', { token: set.access_token })).status).toBe(200);
  expect(counter.count).toBe(1);

  await new Promise((resolve) => setTimeout(resolve, Math.max(0, exp - Date.now()) + 1100));
  const res = await call(api.url, '/api/v1/courses', { token: set.access_token });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
});
