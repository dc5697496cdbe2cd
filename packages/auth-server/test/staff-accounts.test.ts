/**
 * Staff accounts over real HTTP: an admin lists every account with its lock state, adds a
 * staff account (who can then sign in and sees Connected apps, but not the admins' pages), unlocks an
 * account the sign-in throttle locked (sign-in works at once), resets a password (shown once, every
 * session of that account ends); anyone else gets 403; every form checks CSRF and Origin; each action
 * is audited with the acting admin's id.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import {
  FormBrowser,
  formAction,
  inputValue,
  openAccountPage,
  type Page,
} from '../../../test-support/form-browser.js';

const STAFF_PAGE = '/oauth/account/staff';
let auth: TestAuthServer;
let adminId: string;

beforeAll(async () => {
  auth = await startTestAuthServer({ LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3' });
  adminId = (await auth.running.accounts.idOf(ADMIN.email))!;
});
afterAll(() => auth.stop());

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
    expect(password).toMatch(/^[\w-]{24}$/);
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
});

describe('unlocking an account', () => {
  it('lets an account locked by wrong passwords sign in again at once, and is audited', async () => {
    const email = newEmail();
    const password = 'the right password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Locked Out' });
    for (let i = 0; i < 3; i++) expect(await trySignIn(email, 'a wrong password')).toBe(401);
    expect(await trySignIn(email, password)).toBe(429);

    const [browser, page] = await adminPage();
    expect(row(page, email)).toContain('Locked from one address');
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
    const after = await submitRow(browser, page, email, '/staff/reset-password');
    expect(after.status).toBe(200);
    expect(after.body).toContain(`The password of ${email} is reset and one session of theirs ended`);
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
    for (const action of ['create', 'unlock', 'reset-password']) {
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
    const foreign = { origin: 'http://evil.example' };
    const create = formAction(page.body, '/staff/create')!;
    expect((await browser.request(create, { form: { email, name: 'M' } })).status).toBe(403);
    expect(
      (await browser.request(create, { form: { email, name: 'M', csrf }, headers: foreign })).status,
    ).toBe(403);
    await expect(auth.running.accounts.idOf(email)).resolves.toBeUndefined();

    const { _id } = await auth.running.accounts.create({
      email,
      password: 'the kept password',
      name: 'Kept',
    });
    for (const action of ['unlock', 'reset-password']) {
      const url = `${STAFF_PAGE}/${action}`;
      expect((await browser.request(url, { form: { account_id: _id } })).status).toBe(403);
      expect((await browser.request(url, { form: { account_id: _id, csrf }, headers: foreign })).status).toBe(
        403,
      );
    }
    expect(await trySignIn(email, 'the kept password')).toBe(200);
    await expect(auth.running.audit.query({ type: 'password_reset', accountId: _id })).resolves.toEqual([]);
  });
});
