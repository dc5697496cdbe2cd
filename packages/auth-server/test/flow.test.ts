/**
 * The whole lifecycle of docs/contract.md, driven by openid-client (an independently written client) against
 * the real server, real Redis and the real MongoDB-protocol server: discovery, dynamic registration
 * (public and confidential), authorization with PKCE through the real login and consent forms, code
 * exchange with `iss` checked, userinfo, refresh, revocation, and introspection before and after.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { ADMIN, authServerForFile, INTROSPECTOR } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';

const insecure = { execute: [oidc.allowInsecureRequests] };
const REDIRECT = 'http://127.0.0.1:53682/callback';

let issuer: URL;

const auth = authServerForFile();
beforeAll(() => {
  issuer = new URL(auth.issuer);
});

/** Runs authorize → login → consent → code exchange for a client; returns the token response. */
async function signIn(config: oidc.Configuration, scope: string, extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  const callback = await authorizeInBrowser(new FormBrowser(auth.issuer), url.href, ADMIN);
  expect(callback.searchParams.get('iss')).toBe(auth.issuer);
  expect(callback.searchParams.get('state')).toBe(state);
  return oidc.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state },
    extra.resource ? { resource: extra.resource } : undefined,
  );
}

function introspector(): Promise<oidc.Configuration> {
  return oidc.discovery(
    issuer,
    INTROSPECTOR.clientId,
    undefined,
    oidc.ClientSecretPost(INTROSPECTOR.clientSecret),
    insecure,
  );
}

describe('the OAuth 2.0 / OpenID Connect lifecycle with openid-client', () => {
  it('serves a public client from discovery to revocation', async () => {
    const config = await oidc.dynamicClientRegistration(
      issuer,
      { client_name: 'Flow CLI', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(auth.issuer);
    expect(config.clientMetadata().client_secret).toBeUndefined();

    const tokens = await signIn(config, 'openid profile email courses:read');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.claims()?.iss).toBe(auth.issuer);
    const sub = tokens.claims()!.sub;

    const me = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(me).toMatchObject({ sub, email: ADMIN.email, name: ADMIN.name, email_verified: true });

    const rs = await introspector();
    const before = await oidc.tokenIntrospection(rs, tokens.access_token);
    expect(before).toMatchObject({ active: true, sub, client_id: config.clientMetadata().client_id });
    expect(before.scope?.split(' ').sort()).toEqual(['courses:read', 'email', 'openid', 'profile']);
    expect(before.aud).toBeUndefined();

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token); // public clients rotate

    await oidc.tokenRevocation(config, refreshed.refresh_token!);
    const after = await oidc.tokenIntrospection(rs, refreshed.access_token);
    expect(after.active).toBe(false);
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('serves a confidential client that authenticates with client_secret_post', async () => {
    const config = await oidc.dynamicClientRegistration(
      issuer,
      {
        client_name: 'Flow desktop app',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_post',
      },
      undefined,
      insecure,
    );
    const secret = config.clientMetadata().client_secret;
    expect(secret).toEqual(expect.any(String));
    const client = await oidc.discovery(
      issuer,
      config.clientMetadata().client_id,
      { redirect_uris: [REDIRECT] },
      oidc.ClientSecretPost(String(secret)),
      insecure,
    );

    const tokens = await signIn(client, 'openid email coupons:read');
    const refreshed = await oidc.refreshTokenGrant(client, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));

    const rs = await introspector();
    expect((await oidc.tokenIntrospection(rs, refreshed.access_token)).active).toBe(true);
    await oidc.tokenRevocation(client, refreshed.access_token);
    expect((await oidc.tokenIntrospection(rs, refreshed.access_token)).active).toBe(false);
  });

  it('binds a token to the API when resource is sent: aud shows, API scopes only, userinfo refuses it', async () => {
    const config = await oidc.dynamicClientRegistration(
      issuer,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const tokens = await signIn(config, 'openid profile courses:read courses:write', {
      resource: auth.issuer,
    });

    const info = await oidc.tokenIntrospection(await introspector(), tokens.access_token);
    expect(info).toMatchObject({ active: true, aud: auth.issuer });
    expect(info.scope?.split(' ').sort()).toEqual(['courses:read', 'courses:write']);

    const res = await fetch(`${auth.issuer}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect([401, 403]).toContain(res.status);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, {
      resource: `${auth.issuer}`,
    });
    const again = await oidc.tokenIntrospection(await introspector(), refreshed.access_token);
    expect(again).toMatchObject({ active: true, aud: auth.issuer });
  });

  it('accepts the resource indicator with a trailing slash and stores one canonical audience', async () => {
    const config = await oidc.dynamicClientRegistration(
      issuer,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const tokens = await signIn(config, 'pages:read', { resource: `${auth.issuer}/` });
    const info = await oidc.tokenIntrospection(await introspector(), tokens.access_token);
    expect(info).toMatchObject({ active: true, aud: auth.issuer, scope: 'pages:read' });
  });

  it('signs ID tokens with ES256, or RS256 for a client that registered it, verifiable with the published keys', async () => {
    const header = (jwt: string) =>
      JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { alg: string; kid: string };
    const jwks = (await (await fetch(`${auth.issuer}/api/oauth/jwks`)).json()) as {
      keys: Array<{ kid: string; d?: string }>;
    };
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true); // public parts only

    const es = await oidc.dynamicClientRegistration(
      issuer,
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const esTokens = await signIn(es, 'openid');
    expect(header(esTokens.id_token!).alg).toBe('ES256');

    const rs = await oidc.dynamicClientRegistration(
      issuer,
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'RS256',
      },
      oidc.None(),
      insecure,
    );
    const rsTokens = await signIn(rs, 'openid');
    expect(header(rsTokens.id_token!).alg).toBe('RS256');
    expect(jwks.keys.map((k) => k.kid)).toEqual(
      expect.arrayContaining([header(esTokens.id_token!).kid, header(rsTokens.id_token!).kid]),
    );
  });
});
