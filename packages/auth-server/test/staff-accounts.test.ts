/**
 * Staff accounts over real HTTP: an admin lists every account with its lock state, adds a
 * staff account (who can then sign in and sees Connected apps, but not the admins' pages), unlocks an
 * account the sign-in throttle locked (sign-in works at once), resets a password (shown once, every
 * session of that account ends); anyone else gets 403; every form checks CSRF and Origin; each action
 * is audited with the acting admin's id.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import { signIn as flowSignIn } from '../../../test-support/oauth-flow.js';
import { isActive, refreshAs, registerClient } from './oauth-http.js';
import type { Page } from '../../../test-support/form-browser.js';
import { forgedPostStatuses, formAction, FormBrowser } from '../../../test-support/form-browser.js';
import { inputValue, openAccountPage } from '../../../test-support/form-browser.js';

const STAFF_PAGE = '/oauth/account/staff';
let adminId: string;

const auth = authServerForFile({ LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3' });
beforeAll(async () => {
  adminId = (await auth.running.accounts.idOf(ADMIN.email))!;
});

const newEmail = () => `staff-${randomBytes(4).toString('hex')}@school.test`;

/** An admin's browser on Staff accounts. */
async function adminPage(): Promise<[FormBrowser, Page]> {
  const browser = new FormBrowser(auth.issuer);
  const page = await openAccountPage(browser, STAFF_PAGE, ADMIN);
  expect(page.status).toBe(200);
  return [browser, page];
}

/** The table row of `email` on a Staff accounts page. */
function row(page: Page, email: string): string | undefined {
  return page.body
    .split('<tr>')
    .slice(1)
    .find((r) => r.includes(`<bdi>${email}</bdi>`));
}

/** Submits `row`'s form whose action ends with `suffix`. */
function submitRow(browser: FormBrowser, page: Page, email: string, suffix: string): Promise<Page> {
  const r = row(page, email)!;
  return browser.follow(formAction(r, suffix)!, {
    form: { csrf: inputValue(page.body, 'csrf')!, account_id: inputValue(r, 'account_id')! },
  });
}

/** Follows `email`'s `action…` link to its confirmation page, checks it, and submits its form. */
async function confirmRow(
  browser: FormBrowser,
  page: Page,
  email: string,
  action: 'reset-password' | 'disable' | 'remove',
): Promise<Page> {
  const href = new RegExp(`href="([^"]*/staff/confirm\\?action=${action}&amp;[^"]*)"`).exec(
    row(page, email)!,
  )?.[1];
  expect(href).toBeDefined();
  const confirm = await browser.request(href!.replace(/&amp;/g, '&'));
  expect(confirm.status).toBe(200);
  expect(confirm.body).toContain(`<bdi>${email}</bdi>`);
  expect(confirm.body).toContain('Cancel: back to Staff accounts');
  return browser.submit(confirm, `/staff/${action}`, { account_id: inputValue(confirm.body, 'account_id')! });
}

/** The password a page shows once. */
const shownPassword = (page: Page) => /<code class="secret">([^<]+)<\/code>/.exec(page.body)?.[1];

