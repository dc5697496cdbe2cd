/**
 * openid-client against a test auth server over plain HTTP on loopback: a public client registers
 * itself and runs the code flow with PKCE, the seeded admin signing in and consenting in the form
 * browser.
 */
import * as oidc from 'openid-client';
import { ADMIN } from './auth-server.js';
import { authorizeInBrowser, FormBrowser } from './form-browser.js';

/** openid-client's option for an issuer on http:// (the test servers are). */
export const insecure = { execute: [oidc.allowInsecureRequests] };

/** A code-flow authorization URL of `config` for `params`, with a fresh PKCE pair (S256). */
export async function authorizationRequest(
  config: oidc.Configuration,
  params: { redirect_uri: string; scope: string; state?: string },
): Promise<{ url: URL; verifier: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    ...params,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { url, verifier };
}

/**
 * Registers a public client redirecting to `redirectUri` and signs in with it for `scope`; returns the
 * client's configuration, the callback URL (with its code), the PKCE verifier and the token response.
 */
export async function signInAsAdmin(issuer: string, redirectUri: string, scope: string) {
  const config = await oidc.dynamicClientRegistration(
    new URL(issuer),
    { redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );
  const { url, verifier } = await authorizationRequest(config, { redirect_uri: redirectUri, scope });
  const callback = await authorizeInBrowser(new FormBrowser(issuer), url.href, ADMIN);
  return {
    config,
    callback,
    verifier,
    tokens: await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }),
  };
}
