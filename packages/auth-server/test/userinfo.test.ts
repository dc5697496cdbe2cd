/**
 * Refusals at GET /api/oauth/userinfo against the real server: a missing, unknown, revoked or
 * resource-bound access token, or one without `openid`, is refused with a Bearer challenge
 * (RFC 6750 §3) and an RFC 6749-shaped JSON body.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import {
  credentials,
  expectOAuthError,
  get,
  registerClient,
  revoke,
  signIn,
  type HttpResult,
  type TestClient,
} from './oauth-http.js';

let client: TestClient;

const auth = authServerForFile();
beforeAll(async () => {
  client = await registerClient(auth);
});

function userinfo(token?: string, headers: Record<string, string> = {}): Promise<HttpResult> {
  return get(`${auth.issuer}/api/oauth/userinfo`, {
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...headers,
  });
}

describe('GET /api/oauth/userinfo', () => {
  it('answers a request without a token with 401, a Bearer challenge and invalid_token', async () => {
    const res = await userinfo();
    expectOAuthError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer realm="${auth.issuer}"`));
  });

  it('answers in JSON even when the request prefers HTML', async () => {
    const res = await userinfo(undefined, { accept: 'text/html' });
    expectOAuthError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses a token it never issued with 401 invalid_token and error="invalid_token" in the challenge', async () => {
    const res = await userinfo('not-a-token-this-server-issued');
    expectOAuthError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('refuses a revoked token with 401 invalid_token', async () => {
    const tokens = await signIn(auth, client, { scope: 'openid email' });
    expect((await userinfo(tokens.access_token)).status).toBe(200);
    await revoke(auth, { token: tokens.access_token, ...credentials(client) });
    const res = await userinfo(tokens.access_token);
    expectOAuthError(res, 401, 'invalid_token');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it('refuses a token bound to the API (resource=<issuer>) with 403 insufficient_scope and a Bearer challenge', async () => {
    // A bound token carries the API scopes only, so even when openid was granted it lacks it here.
    const tokens = await signIn(auth, client, { scope: 'openid courses:read', resource: auth.issuer });
    const res = await userinfo(tokens.access_token);
    expectOAuthError(res, 403, 'insufficient_scope', { scope: 'openid' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
  });

  it('refuses a token without the openid scope with 403 insufficient_scope', async () => {
    const tokens = await signIn(auth, client, { scope: 'courses:read' });
    const res = await userinfo(tokens.access_token);
    expectOAuthError(res, 403, 'insufficient_scope', { scope: 'openid' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
  });

  it('refuses a refresh token used as an access token with 401 invalid_token', async () => {
    const tokens = await signIn(auth, client, { scope: 'openid' });
    expectOAuthError(await userinfo(tokens.refresh_token), 401, 'invalid_token');
  });
});
