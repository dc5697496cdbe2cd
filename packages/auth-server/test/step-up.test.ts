/**
 * Step-up authorization (docs/decisions.md): a client that holds a grant and asks again for more
 * scopes, as an MCP client does after a 403 `insufficient_scope`, is asked to consent to what is new
 * only and the tokens carry everything the request named. In the same login session the consent
 * adds to the session's grant; after signing in again elsewhere it adds to a copy of what the account
 * allowed the app, so the page is the same and each sign-in's grant stays its own. Real server, real
 * Redis, the real pages through the form browser.
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile, INTROSPECTOR } from '../../../test-support/auth-server.js';
import { checkboxValues, FormBrowser, type Page } from '../../../test-support/form-browser.js';
import { accountGrants } from '../src/storage/account-grants.js';
import {
  openConsent,
  codeExchange,
  expectOAuthError,
  postForm,
  REDIRECT,
  register,
  registerClient,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

const auth = authServerForFile();

/** What the consent page says: the heading over the scopes, and the scope names it lists (in `<code>`). */
function consentShown(page: Page): { heading: string; listed: string[] } {
  const [, heading = '', list = ''] =
    /<legend>([^<]*)<\/legend>([\s\S]*?)<div class="actions">/.exec(page.body) ?? [];
  return { heading, listed: [...list.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]!) };
}

