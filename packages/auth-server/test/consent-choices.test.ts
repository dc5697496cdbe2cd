/**
 * The consent page grants only what the admin leaves ticked: each scope is a checkbox, an app nobody
 * vouched for starts with its write scopes unticked, the token response's `scope` says what was
 * granted, a form cannot add what the request did not ask for, unticking everything is a deny, and a
 * refused scope asked for again is asked of the admin again, unticked and marked as refused before
 * (Allow left so keeps what the app holds). Real server, real Redis, the real pages through the form
 * browser.
 */
import { describe, expect, it } from '@jest/globals';
import { API_SCOPE_NAMES } from '@school/shared';
import { authServerForFile } from '../../../test-support/auth-server.js';
import {
  checkboxValues,
  formFields,
  FormBrowser,
  type FormFields,
  type Page,
} from '../../../test-support/form-browser.js';
import {
  openConsent,
  codeExchange,
  introspect,
  REDIRECT,
  registerClient,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

const auth = authServerForFile();

/** Opens the consent page for `scope` (signing in when asked); returns it and what the exchange needs. */
const consentPage = (browser: FormBrowser, client: TestClient, scope: string, resource?: string) =>
  openConsent(auth, browser, client, scope, resource);

/** The scopes whose boxes are ticked on `page` as it is served. */
function tickedOnPage(page: Page): string[] {
  return formFields(page.body, '/confirm')
    .filter(([name]) => name === 'scope')
    .map(([, value]) => value);
}

/** Allows with `fields` (e.g. the ticked scopes) and exchanges the code; the token response. */
async function allow(
  browser: FormBrowser,
  client: TestClient,
  consent: { page: Page; verifier: string },
  fields: FormFields,
  resource?: string,
): Promise<{ scope: string; access_token: string }> {
  const back = await browser.submit(consent.page, '/confirm', fields);
  const code = new URL(back.location!).searchParams.get('code');
  expect(code).toBeTruthy();
  const exchange = codeExchange(client, { code: code!, verifier: consent.verifier, redirectUri: REDIRECT });
  const res = await tokenRequest(auth, resource ? { ...exchange, resource } : exchange);
  expect(res.status).toBe(200);
  return res.body as { scope: string; access_token: string };
}

const sorted = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();

describe('scope checkboxes on the consent page', () => {
  it('start a self-registered app with reads ticked and writes unticked, and grant exactly that', async () => {
    const client = await registerClient(auth, { client_name: 'Ticks agent' });
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, client, 'courses:read coupons:write', auth.issuer);
    expect(checkboxValues(consent.page.body, 'scope').sort()).toEqual(['coupons:write', 'courses:read']);
    expect(tickedOnPage(consent.page)).toEqual(['courses:read']);
    // Allow as the page comes: the browser sends the ticked boxes only.
    const tokens = await allow(browser, client, consent, {}, auth.issuer);
    expect(tokens.scope).toBe('courses:read');
    const seen = await introspect(auth, tokens.access_token);
    expect(seen.body?.scope).toBe('courses:read');
  });

  it('leave out a read scope the admin unticked, and grant a write scope the admin ticked', async () => {
    const client = await registerClient(auth, { client_name: 'Choosy agent' });
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, client, 'openid email courses:read coupons:write');
    const tokens = await allow(browser, client, consent, { scope: ['email', 'coupons:write'] });
    expect(sorted(tokens.scope)).toEqual(['coupons:write', 'email', 'openid']);
  });

  it('grant every one of many scopes left ticked (more than the form parser keeps as a list)', async () => {
    const client = await registerClient(auth, { client_name: 'Wide agent' });
    const browser = new FormBrowser(auth.issuer);
    const many = API_SCOPE_NAMES.slice(0, 25);
    expect(many).toHaveLength(25);
    const consent = await consentPage(browser, client, many.join(' '), auth.issuer);
    const tokens = await allow(browser, client, consent, { scope: many }, auth.issuer);
    expect(sorted(tokens.scope)).toEqual([...many].sort());
  });

  it('never grant what the request did not ask for, whatever the form says', async () => {
    const client = await registerClient(auth, { client_name: 'Forging agent' });
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, client, 'courses:read', auth.issuer);
    const tokens = await allow(
      browser,
      client,
      consent,
      { scope: ['courses:read', 'students:write', 'not-a-scope'] },
      auth.issuer,
    );
    expect(tokens.scope).toBe('courses:read');
  });

  it('keep openid, which has no checkbox, whenever it was asked for', async () => {
    const client = await registerClient(auth, { client_name: 'Sign-in agent' });
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, client, 'openid courses:read');
    expect(checkboxValues(consent.page.body, 'scope')).toEqual(['courses:read']);
    const tokens = await allow(browser, client, consent, { scope: ['courses:read', 'openid'] });
    expect(sorted(tokens.scope)).toEqual(['courses:read', 'openid']);
  });

  it('treat Allow with everything unticked as Deny: access_denied goes back to the app', async () => {
    const client = await registerClient(auth, { client_name: 'Refused agent' });
    const browser = new FormBrowser(auth.issuer);
    const consent = await consentPage(browser, client, 'openid courses:read coupons:write');
    const back = await browser.submit(consent.page, '/confirm', { scope: [] });
    const to = new URL(back.location!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get('error')).toBe('access_denied');
    expect(to.searchParams.get('code')).toBeNull();
  });

  it('ask again for a refused scope when the app asks for it again, and grant it when ticked then', async () => {
    const client = await registerClient(auth, { client_name: 'Persistent agent' });
    const browser = new FormBrowser(auth.issuer);
    const first = await consentPage(browser, client, 'courses:read coupons:write', auth.issuer);
    expect((await allow(browser, client, first, {}, auth.issuer)).scope).toBe('courses:read');
    const again = await consentPage(browser, client, 'courses:read coupons:write', auth.issuer);
    expect(checkboxValues(again.page.body, 'scope')).toEqual(['coupons:write']);
    const tokens = await allow(browser, client, again, { scope: ['coupons:write'] }, auth.issuer);
    expect(sorted(tokens.scope)).toEqual(['coupons:write', 'courses:read']);
  });

  it('start a scope refused before unticked and marked; Allow left so keeps what the app holds', async () => {
    const client = await registerClient(auth, { client_name: 'Twice asking agent' });
    const browser = new FormBrowser(auth.issuer);
    const first = await consentPage(browser, client, 'courses:read school:read', auth.issuer);
    const firstTokens = await allow(browser, client, first, { scope: ['courses:read'] }, auth.issuer);
    expect(firstTokens.scope).toBe('courses:read');
    const again = await consentPage(browser, client, 'courses:read school:read', auth.issuer);
    expect(checkboxValues(again.page.body, 'scope')).toEqual(['school:read']);
    expect(tickedOnPage(again.page)).toEqual([]);
    expect(again.page.body).toContain('You refused this before.');
    expect(again.page.body).toContain('Left unticked, Allow keeps only what you allowed before.');
    expect(again.page.body).not.toContain('Unticking everything is the same as Deny.');
    // Allowed as the page comes: the refusal stands, the app keeps what it had.
    const tokens = await allow(browser, client, again, {}, auth.issuer);
    expect(tokens.scope).toBe('courses:read');
    // And asked a third time, still refused before.
    const third = await consentPage(browser, client, 'courses:read school:read', auth.issuer);
    expect(tickedOnPage(third.page)).toEqual([]);
    expect(third.page.body).toContain('You refused this before.');
  });

  it('take back a scope allowed before when the admin unticks it on a page asking nothing new', async () => {
    const client = await registerClient(auth, { client_name: 'Narrowed agent' });
    const browser = new FormBrowser(auth.issuer);
    const first = await consentPage(browser, client, 'courses:read school:read', auth.issuer);
    expect(sorted((await allow(browser, client, first, {}, auth.issuer)).scope)).toEqual([
      'courses:read',
      'school:read',
    ]);
    const again = await consentPage(browser, client, 'courses:read school:read', auth.issuer);
    expect(again.page.body).toContain('You allowed all of this before');
    const tokens = await allow(browser, client, again, { scope: ['school:read'] }, auth.issuer);
    expect(tokens.scope).toBe('school:read');
  });
});
