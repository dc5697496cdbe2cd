/**
 * Each client authenticates exactly by a method the discovery metadata lists, at every endpoint that
 * authenticates clients: HTTP Basic is not offered, so it is refused even with
 * the right secret; stray `client_assertion` parameters are refused, not ignored; introspection takes
 * `client_secret_post` alone, so a public client cannot introspect with its client id. Real server,
 * real Redis.
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import {
  credentials,
  expectOAuthError,
  isActive,
  postForm,
  publicAndConfidentialForFile,
  signIn,
  signedInForFile,
  type Tokens,
} from './oauth-http.js';

const auth = authServerForFile();
const [publicClient, confidential] = publicAndConfidentialForFile(auth);
const tokens = signedInForFile(auth, confidential, { scope: 'openid courses:read' });

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** Each endpoint with a form that would succeed for the confidential client by client_secret_post. */
const ENDPOINTS: Array<[string, string, () => Record<string, string>]> = [
  ['token', '/api/oauth/token', () => ({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })],
  ['introspection', '/api/oauth/introspect', () => ({ token: tokens.access_token })],
  ['revocation', '/api/oauth/revoke', () => ({ token: 'not-a-token-this-server-issued' })],
];

describe.each(ENDPOINTS)('the %s endpoint', (_name, path, form) => {
  it('refuses a client_secret_post client presenting its right secret with HTTP Basic, 401 invalid_client and a Basic challenge (RFC 6749 §5.2)', async () => {
    const res = await postForm(`${auth.issuer}${path}`, form(), {
      authorization: basic(confidential.clientId, confidential.clientSecret!),
    });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBe(`Basic realm="${auth.issuer}", error="invalid_client"`);
  });

  it.each([
    ['client_assertion', { client_assertion: 'eyJhbGciOiJIUzI1NiJ9.e30.x' }],
    [
      'client_assertion_type',
      { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer' },
    ],
  ])('refuses a stray %s beside valid credentials with 401 invalid_client', async (_param, extra) => {
    const res = await postForm(`${auth.issuer}${path}`, {
      ...form(),
      ...credentials(confidential),
      ...extra,
    });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('still accepts the registered method, client_secret_post', async () => {
    const res = await postForm(`${auth.issuer}${path}`, { ...form(), ...credentials(confidential) });
    expect(res.status).toBe(200);
    if (path.endsWith('/token')) Object.assign(tokens, res.body as unknown as Tokens);
  });
});

describe('introspection', () => {
  it('refuses a public client introspecting its own token with its client_id alone, 401 invalid_client', async () => {
    const own = await signIn(auth, publicClient, { scope: 'openid' });
    const res = await postForm(`${auth.issuer}/api/oauth/introspect`, {
      token: own.access_token,
      ...credentials(publicClient),
    });
    expectOAuthError(res, 401, 'invalid_client');
  });

  it('still serves the introspecting service by client_secret_post', async () => {
    expect(await isActive(auth, tokens.access_token)).toBe(true);
  });
});

describe('the discovery metadata lists exactly what is accepted', () => {
  it('advertises none and client_secret_post for token and revocation, client_secret_post alone for introspection', async () => {
    const doc = (await (
      await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(doc.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
    expect(doc.revocation_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
    expect(doc.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_post']);
  });
});
