/**
 * Connected apps beside what each app was granted: which scopes it used and when (reported by the
 * resource API in its introspection requests, `used_scope`), its client id and when its access ends,
 * and "Drop unused scopes", which narrows the grant, ends the access tokens that still carry the
 * dropped scopes and keeps the refresh token working with what is left. Real server, real Redis, real
 * HTTP; the API's report is the introspection request the resource API sends.
 */
import { describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, INTROSPECTOR } from '../../../test-support/auth-server.js';
import { FormBrowser, openAccountPage, type Page } from '../../../test-support/form-browser.js';
import * as flow from '../../../test-support/oauth-flow.js';
import { introspect, isActive, registerClient, signIn, tokenRequest, type TestClient } from './oauth-http.js';

const auth = authServerForFile();

const SCOPES = 'openid courses:read coupons:write school:read';

/** The API's report that an operation needing `scope` was served with `token`. */
async function reportUse(token: string, scope: string, as = INTROSPECTOR): Promise<void> {
  const res = await introspect(auth, token, {
    client_id: as.clientId,
    client_secret: as.clientSecret,
    used_scope: scope,
  });
  expect(res.status).toBe(200);
  expect(res.body?.active).toBe(true);
}

/** The card of the app with client id `clientId` on a Connected apps page. */
function card(page: Page, clientId: string): string {
  const found = page.body
    .split('<section class="card"')
    .slice(1)
    .find((c) => c.includes(`<code><bdi>${clientId}</bdi></code>`));
  expect(found).toBeDefined();
  return found!;
}

/** The rows of an app's scope table: scope → its "Last used" cell. */
function lastUses(cardHtml: string): Record<string, string> {
  return Object.fromEntries(
    [
      ...cardHtml.matchAll(
        /<td data-label="Scope"><code>([^<]+)<\/code><\/td>[\s\S]*?<td data-label="Last used">([^<]*)<\/td>/g,
      ),
    ].map((m) => [m[1]!, m[2]!.trim()]),
  );
}

async function appWithTokens(name: string): Promise<{ client: TestClient; access: string; refresh: string }> {
  const client = await registerClient(auth, { client_name: name });
  const tokens = await signIn(auth, client, { scope: SCOPES, resource: auth.issuer });
  return { client, access: tokens.access_token, refresh: tokens.refresh_token };
}

describe('Connected apps with the scopes used', () => {
  it('tells two apps of one name apart by client id, and shows each scope’s last use and the end of access', async () => {
    const one = await appWithTokens('Twin agent');
    const two = await appWithTokens('Twin agent');
    await reportUse(one.access, 'courses:read');
    const page = await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', ADMIN);
    const first = card(page, one.client.clientId);
    const second = card(page, two.client.clientId);
    expect(lastUses(first)).toEqual({
      'courses:read': expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      'coupons:write': 'Not used yet',
      'school:read': 'Not used yet',
      openid: 'Used at sign-in (not recorded)',
    });
    expect(lastUses(second)['courses:read']).toBe('Not used yet');
    expect(first).toMatch(/<dt>Access ends<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/dd>/);
    expect(first).toContain('Drop unused scopes');
    expect(second).toContain('Drop unused scopes'); // nothing used yet: every API scope is unused
    // Each card's landmark is named apart, though the apps share a name.
    const label = (c: string) => /^\s*aria-label="([^"]+)"/.exec(c)?.[1];
    expect(label(first)).toBe(`Twin agent (${one.client.clientId})`);
    expect(label(second)).toBe(`Twin agent (${two.client.clientId})`);
  });

  it('records no use of a scope the token does not carry, nor one an app claims itself', async () => {
    const app = await appWithTokens('Claiming agent');
    const res = await introspect(auth, app.access, {
      client_id: INTROSPECTOR.clientId,
      client_secret: INTROSPECTOR.clientSecret,
      used_scope: 'students:write',
    });
    expect(res.body?.active).toBe(true);
    const confidential = await registerClient(auth, {
      client_name: 'Self-reporting agent',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const own = await signIn(auth, confidential, { scope: SCOPES, resource: auth.issuer });
    await reportUse(own.access_token, 'courses:read', {
      clientId: confidential.clientId,
      clientSecret: confidential.clientSecret!,
    });
    const page = await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', ADMIN);
    expect(card(page, app.client.clientId)).not.toContain('students:write');
    expect(lastUses(card(page, confidential.clientId))['courses:read']).toBe('Not used yet');
  });

  it('drops the unused scopes: old access tokens end, the refresh token goes on with what is left', async () => {
    const app = await appWithTokens('Narrowed agent');
    await reportUse(app.access, 'courses:read');
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/apps', ADMIN);
    expect(card(page, app.client.clientId)).toContain('Drop unused scopes');
    const after = await browser.submit(
      { ...page, body: card(page, app.client.clientId) },
      '/apps/drop-unused',
    );
    expect(after.status).toBe(200);
    expect(after.body).toContain('no longer has write access to coupons and read access to school');
    expect(Object.keys(lastUses(card(after, app.client.clientId))).sort()).toEqual([
      'courses:read',
      'openid',
    ]);
    expect(await isActive(auth, app.access)).toBe(false);

    const refreshed = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: app.refresh,
      client_id: app.client.clientId,
      resource: auth.issuer,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body?.scope).toBe('courses:read');
    const seen = await introspect(auth, refreshed.body!.access_token as string);
    expect(seen.body?.scope).toBe('courses:read');
  });

  it('drops every API scope of an app that used none yet; it keeps the sign-in scopes', async () => {
    const app = await appWithTokens('Idle agent');
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/apps', ADMIN);
    const after = await browser.submit(
      { ...page, body: card(page, app.client.clientId) },
      '/apps/drop-unused',
    );
    expect(after.status).toBe(200);
    expect(after.body).toContain(
      'no longer has read access to courses, write access to coupons and read access to school',
    );
    expect(Object.keys(lastUses(card(after, app.client.clientId)))).toEqual(['openid']);
    expect(await isActive(auth, app.access)).toBe(false);
    // The notice was shown once: the page again says nothing of it.
    const again = await browser.request(after.url);
    expect(again.body).not.toContain('no longer has');
  });
  it('drops nothing from an app only someone else allowed, whatever client id the form names', async () => {
    const email = `other-${Date.now()}@school.test`;
    const password = 'a long password for another person';
    // Another admin: an account whose ceiling lets it grant every scope the app asks.
    await auth.running.accounts.create({ email, password, name: 'Other Person', role: 'admin' });
    const client = await registerClient(auth, { client_name: 'Their agent' });
    const theirs = await flow.signIn(auth, client, {
      scope: SCOPES,
      resource: auth.issuer,
      account: { email, password },
    });
    await reportUse(theirs.access_token, 'courses:read');
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/apps', ADMIN);
    const forged = await browser.request('/oauth/account/apps/drop-unused', {
      form: { csrf: /name="csrf" value="([^"]+)"/.exec(page.body)![1]!, client_id: client.clientId },
    });
    expect(forged.status).toBe(409);
    expect(forged.body).toContain('That app has no access to your account');
    expect(await isActive(auth, theirs.access_token)).toBe(true);
    const seen = await introspect(auth, theirs.access_token);
    expect(seen.body?.scope).toBe('courses:read coupons:write school:read');
  });
});
