/**
 * Introspection (RFC 7662) and revocation (RFC 7009) against the real server and real Redis: only the
 * configured introspecting services see other clients' tokens, client authentication failures are
 * 401 `invalid_client`, and a client can revoke its own tokens but not another client's (whose
 * tokens get the unknown token's answer, so revocation is no oracle).
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile, INTROSPECTOR } from '../../../test-support/auth-server.js';
import {
  credentials,
  expectOAuthError,
  introspect,
  isActive,
  postForm,
  registerClient,
  publicAndConfidentialForFile,
  revoke,
  signIn,
  signedInForFile,
} from './oauth-http.js';

const auth = authServerForFile();
const [publicClient, confidential] = publicAndConfidentialForFile(auth);
/** Tokens of `publicClient`, not bound to a resource. */
const tokens = signedInForFile(auth, publicClient, { scope: 'openid courses:read' });

describe('POST /api/oauth/introspect', () => {
  it('shows the static introspection client aud for a token obtained with resource=<issuer>', async () => {
    const bound = await signIn(auth, publicClient, { scope: 'courses:read', resource: auth.issuer });
    const res = await introspect(auth, bound.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      active: true,
      aud: auth.issuer,
      client_id: publicClient.clientId,
      scope: 'courses:read',
      iss: auth.issuer,
      token_type: 'Bearer',
    });
  });

  it('shows no aud for a token obtained without resource', async () => {
    const res = await introspect(auth, tokens.access_token);
    expect(res.body).toMatchObject({ active: true, client_id: publicClient.clientId });
    expect(res.body).not.toHaveProperty('aud');
  });

  it("answers {active:false} to a registered confidential client introspecting another client's token", async () => {
    const res = await introspect(auth, tokens.access_token, credentials(confidential));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
    expect(await isActive(auth, tokens.access_token)).toBe(true); // the token itself is live
  });

  it("refuses a public client introspecting another client's refresh token with 401 invalid_client (introspection takes client_secret_post alone)", async () => {
    const other = await registerClient(auth);
    const res = await introspect(auth, tokens.refresh_token, credentials(other));
    expectOAuthError(res, 401, 'invalid_client');
    expect(await isActive(auth, tokens.refresh_token)).toBe(true);
  });

  it('lets a registered confidential client introspect its own token', async () => {
    const own = await signIn(auth, confidential, { scope: 'openid' });
    const res = await introspect(auth, own.access_token, credentials(confidential));
    expect(res.body).toMatchObject({ active: true, client_id: confidential.clientId });
  });

  it('answers {active:false} for a token it never issued', async () => {
    const res = await introspect(auth, 'not-a-token-this-server-issued');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('refuses a request without client authentication with 401 invalid_client', async () => {
    const res = await postForm(`${auth.issuer}/api/oauth/introspect`, { token: tokens.access_token });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses the introspection client with a wrong secret with 401 invalid_client', async () => {
    const res = await introspect(auth, tokens.access_token, {
      client_id: INTROSPECTOR.clientId,
      client_secret: `${INTROSPECTOR.clientSecret}x`,
    });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses an unknown client with 401 invalid_client', async () => {
    const res = await introspect(auth, tokens.access_token, {
      client_id: 'no-such-client',
      client_secret: 'x',
    });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('answers a failed authentication with JSON even when the request prefers HTML', async () => {
    const res = await postForm(
      `${auth.issuer}/api/oauth/introspect`,
      { token: tokens.access_token, client_id: INTROSPECTOR.clientId, client_secret: 'wrong' },
      { accept: 'text/html' },
    );
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('refuses a request without token with 400 invalid_request', async () => {
    const res = await postForm(`${auth.issuer}/api/oauth/introspect`, {
      client_id: INTROSPECTOR.clientId,
      client_secret: INTROSPECTOR.clientSecret,
    });
    expectOAuthError(res, 400, 'invalid_request');
  });
});

describe('POST /api/oauth/revoke', () => {
  it('answers 200 for a token it never issued', async () => {
    const res = await revoke(auth, { token: 'not-a-token-this-server-issued', ...credentials(publicClient) });
    expect(res.status).toBe(200);
  });

  it('makes a revoked access token inactive', async () => {
    const own = await signIn(auth, publicClient, { scope: 'openid' });
    expect(await isActive(auth, own.access_token)).toBe(true);
    const res = await revoke(auth, { token: own.access_token, ...credentials(publicClient) });
    expect(res.status).toBe(200);
    expect(await isActive(auth, own.access_token)).toBe(false);
  });

  it('revokes an access token sent with the wrong token_type_hint', async () => {
    const own = await signIn(auth, publicClient, { scope: 'openid' });
    const res = await revoke(auth, {
      token: own.access_token,
      token_type_hint: 'refresh_token',
      ...credentials(publicClient),
    });
    expect(res.status).toBe(200);
    expect(await isActive(auth, own.access_token)).toBe(false);
  });

  it('makes a revoked refresh token and the access tokens of its grant inactive', async () => {
    const own = await signIn(auth, confidential, { scope: 'openid' });
    const res = await revoke(auth, { token: own.refresh_token, ...credentials(confidential) });
    expect(res.status).toBe(200);
    expect([await isActive(auth, own.refresh_token), await isActive(auth, own.access_token)]).toEqual([
      false,
      false,
    ]);
  });

  it("answers a public client revoking another client's token with 200 and leaves the token active", async () => {
    const other = await registerClient(auth);
    const res = await revoke(auth, { token: tokens.access_token, ...credentials(other) });
    expect(res.status).toBe(200);
    expect(await isActive(auth, tokens.access_token)).toBe(true);
  });

  it.each([
    ['access', () => tokens.access_token],
    ['refresh', () => tokens.refresh_token],
  ])(
    "answers a confidential client revoking another client's %s token exactly as for an unknown token, and leaves it active",
    async (_kind, token) => {
      const foreign = await revoke(auth, { token: token(), ...credentials(confidential) });
      const unknown = await revoke(auth, {
        token: 'not-a-token-this-server-issued',
        ...credentials(confidential),
      });
      expect([foreign.status, foreign.text, foreign.headers.get('content-type')]).toEqual([
        unknown.status,
        unknown.text,
        unknown.headers.get('content-type'),
      ]);
      expect(foreign.status).toBe(200);
      expect(await isActive(auth, token())).toBe(true);
    },
  );

  it('answers every revocation with Cache-Control: no-store, success and errors alike', async () => {
    const answers = [
      await revoke(auth, { token: 'unknown', ...credentials(publicClient) }),
      await revoke(auth, { token: tokens.access_token, ...credentials(confidential) }),
      await revoke(auth, credentials(publicClient)),
      await revoke(auth, { token: 'unknown' }),
      await revoke(auth, { token: 'unknown', client_id: confidential.clientId, client_secret: 'x' }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 401, 401]);
    expect(answers.map((a) => a.headers.get('cache-control'))).toEqual(Array(5).fill('no-store'));
  });

  it('refuses a request without client authentication with 401 invalid_client', async () => {
    const res = await revoke(auth, { token: tokens.access_token });
    expectOAuthError(res, 401, 'invalid_client');
    expect(await isActive(auth, tokens.access_token)).toBe(true);
  });

  it('refuses a confidential client with a wrong secret with 401 invalid_client', async () => {
    const own = await signIn(auth, confidential, { scope: 'openid' });
    const res = await revoke(auth, {
      token: own.access_token,
      client_id: confidential.clientId,
      client_secret: 'x',
    });
    expectOAuthError(res, 401, 'invalid_client');
    expect(await isActive(auth, own.access_token)).toBe(true);
  });

  it('refuses a request without token with 400 invalid_request', async () => {
    expectOAuthError(await revoke(auth, credentials(publicClient)), 400, 'invalid_request');
  });
});