/** The status of a fresh sign-in (200: signed in; 401: refused; 429: locked). */
async function trySignIn(email: string, password: string): Promise<number> {
  return (await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', { email, password }))
    .status;
}

describe('listing the accounts', () => {
  it('shows every account with its email, name, role, created date and lock state', async () => {
    const [, page] = await adminPage();
    expect(page.body).toContain('<h1>Staff accounts</h1>');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const admin = row(page, ADMIN.email)!;
    expect(admin).toContain('(you)');
    expect(admin).toContain(`<bdi>${ADMIN.name}</bdi>`);
    expect(admin).toContain('Admin');
    expect(admin).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(admin).toContain('Not locked');
    expect(admin).not.toContain('reset-password'); // an admin's own password changes on Your account
  });
});

describe('adding a staff account', () => {
  it('creates one with a generated password shown once: that person signs in, sees Connected apps, and gets 403 on the admins’ pages', async () => {
    const [browser, page] = await adminPage();
    const email = newEmail();
    const created = await browser.submit(page, '/staff/create', { email, name: 'Sam Staff', password: '' });
    expect(created.status).toBe(200);
    expect(created.body).toContain(`Staff account created for ${email}`);
    const password = shownPassword(created)!;
    expect(password).toMatch(/^[2-9a-zA-Z]{5}(-[2-9a-zA-Z]{5}){4}$/);
    expect(row(created, email)).toContain('Staff');
    expect(shownPassword(await browser.follow(STAFF_PAGE))).toBeUndefined(); // once only

    const staff = new FormBrowser(auth.issuer);
    const apps = await openAccountPage(staff, '/oauth/account/apps', { email, password });
    expect(apps.status).toBe(200);
    expect(apps.body).toContain('<h1>Connected apps</h1>');
    expect(apps.body).not.toContain('Staff accounts'); // the navigation offers only what they may use
    const refused = await staff.request(STAFF_PAGE);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('This page is for the school’s admins');
    const id = (await auth.running.accounts.idOf(email))!;
    const [event] = await auth.running.audit.query({ type: 'account_created', accountId: id });
    expect(event?.details).toEqual({ actor: adminId, email, role: 'staff', passwordGenerated: true });
    expect(JSON.stringify(event)).not.toContain(password);
  });

  it('creates one with the password the admin chose, under the one password rule', async () => {
    const [browser, page] = await adminPage();
    const email = newEmail();
    const short = await browser.submit(page, '/staff/create', { email, name: 'Sam', password: 'short' });
    expect([short.status, short.body.includes('needs 12+ characters')]).toEqual([400, true]);
    const chosen = 'a chosen password 1';
    const created = await browser.submit(page, '/staff/create', { email, name: 'Sam', password: chosen });
    expect(created.status).toBe(200);
    expect(shownPassword(created)).toBeUndefined();
    expect(await trySignIn(email, chosen)).toBe(200);
  });

  it('refuses an email that has an account (its password untouched) and an invalid email', async () => {
    const [browser, page] = await adminPage();
    const taken = await browser.submit(page, '/staff/create', {
      email: ADMIN.email,
      name: 'Impostor',
      password: 'impostor password',
    });
    expect([taken.status, taken.body.includes('There is already an account')]).toEqual([400, true]);
    expect(await trySignIn(ADMIN.email, ADMIN.password)).toBe(200);
    const invalid = await browser.submit(page, '/staff/create', { email: 'not an email', name: 'X' });
    expect(invalid.status).toBe(400);
  });

  it('lists every problem of a refused form at once and keeps what was typed but the password', async () => {
    const [browser, page] = await adminPage();
    const refused = await browser.submit(page, '/staff/create', {
      email: 'sam at school',
      name: 'Sam\u202eevil',
      password: 'short',
    });
    expect(refused.status).toBe(400);
    const problems = /<ul>([\s\S]*?)<\/ul>/.exec(refused.body)?.[1] ?? '';
    expect(problems.match(/<li>/g)).toHaveLength(3);
    expect(problems).toContain('sam at school is not an email address.');
    expect(problems).toContain('The name must not contain');
    expect(problems).toContain('needs 12+ characters');
    expect(inputValue(refused.body, 'email')).toBe('sam at school');
    expect(inputValue(refused.body, 'password')).toBeUndefined();
  });
});

describe('unlocking an account', () => {
  it('lets an account locked by wrong passwords sign in again at once, and is audited', async () => {
    const email = newEmail();
    const password = 'the right password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Locked Out' });
    for (let i = 0; i < 3; i++) expect(await trySignIn(email, 'a wrong password')).toBe(401);
    expect(await trySignIn(email, password)).toBe(429);

    const [browser, page] = await adminPage();
    expect(row(page, email)).toContain('Locked from 1 address');
    const after = await submitRow(browser, page, email, '/staff/unlock');
    expect(after.status).toBe(200);
    expect(after.body).toContain('Unlocked');
    expect(row(after, email)).toContain('Not locked');
    expect(await trySignIn(email, password)).toBe(200);
    const [event] = await auth.running.audit.query({ type: 'account_unlocked', accountId: _id });
    expect(event?.details).toMatchObject({ actor: adminId, email, failures: 3 });
  });
});

