/**
 * Your account over real HTTP, as browsers without JavaScript use it: changing the password
 * (the current one checked and throttled like a sign-in, the new one under the one rule, every other
 * session of the account ended, the old password refused afterwards), signing out everywhere (every
 * session ends, the apps keep their tokens), the forms' CSRF and Origin checks, and the audit events.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import type { Page } from '../../../test-support/form-browser.js';
import { forgedPostStatuses, formAction, FormBrowser } from '../../../test-support/form-browser.js';
import { inputValue, openAccountPage } from '../../../test-support/form-browser.js';
import { signIn as flowSignIn } from '../../../test-support/oauth-flow.js';
import { isActive, registerClient } from './oauth-http.js';

const PAGE = '/oauth/account/account';

// Three wrong passwords of one account from one address lock that pair (the sign-in page's rule).
const auth = authServerForFile({ LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3' });

/** A new staff account of its own for each test. */
async function newPerson(): Promise<{ id: string; email: string; password: string }> {
  const email = `staff-${randomBytes(4).toString('hex')}@school.test`;
  const password = `first password ${randomBytes(4).toString('hex')}`;
  const { _id } = await auth.running.accounts.create({ email, password, name: 'Sam Staff' });
  return { id: _id, email, password };
}

/** A browser signed in as `person`, on Your account. */
async function signedIn(person: { email: string; password: string }): Promise<[FormBrowser, Page]> {
  const browser = new FormBrowser(auth.issuer);
  const page = await openAccountPage(browser, PAGE, person);
  expect(page.status).toBe(200);
  expect(page.body).toContain('<h1>Your account</h1>');
  return [browser, page];
}

/** True when `browser` is still signed in to the account pages. */
async function stillSignedIn(browser: FormBrowser): Promise<boolean> {
  const res = await browser.request(PAGE);
  return res.status === 200;
}

/** The status of a fresh sign-in with `password` (200: signed in; 401: refused). */
async function trySignIn(email: string, password: string): Promise<number> {
  return (await openAccountPage(new FormBrowser(auth.issuer), PAGE, { email, password })).status;
}

describe('changing the password', () => {
  it('refuses a wrong current password with the page’s error, changes nothing and counts it as a failed sign-in', async () => {
    const person = await newPerson();
    const [browser, page] = await signedIn(person);
    const refused = await browser.submit(page, '/account/password', {
      current: 'not my password at all',
      password: 'a brand new password',
      confirm: 'a brand new password',
    });
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('Your current password is not right');
    expect(await trySignIn(person.email, person.password)).toBe(200);
    expect(await trySignIn(person.email, 'a brand new password')).toBe(401);
    // The sign-in failure above names the account too; the form's own failure says which form.
    const failures = await auth.running.audit.query({ type: 'login_failed', accountId: person.id });
    const failure = failures.find((e) => e.details?.form === 'change_password');
    expect(failure?.details).toMatchObject({ email: person.email, form: 'change_password' });
  });

  it('throttles wrong current passwords like sign-ins: after three, even the right one is refused for a while', async () => {
    const person = await newPerson();
    const [browser, page] = await signedIn(person);
    const wrong = {
      current: 'wrong password!!',
      password: 'a brand new password',
      confirm: 'a brand new password',
    };
    for (let i = 0; i < 3; i++)
      expect((await browser.submit(page, '/account/password', wrong)).status).toBe(401);
    const locked = await browser.submit(page, '/account/password', { ...wrong, current: person.password });
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await trySignIn(person.email, person.password)).toBe(429); // the same lock as the sign-in page
  });

  it('refuses two different new passwords, a short one and a published one', async () => {
    const person = await newPerson();
    const [browser, page] = await signedIn(person);
    const attempt = (password: string, confirm = password) =>
      browser.submit(page, '/account/password', { current: person.password, password, confirm });
    const differ = await attempt('a brand new password', 'a brand new passw0rd');
    expect([differ.status, differ.body.includes('not the same')]).toEqual([400, true]);
    const short = await attempt('too short');
    expect([short.status, short.body.includes('needs 12+ characters')]).toEqual([400, true]);
    const published = await attempt('correct horse battery staple');
    expect([published.status, published.body.includes('published')]).toEqual([400, true]);
    expect(await trySignIn(person.email, person.password)).toBe(200);
  });

  it('changes it: this browser stays signed in, a second browser’s session is gone, the old password no longer works and the new one does', async () => {
    const person = await newPerson();
    const [here, page] = await signedIn(person);
    const [elsewhere] = await signedIn(person);
    const changed = await here.submit(page, '/account/password', {
      current: person.password,
      password: 'my new password 2026',
      confirm: 'my new password 2026',
    });
    expect(changed.status).toBe(200);
    expect(changed.url).toContain('done=password');
    expect(changed.body).toContain('Your password is changed');
    expect(await stillSignedIn(here)).toBe(true);
    expect(await stillSignedIn(elsewhere)).toBe(false);
    expect(await trySignIn(person.email, person.password)).toBe(401);
    expect(await trySignIn(person.email, 'my new password 2026')).toBe(200);
    const [event] = await auth.running.audit.query({ type: 'password_changed', accountId: person.id });
    expect(event?.details).toEqual({ actor: person.id, sessionsEnded: 1 });
    expect(JSON.stringify(event)).not.toContain('my new password 2026');
  });
});