/** One authorization through the pages: what the consent page listed (if it showed) and the tokens. */
async function authorize(
  browser: FormBrowser,
  client: TestClient,
  scope: string,
  resource?: string,
): Promise<{
  consent: ReturnType<typeof consentShown>;
  scope: string;
  accessToken: string;
  refreshToken: string;
}> {
  // oidc-provider asks an app on this computer (a native client) for consent every time.
  const opened = await openConsent(auth, browser, client, scope, resource);
  let page = opened.page;
  const verifier = opened.verifier;
  const consent = consentShown(page);
  page = await browser.submit(page, '/confirm', { scope: checkboxValues(page.body, 'scope') });
  const callback = new URL(page.location ?? 'about:blank');
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${page.status} ${page.location ?? page.body.slice(0, 300)}`);
  const exchange = codeExchange(client, { code, verifier, redirectUri: REDIRECT });
  const res = await tokenRequest(auth, resource ? { ...exchange, resource } : exchange);
  expect(res.status).toBe(200);
  const body = res.body as { scope: string; access_token: string; refresh_token: string };
  return { consent, scope: body.scope, accessToken: body.access_token, refreshToken: body.refresh_token };
}

/** What introspection says of a live token. */
async function introspect(token: string): Promise<{ active: boolean; scope?: string; sub?: string }> {
  const res = await postForm(`${auth.issuer}/api/oauth/introspect`, {
    token,
    client_id: INTROSPECTOR.clientId,
    client_secret: INTROSPECTOR.clientSecret,
  });
  const body = res.body as { active: boolean; scope?: string; sub?: string };
  expect(body.active).toBe(true);
  return body;
}

/** The scopes introspection says the token carries, sorted. */
async function introspectedScopes(token: string): Promise<string[]> {
  return ((await introspect(token)).scope ?? '').split(' ').sort();
}

/** The grants the admin (the `sub` of `token`) holds for `client`: id and sorted scopes, oldest first. */
async function grantsOf(client: TestClient, token: string): Promise<{ grantId: string; scopes: string[] }[]> {
  const { sub } = await introspect(token);
  const held = await accountGrants(auth.running.redis, auth.config.REDIS_KEY_PREFIX, sub!);
  return held
    .filter((g) => g.clientId === client.clientId)
    .sort((a, b) => a.issuedAt - b.issuedAt || a.grantId.localeCompare(b.grantId))
    .map((g) => ({ grantId: g.grantId, scopes: [...g.scopes].sort() }));
}

/** Whether introspection says `token` is live. */
async function isLive(token: string): Promise<boolean> {
  const res = await postForm(`${auth.issuer}/api/oauth/introspect`, {
    token,
    client_id: INTROSPECTOR.clientId,
    client_secret: INTROSPECTOR.clientSecret,
  });
  return (res.body as { active: boolean }).active;
}

const sorted = (scope: string) => scope.split(' ').sort();
const ALSO = 'Besides what you allowed before, it will also be able to';
const AGAIN = 'You allowed all of this before. It will still be able to';

describe.each([
  ['bound to the API (resource)', 'courses:read', true],
  ['without a resource', 'openid courses:read', false],
])('a second authorization asking for more, %s', (_label, first, bound) => {
  const resource = () => (bound ? auth.issuer : undefined);
  const union = `${first} courses:write`;

  it('in the same browser: consent lists only the new scope, the grant grows, the token carries the union', async () => {
    const client = await registerClient(auth, { client_name: 'Step-up agent', redirect_uris: [REDIRECT] });
    const browser = new FormBrowser(auth.issuer);
    const one = await authorize(browser, client, first, resource());
    expect(one.consent).toEqual({ heading: 'It will be able to', listed: first.split(' ') });
    const { grantId } = (await grantsOf(client, one.accessToken))[0]!;

    const two = await authorize(browser, client, union, resource());
    expect(two.consent).toEqual({ heading: ALSO, listed: ['courses:write'] });
    expect(sorted(two.scope)).toEqual(sorted(union));
    expect(await introspectedScopes(two.accessToken)).toEqual(sorted(union));
    expect(await grantsOf(client, one.accessToken)).toEqual([{ grantId, scopes: sorted(union) }]);
  });

  it('after signing in again in another browser: the same, from a copy that leaves the first sign-in apart', async () => {
    const client = await registerClient(auth, { client_name: 'Step-up agent', redirect_uris: [REDIRECT] });
    const one = await authorize(new FormBrowser(auth.issuer), client, first, resource());
    expect(one.consent).toEqual({ heading: 'It will be able to', listed: first.split(' ') });
    const { grantId } = (await grantsOf(client, one.accessToken))[0]!;

    const two = await authorize(new FormBrowser(auth.issuer), client, union, resource());
    expect(two.consent).toEqual({ heading: ALSO, listed: ['courses:write'] });
    expect(sorted(two.scope)).toEqual(sorted(union));
    expect(await introspectedScopes(two.accessToken)).toEqual(sorted(union));
    // The first sign-in's grant is as it was; this sign-in's holds the union.
    // (Two grants of one second list in either order: iat has a resolution of a second.)
    const grants = await grantsOf(client, one.accessToken);
    expect(grants).toHaveLength(2);
    expect(grants).toEqual(
      expect.arrayContaining([
        { grantId, scopes: sorted(first) },
        { grantId: expect.not.stringMatching(`^${grantId}$`), scopes: sorted(union) },
      ]),
    );

    // Asking for nothing new: the page lists what is asked, all of it allowed before.
    const three = await authorize(new FormBrowser(auth.issuer), client, union, resource());
    expect(three.consent).toEqual({ heading: AGAIN, listed: union.split(' ') });
    expect(sorted(three.scope)).toEqual(sorted(union));

    // Ending one sign-in's grant (revoking its refresh token) leaves the others live.
    const revoked = await postForm(`${auth.issuer}/api/oauth/revoke`, {
      token: two.refreshToken,
      client_id: client.clientId,
    });
    expect(revoked.status).toBe(200);
    expect([
      await isLive(two.accessToken),
      await isLive(one.accessToken),
      await isLive(three.accessToken),
    ]).toEqual([false, true, true]);
  });
});

describe('a client that registered a scope', () => {
  it('is not held to it: it steps up beyond it, and the registration answer does not claim one', async () => {
    // MCP clients register with the scope of their first authorization (the baseline).
    const res = await register(auth, {
      client_name: 'Registered-scope agent',
      redirect_uris: [REDIRECT],
      scope: 'courses:read',
    });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('scope');
    const client = { clientId: (res.body as { client_id: string }).client_id };
    const browser = new FormBrowser(auth.issuer);
    await authorize(browser, client, 'courses:read', auth.issuer);
    const two = await authorize(browser, client, 'courses:read courses:write', auth.issuer);
    expect(two.consent).toEqual({ heading: ALSO, listed: ['courses:write'] });
    expect(sorted(two.scope)).toEqual(['courses:read', 'courses:write']);
  });

  it.each([42, ['courses:read'], '', null, 'bogus', 'courses:read  openid'])(
    'is still refused for a malformed scope (%j), as before, never kept',
    async (scope) => {
      const res = await register(auth, { client_name: 'Bad scope', redirect_uris: [REDIRECT], scope });
      expectOAuthError(res, 400, 'invalid_client_metadata');
    },
  );
});
