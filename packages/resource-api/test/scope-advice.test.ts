/**
 * What a 403 `insufficient_scope` tells a client, through the real API and auth server: a refresh
 * cannot add a scope, a new authorization request for the union of the held scopes and the needed one
 * can, in the body's `error_description` and in the `WWW-Authenticate` challenge alike. And the advice
 * holds: the refreshed token is refused again, a token authorized for the union is served.
 */
import { describe, expect, it } from '@jest/globals';
import { ADMIN } from '../../../test-support/auth-server.js';
import { registerClient, requestTokens, signIn, type OAuthClient } from '../../../test-support/oauth-flow.js';
import { authAndApiForFile, call } from '../../../test-support/resource-api.js';

const { auth, api } = authAndApiForFile();

const ADVICE =
  'this operation needs the scope students:read, which this token lacks. A refresh cannot add a scope: ' +
  'start a new authorization request (authorization code with PKCE) for the union of the scopes this ' +
  'token holds and students:read (courses:read students:read)';

const signInFor = (client: OAuthClient, scope: string) =>
  signIn(auth, client, { scope, account: ADMIN, resource: auth.issuer });

describe('403 insufficient_scope', () => {
  it('says that a refresh cannot add the scope and names the union to authorize for, in body and challenge', async () => {
    const client = await registerClient(auth);
    const held = await signInFor(client, 'courses:read');
    const res = await call(api.url, '/api/v1/students', { token: held.access_token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'insufficient_scope',
      error_description: ADVICE,
      required_scopes: ['students:read'],
    });
    const prm = `${auth.issuer}/.well-known/oauth-protected-resource`;
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="students:read", resource_metadata="${prm}", error_description="${ADVICE}"`,
    );

    // The advice is what works: refreshing brings the same 403 back ...
    const refreshed = await requestTokens(auth, client, {
      grant_type: 'refresh_token',
      refresh_token: held.refresh_token!,
      resource: auth.issuer,
    });
    const again = await call(api.url, '/api/v1/students', { token: refreshed.access_token });
    expect(again.status).toBe(403);
    expect((again.body as { error: string }).error).toBe('insufficient_scope');
    // ... and a new authorization request for the union is served.
    const union = await signInFor(client, 'courses:read students:read');
    expect((await call(api.url, '/api/v1/students', { token: union.access_token })).status).toBe(200);
  });
});
