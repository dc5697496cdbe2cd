/**
 * Access tokens for tests, obtained the real way: one public client registered with the test auth
 * server, then authorization code + PKCE through the real login and consent pages (FormBrowser) and
 * the token endpoint, all with openid-client. `token()` caches per scope set (and resource), so a
 * suite asking for 35 scope sets signs in 35 times, not once per assertion; the browser keeps its
 * session, so only the first sign-in types the password.
 */
import * as oidc from 'openid-client';
import { ADMIN, type TestAuthServer } from './auth-server.js';
import { authorizeInBrowser, FormBrowser } from './form-browser.js';

const insecure = { execute: [oidc.allowInsecureRequests] };
/** The redirect URI the test client registers (scripts/fuzz aims the authorization endpoint at it). */
export const REDIRECT = 'http://127.0.0.1:53682/callback';

/** Options of one token request. */
export interface TokenOptions {
  /** RFC 8707 resource indicator: bind the token to this API (e.g. the issuer). */
  resource?: string;
}

/** Who signs in at the consent step. */
export interface Account {
  email: string;
  password: string;
}

/** Gets tokens from one test auth server. */
export class TokenSource {
  private client?: Promise<oidc.Configuration>;
  private readonly cache = new Map<string, Promise<oidc.TokenEndpointResponse>>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly browser: FormBrowser;

  /**
   * `auth` is any issuer: a test auth server, or the edge of a whole stack (test-e2e, scripts/fuzz);
   * `account` signs in (default: the test auth servers' seeded {@link ADMIN}).
   */
  constructor(
    private readonly auth: Pick<TestAuthServer, 'issuer'>,
    private readonly account: Account = ADMIN,
  ) {
    this.browser = new FormBrowser(auth.issuer);
  }

  /** The registered public client (registered on first use). */
  config(): Promise<oidc.Configuration> {
    this.client ??= oidc.dynamicClientRegistration(
      new URL(this.auth.issuer),
      { client_name: 'resource-api tests', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    return this.client;
  }

  /** An access token with exactly `scopes` (cached per scope set and resource). */
  async token(scopes: readonly string[], options: TokenOptions = {}): Promise<string> {
    const key = `${[...scopes].sort().join(' ')}|${options.resource ?? ''}`;
    let pending = this.cache.get(key);
    if (!pending) {
      pending = this.fresh(scopes, options);
      this.cache.set(key, pending);
      pending.catch(() => this.cache.delete(key));
    }
    return (await pending).access_token;
  }

  /** A new token response (access and refresh token), never cached: for tests that revoke or expire it. */
  fresh(scopes: readonly string[], options: TokenOptions = {}): Promise<oidc.TokenEndpointResponse> {
    // One sign-in at a time: the browser's cookies belong to one interaction.
    const run = this.queue.then(() => this.signIn(scopes, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Revokes a token at `/api/oauth/revoke` as the client that got it. */
  async revoke(token: string, hint?: 'access_token' | 'refresh_token'): Promise<void> {
    await oidc.tokenRevocation(await this.config(), token, hint ? { token_type_hint: hint } : undefined);
  }

  private async signIn(
    scopes: readonly string[],
    options: TokenOptions,
  ): Promise<oidc.TokenEndpointResponse> {
    const config = await this.config();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: scopes.join(' '),
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(options.resource ? { resource: options.resource } : {}),
    });
    const callback = await authorizeInBrowser(this.browser, url.href, this.account);
    const tokens = await oidc.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      options.resource ? { resource: options.resource } : undefined,
    );
    return tokens;
  }
}
