/**
 * The two discovery documents (RFC 8414 and OpenID Connect Discovery) against the real server: the
 * same document at both paths, advertising exactly what docs/contract.md lists, and nothing the
 * server does not do (no PAR, DPoP, logout, device flow, CIBA, agent_auth or identity endpoints).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { get } from './oauth-http.js';

/** The contract's scope table, written out again here so the test does not trust the code's own list. */
const SPEC_SCOPES = [
  'openid',
  'profile',
  'email',
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
];

let oidc: Record<string, unknown>;
let rfc8414: Record<string, unknown>;

const auth = authServerForFile();
beforeAll(async () => {
  const [a, b] = await Promise.all([
    get(`${auth.issuer}/.well-known/openid-configuration`),
    get(`${auth.issuer}/.well-known/oauth-authorization-server`),
  ]);
  expect([a.status, b.status]).toEqual([200, 200]);
  oidc = a.body!;
  rfc8414 = b.body!;
});

describe('the discovery documents', () => {
  it('serves the same document at both well-known paths', () => {
    expect(rfc8414).toEqual(oidc);
  });

  it('names the issuer and exactly the seven endpoints of the service (sign-out included), plus the JWKS URI', () => {
    const endpoints = Object.fromEntries(Object.entries(oidc).filter(([k]) => k.endsWith('_endpoint')));
    expect(endpoints).toEqual({
      authorization_endpoint: `${auth.issuer}/oauth/authorize`,
      token_endpoint: `${auth.issuer}/api/oauth/token`,
      userinfo_endpoint: `${auth.issuer}/api/oauth/userinfo`,
      registration_endpoint: `${auth.issuer}/api/oauth/register`,
      introspection_endpoint: `${auth.issuer}/api/oauth/introspect`,
      revocation_endpoint: `${auth.issuer}/api/oauth/revoke`,
      end_session_endpoint: `${auth.issuer}/oauth/session/end`,
    });
    expect(oidc.issuer).toBe(auth.issuer);
    expect(oidc.jwks_uri).toBe(`${auth.issuer}/api/oauth/jwks`);
  });

  it('advertises the code flow with PKCE S256, none and client_secret_post, the iss parameter and Client ID Metadata Documents', () => {
    expect(oidc).toMatchObject({
      grant_types_supported: ['authorization_code', 'refresh_token'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true, // draft-ietf-oauth-client-id-metadata-document
    });
  });

  it("lists exactly the contract's 38 scopes", () => {
    expect(SPEC_SCOPES).toHaveLength(38);
    expect(oidc.scopes_supported).toEqual(SPEC_SCOPES);
  });

  it('advertises sign-out (RP-initiated logout) at /oauth/session/end, and nothing of session management', () => {
    expect(oidc.end_session_endpoint).toBe(`${auth.issuer}/oauth/session/end`);
    expect(Object.keys(oidc).filter((k) => /logout|check_session/i.test(k))).toEqual([]);
  });

  it('advertises DPoP (RFC 9449) with its proof algorithms, and no nonce requirement', () => {
    expect(oidc.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
    expect(Object.keys(oidc).filter((k) => /dpop/i.test(k))).toEqual(['dpop_signing_alg_values_supported']);
  });

  it('advertises no PAR, front/back-channel or session logout, device, CIBA, agent_auth or identity features', () => {
    const unwanted =
      /pushed_authorization|require_pushed|frontchannel|backchannel_logout|check_session|device|backchannel|agent|identity|register_uri|mtls|jwt-bearer|token-exchange|id-jag/i;
    expect(Object.keys(oidc).filter((k) => unwanted.test(k))).toEqual([]);
    expect(JSON.stringify(oidc)).not.toMatch(/jwt-bearer|token-exchange|id-jag|implicit|client_credentials/i);
  });
});
