/**
 * Refusals at POST /api/oauth/token against the real server, real Redis and the real MongoDB-protocol
 * server: code replay (which also revokes what the code produced), PKCE and redirect_uri mismatches,
 * every grant type but authorization_code and refresh_token, client authentication, resource
 * indicators, refresh-token reuse, and the RFC 6749 §5.2 shape with `Cache-Control: no-store`.
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import {
  codeExchange,
  credentials,
  expectOAuthError,
  introspect,
  isActive,
  obtainCode,
  pkce,
  postJson,
  registerClient,
  publicAndConfidentialForFile,
  signIn,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

// No grace period: a rotated refresh token presented again is a replay at once (the grace period
// for concurrent clients has its own suite, refresh-grace.test.ts).
const auth = authServerForFile({ REFRESH_REUSE_GRACE: '0' });
const [client, confidential] = publicAndConfidentialForFile(auth);

describe('POST /api/oauth/token refuses an authorization code that is not acceptable', () => {
  it('refuses a replayed code with 400 invalid_grant and revokes the tokens of the first exchange', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid courses:read' });
    const first = await tokenRequest(auth, codeExchange(client, issued));
    expect(first.status).toBe(200);
    const { access_token, refresh_token } = first.body as { access_token: string; refresh_token: string };
    expect([await isActive(auth, access_token), await isActive(auth, refresh_token)]).toEqual([true, true]);

    expectOAuthError(await tokenRequest(auth, codeExchange(client, issued)), 400, 'invalid_grant');
    expect([await isActive(auth, access_token), await isActive(auth, refresh_token)]).toEqual([false, false]);
  });

  it('refuses a replayed code of a confidential client and revokes its tokens too', async () => {
    const issued = await obtainCode(auth, confidential, { scope: 'openid' });
    const first = await tokenRequest(auth, codeExchange(confidential, issued));
    expect(first.status).toBe(200);
    expectOAuthError(await tokenRequest(auth, codeExchange(confidential, issued)), 400, 'invalid_grant');
    expect(await isActive(auth, String(first.body?.access_token))).toBe(false);
  });

  it('refuses a wrong code_verifier with 400 invalid_grant', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const res = await tokenRequest(auth, { ...codeExchange(client, issued), code_verifier: pkce().verifier });
    expectOAuthError(res, 400, 'invalid_grant');
  });

  it('refuses an exchange without code_verifier with 400 invalid_grant', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const { code_verifier: _dropped, ...form } = codeExchange(client, issued);
    expectOAuthError(await tokenRequest(auth, form), 400, 'invalid_grant');
  });

  it.each([
    ['another path', 'http://127.0.0.1:53682/other'],
    ['another port', 'http://127.0.0.1:53683/callback'],
    ['another loopback host', 'http://localhost:53682/callback'],
  ])(
    'refuses a redirect_uri on %s than the authorization request with 400 invalid_grant',
    async (_w, redirectUri) => {
      const issued = await obtainCode(auth, client, { scope: 'openid' });
      const res = await tokenRequest(auth, { ...codeExchange(client, issued), redirect_uri: redirectUri });
      expectOAuthError(res, 400, 'invalid_grant');
    },
  );

  it('refuses an exchange without redirect_uri with 400 invalid_request', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const { redirect_uri: _dropped, ...form } = codeExchange(client, issued);
    expectOAuthError(await tokenRequest(auth, form), 400, 'invalid_request');
  });

  it("refuses another client's code with 400 invalid_grant", async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const other = await registerClient(auth);
    expectOAuthError(await tokenRequest(auth, codeExchange(other, issued)), 400, 'invalid_grant');
  });

  it('refuses an unknown code with 400 invalid_grant', async () => {
    const res = await tokenRequest(auth, {
      grant_type: 'authorization_code',
      code: 'not-a-code-this-server-issued',
      redirect_uri: 'http://127.0.0.1:53682/callback',
      code_verifier: pkce().verifier,
      ...credentials(client),
    });
    expectOAuthError(res, 400, 'invalid_grant');
  });
});

describe('POST /api/oauth/token refuses every other grant type with 400 unsupported_grant_type', () => {
  it.each([
    ['urn:ietf:params:oauth:grant-type:jwt-bearer', { assertion: 'eyJhbGciOiJub25lIn0.e30.' }],
    [
      'urn:ietf:params:oauth:grant-type:jwt-bearer with an ID-JAG assertion',
      { assertion: 'eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0IiwiYWxnIjoibm9uZSJ9.e30.' },
    ],
    [
      'urn:ietf:params:oauth:grant-type:token-exchange',
      {
        subject_token: 'anything',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      },
    ],
    ['client_credentials', {}],
    ['password', { username: 'admin@school.test', password: 'correct horse battery staple' }],
    ['urn:ietf:params:oauth:grant-type:device_code', { device_code: 'x' }],
    ['implicit', {}],
  ])('refuses %s with 400 unsupported_grant_type', async (grant, extra) => {
    const grantType = grant.split(' ')[0]!;
    for (const who of [client, confidential]) {
      const res = await tokenRequest(auth, { grant_type: grantType, ...extra, ...credentials(who) });
      expectOAuthError(res, 400, 'unsupported_grant_type');
    }
  });

  it('refuses a request without grant_type with 400 invalid_request', async () => {
    expectOAuthError(await tokenRequest(auth, credentials(client)), 400, 'invalid_request');
  });
});

describe('POST /api/oauth/token refuses failed client authentication with 401 invalid_client', () => {
  const confidentialExchange = async () =>
    codeExchange(confidential, await obtainCode(auth, confidential, { scope: 'openid' }));

  it('refuses a confidential client with a wrong secret with 401 invalid_client', async () => {
    const form = await confidentialExchange();
    expectOAuthError(await tokenRequest(auth, { ...form, client_secret: 'wrong' }), 401, 'invalid_client');
  });

  it('refuses a confidential client that sends no secret with 401 invalid_client', async () => {
    const { client_secret: _dropped, ...form } = await confidentialExchange();
    expectOAuthError(await tokenRequest(auth, form), 401, 'invalid_client');
  });

  it('refuses a wrong secret sent with HTTP Basic with 401 invalid_client and a Basic challenge', async () => {
    const { client_secret: _dropped, ...form } = await confidentialExchange();
    const basic = Buffer.from(`${confidential.clientId}:wrong`).toString('base64');
    const res = await tokenRequest(auth, form, { authorization: `Basic ${basic}` });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('refuses a public client that presents a client_secret with 401 invalid_client', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const res = await tokenRequest(auth, { ...codeExchange(client, issued), client_secret: 'made-up' });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses an unknown client_id with 401 invalid_client', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const res = await tokenRequest(auth, { ...codeExchange(client, issued), client_id: 'no-such-client' });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses a request without client_id (no client authentication at all) with 401 invalid_client', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const { client_id: _dropped, ...form } = codeExchange(client, issued);
    expectOAuthError(await tokenRequest(auth, form), 401, 'invalid_client');
  });
});

describe('POST /api/oauth/token binds tokens to the API only', () => {
  it('refuses a code exchange naming a resource other than the issuer with 400 invalid_target', async () => {
    const issued = await obtainCode(auth, client, { scope: 'courses:read', resource: auth.issuer });
    const res = await tokenRequest(auth, {
      ...codeExchange(client, issued),
      resource: 'https://api.other.example/',
    });
    expectOAuthError(res, 400, 'invalid_target');
  });

  it('refuses a refresh naming a resource other than the issuer with 400 invalid_target', async () => {
    const tokens = await signIn(auth, client, { scope: 'courses:read', resource: auth.issuer });
    const res = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      resource: 'https://api.other.example/',
      ...credentials(client),
    });
    expectOAuthError(res, 400, 'invalid_target');
  });
});

describe('POST /api/oauth/token refuses refresh tokens that are not acceptable', () => {
  const refresh = (who: TestClient, refreshToken: string, extra: Record<string, string> = {}) =>
    tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...extra,
      ...credentials(who),
    });

  it('refuses a rotated refresh token with 400 invalid_grant and revokes the newest tokens of the grant', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const rotated = await refresh(client, first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = rotated.body as { access_token: string; refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect([await isActive(auth, second.access_token), await isActive(auth, second.refresh_token)]).toEqual([
      true,
      true,
    ]);

    expectOAuthError(await refresh(client, first.refresh_token), 400, 'invalid_grant');
    expect([
      await isActive(auth, second.access_token),
      await isActive(auth, second.refresh_token),
      await isActive(auth, first.access_token),
    ]).toEqual([false, false, false]);
    expectOAuthError(await refresh(client, second.refresh_token), 400, 'invalid_grant');
  });

  it("refuses another client's refresh token with 400 invalid_grant", async () => {
    const tokens = await signIn(auth, client, { scope: 'openid' });
    const other = await registerClient(auth);
    expectOAuthError(await refresh(other, tokens.refresh_token), 400, 'invalid_grant');
  });

  it('refuses an access token presented as a refresh token with 400 invalid_grant', async () => {
    const tokens = await signIn(auth, client, { scope: 'openid' });
    expectOAuthError(await refresh(client, tokens.access_token), 400, 'invalid_grant');
  });

  it('refuses a refresh asking for a scope the grant does not have with 400 invalid_scope', async () => {
    const tokens = await signIn(auth, client, { scope: 'openid courses:read' });
    const res = await refresh(client, tokens.refresh_token, { scope: 'openid courses:read courses:write' });
    expectOAuthError(res, 400, 'invalid_scope', { scope: 'courses:write' });
  });
});

describe('POST /api/oauth/token answers in the RFC 6749 shape, uncached', () => {
  it('sends Cache-Control: no-store with tokens', async () => {
    const issued = await obtainCode(auth, client, { scope: 'openid' });
    const res = await tokenRequest(auth, codeExchange(client, issued));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    [
      'invalid_grant',
      400,
      { grant_type: 'authorization_code', code: 'x', redirect_uri: 'http://127.0.0.1/cb' },
    ],
    ['unsupported_grant_type', 400, { grant_type: 'password' }],
    ['invalid_request', 400, {}],
    ['invalid_client', 401, { grant_type: 'refresh_token', refresh_token: 'x', client_secret: 'wrong' }],
  ] as const)(
    'answers %s as JSON with Cache-Control: no-store even when the request prefers HTML',
    async (error, status, form) => {
      const who = 'client_secret' in form ? confidential : client;
      const res = await tokenRequest(
        auth,
        { code_verifier: pkce().verifier, ...form, client_id: who.clientId },
        { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' },
      );
      expectOAuthError(res, status, error);
      expect(res.headers.get('cache-control')).toBe('no-store');
    },
  );

  it('refuses a JSON-encoded body with 400 invalid_request in JSON', async () => {
    const res = await postJson(
      `${auth.issuer}/api/oauth/token`,
      { grant_type: 'authorization_code', client_id: client.clientId },
      { accept: 'text/html' },
    );
    expectOAuthError(res, 400, 'invalid_request');
  });
});

describe('every token response carries scope (a client reads a missing one as empty and re-authorizes)', () => {
  it.each([
    ['openid courses:read', false],
    ['openid courses:read', true],
    ['openid', true],
  ])(
    'for %s (bound to the API: %s): the code exchange, a refresh and a narrowed refresh',
    async (scope, bound) => {
      const resource: Record<string, string> = bound ? { resource: auth.issuer } : {};
      const issued = await signIn(auth, client, { scope, ...resource });
      expect(typeof issued.scope).toBe('string');
      const refresh = { grant_type: 'refresh_token', ...credentials(client), ...resource };
      const refreshed = await tokenRequest(auth, { ...refresh, refresh_token: issued.refresh_token });
      expect(refreshed.status).toBe(200);
      expect(typeof refreshed.body?.scope).toBe('string');
      const narrowed = await tokenRequest(auth, {
        ...refresh,
        refresh_token: String(refreshed.body?.refresh_token),
        scope: 'openid',
      });
      expect(narrowed.status).toBe(200);
      expect(typeof narrowed.body?.scope).toBe('string');
    },
  );
});

describe('the resource indicator names the API whatever the case of its scheme and host', () => {
  it('binds a token requested for HTTP://<issuer host> to the API, as for the canonical form', async () => {
    const resource = auth.issuer.replace(
      /^http:\/\/([^/]+)/,
      (_m, host: string) => `HTTP://${host.toUpperCase()}`,
    );
    expect(resource).not.toBe(auth.issuer);
    const tokens = await signIn(auth, client, { scope: 'courses:read', resource });
    const info = await introspect(auth, tokens.access_token);
    expect(info.body).toMatchObject({ active: true, aud: auth.issuer });
  });
});
