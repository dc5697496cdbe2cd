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
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await authorizeInBrowser(new FormBrowser(issuer), url.href, ADMIN);
  return {
    config,
    callback,
    verifier,
    tokens: await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }),
  };
}
