/**
 * The clients, grants and tokens the measures load: made the real way where cheap (registration,
 * the login and consent pages, code exchange), through oidc-provider's models for the 100,000-token pool.
 */
import { FormBrowser } from '#test-support/form-browser.js';
import { REDIRECT, registerClient, signIn, type OAuthClient, type Tokens } from '#test-support/oauth-flow.js';
import type { Bench } from './bench.js';

/** Scopes of the bench's user tokens: OpenID Connect plus two API areas, no resource binding. */
export const SCOPE = 'openid profile email courses:read students:read';
/** The same without `openid`: refresh grants then issue no id_token. */
export const SCOPE_NO_OPENID = 'courses:read students:read';
/** Distinct access tokens of the introspection pool MEM-AS, RS2, RS3 and MEM-API walk. */
export const POOL_SIZE = 100_000;

/** The registration request a native app or CLI sends; `confidential` asks for client_secret_post. */
export function registration(name: string, confidential = false): Record<string, unknown> {
  return {
    client_name: name,
    application_type: 'native',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: confidential ? 'client_secret_post' : 'none',
  };
}

export function register(origin: string, name: string, confidential = false): Promise<OAuthClient> {
  return registerClient({ issuer: origin }, registration(name, confidential));
}

/** Tokens with `scope` through the real pages and code exchange, as the bench's account. */
export function tokensFor(bench: Bench, browser: FormBrowser, client: OAuthClient, scope = SCOPE) {
  return signIn({ issuer: browser.origin }, client, { scope, account: bench.account, browser });
}

/** A signed-in browser and a public client at `origin`, shared (one sign-in, then straight through). */
function publicClient(bench: Bench, origin: string) {
  return bench.memo(`public-client:${origin}`, async () => ({
    browser: new FormBrowser(origin),
    client: await register(origin, 'bench CLI'),
  }));
}

/** `n` access tokens from `n` real code exchanges of one public client at `origin`. */
export async function flowTokens(bench: Bench, origin: string, n: number): Promise<string[]> {
  const { browser, client } = await publicClient(bench, origin);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await tokensFor(bench, browser, client)).access_token);
  return out;
}

/** `n` access tokens: one from a code exchange, the rest minted like it over 100 grants. */
export function introspectionPool(bench: Bench, n: number): Promise<string[]> {
  return bench.memo(`introspection-pool:${n}`, async () => {
    const { provider } = bench.runtime;
    const [real] = await flowTokens(bench, bench.auth.url, 1);
    const model = await provider.AccessToken.find(real!);
    const client = model && (await provider.Client.find(model.clientId!));
    if (!model || !client) throw new Error('the real access token or its client is not in storage');
    const tokens: string[] = [real!];
    const perGrant = Math.ceil(n / 100);
    while (tokens.length < n) {
      const grant = new provider.Grant({ accountId: model.accountId, clientId: client.clientId });
      grant.addOIDCScope(model.scope!);
      const grantId = await grant.save();
      const { accountId, gty, scope, claims, sessionUid, expiresWithSession } = model;
      const fields = { accountId, client, grantId, gty, scope, claims, sessionUid, expiresWithSession };
      const batch = Math.min(perGrant, n - tokens.length);
      tokens.push(
        ...(await Promise.all(Array.from({ length: batch }, () => new provider.AccessToken(fields).save()))),
      );
    }
    return tokens;
  });
}

/**
 * Refresh tokens of `n` confidential clients (client_secret_post) at `origin` (default the auth
 * server), each from a real sign-in and code exchange with `scope`. They rotate only after 70 % of
 * their life, so each can be used again and again.
 */
export function refreshTokens(bench: Bench, scope: string, n: number, origin = bench.auth.url) {
  return bench.memo(`refresh:${origin}:${scope}:${n}`, async () => {
    const { browser } = await publicClient(bench, origin);
    const out: { client: OAuthClient; tokens: Tokens }[] = [];
    for (let i = 0; i < n; i++) {
      const client = await register(origin, `bench service ${i}`, true);
      const tokens = await tokensFor(bench, browser, client, scope);
      if (!tokens.refresh_token) throw new Error('no refresh token issued');
      out.push({ client, tokens });
    }
    return out;
  });
}
