/**
 * Revocation reaches every API instance at once: two instances in one process, each with its own
 * cache and its own Redis subscription, both holding the token in cache; the token is revoked at the
 * auth server's /api/oauth/revoke, and both refuse it on the very next request. Deleting a client
 * ends its tokens the same way, and a token whose client vanished is refused (401), not a 503.
 */
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { deleteClient } from '../../auth-server/src/provider/operator-clients.js';
import {
  authAndApiForFile,
  call,
  introspectionCounter,
  startTestResourceApi,
  type TestResourceApi,
} from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let two: TestResourceApi;
let tokens: TokenSource;

afterAll(() => two?.stop()); // runs before the hooks below stop the first instance and the auth server
const { auth, api: one } = authAndApiForFile();
beforeAll(async () => {
  two = await startTestResourceApi(auth);
  tokens = new TokenSource(auth);
});

/** Both instances accept the token, and it is in both caches (a repeat makes no introspection call). */
async function cachedInBoth(token: string) {
  const counter = introspectionCounter(auth);
  for (const api of [one, two])
    expect((await call(api.url, '/api/v1/orders?limit=1', { token })).status).toBe(200);
  expect(counter.count).toBe(2);
  for (const api of [one, two])
    expect((await call(api.url, '/api/v1/orders?limit=1', { token })).status).toBe(200);
  expect(counter.count).toBe(2);
}

it('runs two instances on two ports', () => {
  expect(one.url).not.toBe(two.url);
});

it('refuses a revoked access token on both instances on the very next request', async () => {
  const set = await tokens.fresh(['orders:read'], { resource: auth.issuer });
  await cachedInBoth(set.access_token);

  await tokens.revoke(set.access_token, 'access_token');

  for (const api of [one, two]) {
    const res = await call(api.url, '/api/v1/orders?limit=1', { token: set.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  }
});

it('refuses the access tokens of a grant whose refresh token was revoked, on both instances', async () => {
  const set = await tokens.fresh(['orders:read']);
  await cachedInBoth(set.access_token);

  await tokens.revoke(set.refresh_token!, 'refresh_token');

  for (const api of [one, two])
    expect((await call(api.url, '/api/v1/orders?limit=1', { token: set.access_token })).status).toBe(401);
});

it('keeps serving tokens of other grants', async () => {
  // Revoking an access token ends its whole grant (oidc-provider), so the token kept comes from
  // another client, hence another grant.
  const keep = await new TokenSource(auth).fresh(['orders:read']);
  const drop = await tokens.fresh(['orders:read']);
  await cachedInBoth(keep.access_token);
  await tokens.revoke(drop.access_token);
  for (const api of [one, two])
    expect((await call(api.url, '/api/v1/orders?limit=1', { token: keep.access_token })).status).toBe(200);
});

it('refuses on the very next request, on both instances, the cached tokens of a client an operator deleted', async () => {
  const own = new TokenSource(auth);
  const set = await own.fresh(['orders:read']);
  await cachedInBoth(set.access_token);

  const clientId = (await own.client()).clientId;
  expect(await deleteClient(auth.running.clients, clientId)).toBe(true);

  for (const api of [one, two]) {
    const res = await call(api.url, '/api/v1/orders?limit=1', { token: set.access_token });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  }
});

it('answers 401 invalid_token, not 503, for a token whose client vanished from the auth server', async () => {
  const own = new TokenSource(auth);
  const set = await own.fresh(['orders:read']);
  const clientId = (await own.client()).clientId;
  const redis = new Redis(auth.config.REDIS_URL);
  await redis.del(`${auth.config.REDIS_KEY_PREFIX}Client:${clientId}`);
  await redis.quit();
  await auth.restart(); // nothing of the client left in the auth server's memory either

  const res = await call(one.url, '/api/v1/orders?limit=1', { token: set.access_token });
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
});