describe('resetting a password', () => {
  it('gives a generated password shown once, ends the account’s sessions and refuses the old password', async () => {
    const email = newEmail();
    const old = 'the old password';
    const { _id } = await auth.running.accounts.create({ email, password: old, name: 'Forgetful' });
    const theirs = new FormBrowser(auth.issuer);
    expect((await openAccountPage(theirs, '/oauth/account/apps', { email, password: old })).status).toBe(200);

    const [browser, page] = await adminPage();
    const after = await confirmRow(browser, page, email, 'reset-password');
    expect(after.status).toBe(200);
    expect(after.body).toContain(`The password of ${email} is reset and 1 session of theirs ended`);
    const password = shownPassword(after)!;
    expect((await theirs.request('/oauth/account/apps')).status).toBe(303); // signed out
    expect(await trySignIn(email, old)).toBe(401);
    expect(await trySignIn(email, password)).toBe(200);
    const [event] = await auth.running.audit.query({ type: 'password_reset', accountId: _id });
    expect(event?.details).toEqual({ actor: adminId, sessionsEnded: 1 });
  });

  it('refuses an admin resetting their own password here', async () => {
    const [browser, page] = await adminPage();
    const res = await browser.follow(`${STAFF_PAGE}/reset-password`, {
      form: { csrf: inputValue(page.body, 'csrf')!, account_id: adminId },
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('Change your own password on Your account');
    expect(await trySignIn(ADMIN.email, ADMIN.password)).toBe(200);
  });
});

describe('refusals', () => {
  it('answers 403 to an account that is not an admin, on the page and on every form', async () => {
    const email = newEmail();
    const password = 'a staff password';
    await auth.running.accounts.create({ email, password, name: 'Sam Staff' });
    const staff = new FormBrowser(auth.issuer);
    expect((await openAccountPage(staff, STAFF_PAGE, { email, password })).status).toBe(403);
    const victim = newEmail();
    for (const action of ['create', 'unlock', 'reset-password', 'disable', 'enable', 'remove', 'promote']) {
      const res = await staff.request(`${STAFF_PAGE}/${action}`, {
        form: { email: victim, name: 'Mallory', account_id: adminId, csrf: 'x' },
      });
      expect(res.status).toBe(403);
    }
    await expect(auth.running.accounts.idOf(victim)).resolves.toBeUndefined();
  });

  it('refuses every form without the CSRF token or from another origin, and does nothing', async () => {
    const [browser, page] = await adminPage();
    const email = newEmail();
    const csrf = inputValue(page.body, 'csrf')!;
    const create = formAction(page.body, '/staff/create')!;
    expect(await forgedPostStatuses(browser, create, { email, name: 'M' }, csrf)).toEqual([403, 403]);
    await expect(auth.running.accounts.idOf(email)).resolves.toBeUndefined();

    const { _id } = await auth.running.accounts.create({
      email,
      password: 'the kept password',
      name: 'Kept',
    });
    for (const action of ['unlock', 'reset-password', 'disable', 'remove', 'promote', 'demote']) {
      const url = `${STAFF_PAGE}/${action}`;
      expect(await forgedPostStatuses(browser, url, { account_id: _id }, csrf)).toEqual([403, 403]);
    }
    expect(await trySignIn(email, 'the kept password')).toBe(200);
    await expect(auth.running.audit.query({ type: 'password_reset', accountId: _id })).resolves.toEqual([]);
  });
});

describe('disabling, enabling, removing, promoting and demoting', () => {
  /** A staff account signed in on its own browser, with an app it allowed holding tokens. */
  async function personWithApp() {
    const email = newEmail();
    const password = `a password ${randomBytes(4).toString('hex')}`;
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Sam Staff' });
    const theirs = new FormBrowser(auth.issuer);
    expect((await openAccountPage(theirs, '/oauth/account/apps', { email, password })).status).toBe(200);
    const client = await registerClient(auth, { client_name: 'Lesson Planner' });
    const tokens = await flowSignIn(auth, client, {
      account: { email, password },
      scope: 'openid courses:read',
    });
    expect(await isActive(auth, tokens.access_token)).toBe(true);
    return { id: _id, email, password, theirs, client, tokens };
  }

  it('disable asks first, then the person cannot sign in, their sessions end and their apps’ tokens end; enable lets them sign in again', async () => {
    const p = await personWithApp();
    const [browser, page] = await adminPage();
    const after = await confirmRow(browser, page, p.email, 'disable');
    expect(after.status).toBe(200);
    expect(after.body).toContain(`${p.email} is disabled`);
    expect(row(after, p.email)).toContain('<strong>Disabled</strong>');
    expect((await p.theirs.request('/oauth/account/apps')).status).toBe(303); // signed out
    expect(await trySignIn(p.email, p.password)).toBe(401);
    expect(await isActive(auth, p.tokens.access_token)).toBe(false);
    const refresh = await refreshAs(auth, p.client.clientId, p.tokens.refresh_token!);
    expect(refresh.status).toBe(400);
    const [event] = await auth.running.audit.query({ type: 'account_disabled', accountId: p.id });
    expect(event?.details).toMatchObject({
      actor: adminId,
      email: p.email,
      sessionsEnded: 2,
      grantsEnded: 2,
    }); // the app's grant and the account pages' own

    const enabled = await submitRow(browser, after, p.email, '/staff/enable');
    expect(enabled.body).toContain(`${p.email} can sign in again`);
    expect(await trySignIn(p.email, p.password)).toBe(200);
    expect(await isActive(auth, p.tokens.access_token)).toBe(false); // apps are allowed again, not revived
    const [back] = await auth.running.audit.query({ type: 'account_enabled', accountId: p.id });
    expect(back?.details).toMatchObject({ actor: adminId });
  });

  it('remove asks first, then deletes the account, ends its sessions and its apps’ access', async () => {
    const p = await personWithApp();
    const [browser, page] = await adminPage();
    const after = await confirmRow(browser, page, p.email, 'remove');
    expect(after.body).toContain(`${p.email} is removed`);
    expect(row(after, p.email)).toBeUndefined();
    expect(await auth.running.accounts.idOf(p.email)).toBeUndefined();
    expect((await p.theirs.request('/oauth/account/apps')).status).toBe(303);
    expect(await isActive(auth, p.tokens.access_token)).toBe(false);
    const [event] = await auth.running.audit.query({ type: 'account_removed', accountId: p.id });
    expect(event?.details).toMatchObject({ actor: adminId, email: p.email, grantsEnded: 2 });
  });

  it('make admin opens the admins’ pages to the person; make staff closes them again', async () => {
    const p = await personWithApp();
    const [browser, page] = await adminPage();
    const promoted = await submitRow(browser, page, p.email, '/staff/promote');
    expect(promoted.body).toContain(`${p.email} is now an admin`);
    expect((await p.theirs.request(STAFF_PAGE)).status).toBe(200);
    const demoted = await submitRow(browser, promoted, p.email, '/staff/demote');
    expect(demoted.body).toContain(`${p.email} is now staff`);
    expect((await p.theirs.request(STAFF_PAGE)).status).toBe(403);
    expect(await isActive(auth, p.tokens.access_token)).toBe(true); // a role change ends nothing
    const events = await auth.running.audit.query({ type: 'role_changed', accountId: p.id });
    expect(events.map((e) => e.details?.role)).toEqual(['staff', 'admin']);
  });

  it('make staff takes from the apps an admin allowed what staff may not allow, at once', async () => {
    const p = await personWithApp();
    const [browser, page] = await adminPage();
    const promoted = await submitRow(browser, page, p.email, '/staff/promote');
    const writer = await registerClient(auth, { client_name: 'Register Writer' });
    const tokens = await flowSignIn(auth, writer, {
      account: { email: p.email, password: p.password },
      scope: 'openid courses:read students:write',
      approve: ['courses:read', 'students:write'],
    });
    expect(tokens.scope!.split(' ').sort()).toEqual(['courses:read', 'openid', 'students:write']);
    expect(await isActive(auth, tokens.access_token)).toBe(true);

    const demoted = await submitRow(browser, promoted, p.email, '/staff/demote');
    expect(demoted.body).toContain(`${p.email} is now staff`);
    expect(await isActive(auth, tokens.access_token)).toBe(false);
    expect(await isActive(auth, p.tokens.access_token)).toBe(true); // courses:read only: untouched
    const refreshed = await refreshAs(auth, writer.clientId, tokens.refresh_token!);
    expect(refreshed.status).toBe(200);
    expect(String(refreshed.body!.scope).split(' ').sort()).toEqual(['courses:read', 'openid']);
    const [changed] = await auth.running.audit.query({ type: 'role_changed', accountId: p.id });
    expect(changed?.details).toMatchObject({ actor: adminId, role: 'staff', before: 'admin' });
    const [narrowed] = await auth.running.audit.query({ type: 'grant_narrowed', accountId: p.id });
    expect(narrowed).toMatchObject({
      clientId: writer.clientId,
      details: { actor: adminId, reason: 'ceiling', dropped: 'students:write' },
    });
  });

  it('refuses an admin disabling, removing or demoting themself, and offers no such button', async () => {
    const [browser, page] = await adminPage();
    const own = row(page, ADMIN.email)!;
    for (const action of ['disable', 'remove', 'demote']) {
      expect(own).not.toContain(`/staff/${action}`);
      expect(own).not.toContain(`action=${action}`);
      const res = await browser.follow(`${STAFF_PAGE}/${action}`, {
        form: { csrf: inputValue(page.body, 'csrf')!, account_id: adminId },
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatch(/You cannot (disable|remove) your own account|You cannot make yourself staff/);
    }
    expect(await trySignIn(ADMIN.email, ADMIN.password)).toBe(200);
  });
});