describe('signing out everywhere', () => {
  it('ends every session of the account, this one too, while the apps it allowed keep their tokens', async () => {
    const person = await newPerson();
    const client = await registerClient(auth, { client_name: 'Lesson Planner' });
    const tokens = await flowSignIn(auth, client, { account: person, scope: 'openid courses:read' });
    const [here, page] = await signedIn(person);
    const [elsewhere] = await signedIn(person);
    expect(page.body).toContain('Sign out everywhere…');
    const confirm = await here.request(`${PAGE}/sign-out-everywhere`);
    expect(confirm.body).toContain('Sign out everywhere?');
    expect(await stillSignedIn(here)).toBe(true); // asking changes nothing
    const out = await here.submit(confirm, '/account/sign-out-everywhere');
    expect(out.status).toBe(200);
    expect(out.body).toContain('You are signed out everywhere');
    expect(out.body.replace(/\s+/g, ' ')).toContain('Apps you allowed keep their access');
    expect(await stillSignedIn(here)).toBe(false);
    expect(await stillSignedIn(elsewhere)).toBe(false);
    await expect(isActive(auth, tokens.access_token)).resolves.toBe(true);
    const [event] = await auth.running.audit.query({ type: 'sessions_ended', accountId: person.id });
    // The two browsers here, and the one the app's sign-in used.
    expect(event?.details).toEqual({ actor: person.id, sessions: 3 });
  });

  it('says on the page that apps keep their access', async () => {
    const [, page] = await signedIn(await newPerson());
    expect(page.body.replace(/\s+/g, ' ')).toContain('Apps you allowed keep their access');
  });
});

describe('the forms’ refusals', () => {
  it('refuses both forms without the CSRF token or from another origin, and changes nothing', async () => {
    const person = await newPerson();
    const [browser, page] = await signedIn(person);
    const change = formAction(page.body, '/account/password')!;
    const everywhere = `${PAGE}/sign-out-everywhere`;
    const fields = {
      current: person.password,
      password: 'hijacked password!',
      confirm: 'hijacked password!',
    };
    const csrf = inputValue(page.body, 'csrf')!;
    expect(await forgedPostStatuses(browser, change, fields, csrf)).toEqual([403, 403]);
    expect(await forgedPostStatuses(browser, everywhere, { confirm: 'yes' }, csrf)).toEqual([403, 403]);
    expect(await stillSignedIn(browser)).toBe(true);
    expect(await trySignIn(person.email, person.password)).toBe(200);
  });

  it('sends a signed-out browser to sign in first', async () => {
    const res = await new FormBrowser(auth.issuer).request(PAGE);
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/\/oauth\/authorize\?client_id=school-account-pages/);
  });
});
