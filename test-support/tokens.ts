/**
 * Access tokens for tests, obtained the real way (test-support/oauth-flow.ts): one public client
 * registered with the test auth server, then authorization code + PKCE through the real login and
 * consent pages and the token endpoint. `token()` caches per scope set (and resource), so a suite
 * asking for 35 scope sets signs in 35 times, not once per assertion; the browser keeps its session,
 * so only the first sign-in types the password.
 */
import { ADMIN } from './auth-server.js';
import { FormBrowser } from './form-browser.js';
import {
  credentials,
  postForm,
  registerClient,
  signIn,
  type Account,
  type Issuer,
  type OAuthClient,
  type Tokens,
} from './oauth-flow.js';

export { REDIRECT, type Account } from './oauth-flow.js';

/** Options of one token request. */
export interface TokenOptions {
  /** RFC 8707 resource indicator: bind the token to this API (e.g. the issuer). */
  resource?: string;
}

/** Gets tokens from one test auth server. */
export class TokenSource {
  private registered?: Promise<OAuthClient>;
  private readonly cache = new Map<string, Promise<Tokens>>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly browser: FormBrowser;

  /**
   * `auth` is any issuer: a test auth server, or the edge of a whole stack (test-e2e, scripts/fuzz);
   * `account` signs in (default: the test auth servers' seeded {@link ADMIN}).
   */
  constructor(
    private readonly auth: Issuer,
    private readonly account: Account = ADMIN,
  ) {
    this.browser = new FormBrowser(auth.issuer);
  }

  /** The registered public client (registered on first use). */
  client(): Promise<OAuthClient> {
    this.registered ??= registerClient(this.auth, {
      client_name: 'resource-api tests',
      token_endpoint_auth_method: 'none',
    });
    return this.registered;
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
  fresh(scopes: readonly string[], options: TokenOptions = {}): Promise<Tokens> {
    // One sign-in at a time: the browser's cookies belong to one interaction.
    const run = this.queue.then(async () =>
      signIn(this.auth, await this.client(), {
        scope: scopes.join(' '),
        account: this.account,
        browser: this.browser,
        ...(options.resource ? { resource: options.resource } : {}),
      }),
    );
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Revokes a token at `/api/oauth/revoke` as the client that got it; throws unless 200. */
  async revoke(token: string, hint?: 'access_token' | 'refresh_token'): Promise<void> {
    const form = { token, ...(hint ? { token_type_hint: hint } : {}), ...credentials(await this.client()) };
    const res = await postForm(`${this.auth.issuer}/api/oauth/revoke`, form);
    if (res.status !== 200) throw new Error(`the revocation answered ${res.status}: ${res.text}`);
  }
}
