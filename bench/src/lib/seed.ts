/**
 * The clients, grants and tokens the measures load, created the real way where it is cheap (HTTP
 * registration, sign-in through the login and consent pages, code exchange with PKCE) and through
 * oidc-provider's own models where the real way would take minutes (the 100,000 access tokens of the
 * introspection pool: same models, same storage, same fields as a code exchange produces).
 */
import { FormBrowser, formAction, inputValue } from '#test-support/form-browser.js';
import {
  authorizationUrl,
  newState,
  pkce,
  REDIRECT,
  registerClient,
  signIn,
  type OAuthClient,
  type Tokens,
} from '#test-support/oauth-flow.js';
import type { Bench } from './bench.js';

/** Scopes of the bench's user tokens: OpenID Connect plus two API areas, no resource binding. */
export const SCOPE = 'openid profile email courses:read students:read';
/** The same without `openid`: refresh grants then issue no id_token. */
export const SCOPE_NO_OPENID = 'courses:read students:read';

/** The registration request a native app or CLI sends; `confidential` asks for client_secret_post. */
export function registration(name: string, confidential: boolean): Record<string, unknown> {
  return {
    client_name: name,
    application_type: 'native',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: confidential ? 'client_secret_post' : 'none',
  };
}

/** Registers such a client at `origin`. */
export function register(origin: string, name: string, confidential: boolean): Promise<OAuthClient> {
  return registerClient({ issuer: origin }, registration(name, confidential));
}

/** A signed-in browser and a public client at `origin` (one sign-in, then straight through). */
export function publicClient(
  bench: Bench,
  origin: string,
): Promise<{ browser: FormBrowser; client: OAuthClient }> {
  return bench.memo(`public-client:${origin}`, async () => {
    const client = await register(origin, 'bench CLI', false);
    return { browser: new FormBrowser(origin), client };
  });
}

/** Tokens with `scope` for `client` through the real pages and code exchange, as the bench's account. */
function tokensFor(bench: Bench, browser: FormBrowser, client: OAuthClient, scope: string): Promise<Tokens> {
  return signIn({ issuer: browser.origin }, client, { scope, account: bench.account, browser });
}

/** `n` access tokens from `n` real code exchanges of one public client at `origin`. */
export async function flowTokens(bench: Bench, origin: string, n: number): Promise<string[]> {
  const { browser, client } = await publicClient(bench, origin);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push((await tokensFor(bench, browser, client, SCOPE)).access_token);
  return out;
}

/**
 * `n` access tokens of the real auth server: a handful from real code exchanges (whose stored form
 * the rest copy), the rest minted through `provider.AccessToken` over `grants` grants.
 */
export function introspectionPool(bench: Bench, n: number, grants = 100): Promise<string[]> {
  return bench.memo(`introspection-pool:${n}`, async () => {
    const { provider } = bench.runtime;
    const [real] = await flowTokens(bench, bench.auth.url, 1);
    const model = await provider.AccessToken.find(real!);
    if (!model) throw new Error('the real access token is not in storage');
    const client = await provider.Client.find(model.clientId!);
    if (!client) throw new Error('the real client is not in storage');
    const tokens: string[] = [real!];
    const perGrant = Math.ceil(n / grants);
    for (let g = 0; tokens.length < n; g++) {
      const grant = new provider.Grant({ accountId: model.accountId, clientId: client.clientId });
      grant.addOIDCScope(model.scope!);
      const grantId = await grant.save();
      const batch: Promise<string>[] = [];
      for (let i = 0; i < perGrant && tokens.length + batch.length < n; i++) {
        batch.push(
          new provider.AccessToken({
            accountId: model.accountId,
            client,
            grantId,
            gty: model.gty,
            scope: model.scope,
            claims: model.claims,
            sessionUid: model.sessionUid,
            expiresWithSession: model.expiresWithSession,
          }).save(),
        );
      }
      tokens.push(...(await Promise.all(batch)));
    }
    return tokens;
  });
}

/**
 * Refresh tokens of `n` confidential clients (client_secret_post), each from a real sign-in and code
 * exchange with `scope`. Confidential clients' refresh tokens rotate only after 70 % of their life,
 * so each can be used again and again.
 */
export function refreshTokens(
  bench: Bench,
  scope: string,
  n: number,
): Promise<{ client: OAuthClient; tokens: Tokens }[]> {
  return bench.memo(`refresh:${scope}:${n}`, async () => {
    const { browser } = await publicClient(bench, bench.auth.url);
    const out: { client: OAuthClient; tokens: Tokens }[] = [];
    for (let i = 0; i < n; i++) {
      const client = await register(bench.auth.url, `bench service ${i}`, true);
      const tokens = await tokensFor(bench, browser, client, scope);
      if (!tokens.refresh_token) throw new Error('no refresh token issued');
      out.push({ client, tokens });
    }
    return out;
  });
}

/** A login form ready to submit: what a browser holds right before the user presses "Sign in". */
export interface PreparedLogin {
  path: string;
  /** The cookies the browser sends to the form's action (its interaction's, by their Path). */
  cookie: string;
  csrf: string;
}

/** Starts a fresh authorization (a new browser, no session) and loads its login page. */
export async function prepareLogin(
  origin: string,
  client: OAuthClient,
  scope: string,
): Promise<PreparedLogin> {
  const browser = new FormBrowser(origin);
  const url = authorizationUrl(
    { issuer: origin },
    {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REDIRECT,
      scope,
      state: newState(),
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    },
  );
  const page = await browser.follow(url);
  const path = formAction(page.body, '/login');
  const csrf = inputValue(page.body, 'csrf');
  if (!path || !csrf) throw new Error(`no login form: ${page.status} ${page.body.slice(0, 200)}`);
  return { path, cookie: await browser.cookieHeader(path), csrf };
}
