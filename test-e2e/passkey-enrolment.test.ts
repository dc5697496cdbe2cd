/**
 * Who may add a passkey, in headless Chromium through the edge with Chromium's virtual authenticator
 * (PASSKEY_FOR_WRITE_CONSENT on, the public host `localhost`):
 *
 * - a session signed in with the password alone adds no passkey until the password is typed again,
 *   and the owner is told in every other session and on Activity;
 * - once the account has a passkey, only that passkey confirms a change: someone holding the password
 *   alone can neither add their own passkey (and with it pass the write rule) nor remove the owner's;
 * - recovery codes need a passkey and come at most three sets an hour;
 * - changing the password and signing out everywhere list the passkeys that stay;
 * - an admin sees another account's passkeys and codes on Staff accounts and removes them, which ends
 *   the sessions they signed in; password sign-in is never switched off for an account with no other
 *   way in;
 * - the owner's removal of a passkey ends their other sessions, and is refused for the last way in.
 * New page states get the axe-core check at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import mongoose from 'mongoose';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { inspectPage, loopbackListener } from './support/browser.js';
import { passwordSignIn } from './support/edge-flows.js';
import {
  addFirstPasskey,
  auditEvents as auditEventsOf,
  openYourAccount as signInToYourAccount,
  registerClient,
  startPasskeyStack,
  virtualDevice,
  writeScopeRequest,
  type Device,
} from './support/passkey-browser.js';
import { createStaff, E2E_ADMIN, schoolAuth, type Stack } from './support/stack.js';

let stack: Stack;
let browser: Browser;
/** The owner of the passkeys, and a colleague who never adds one. */
let owner: { email: string; password: string };
let colleague: { email: string; password: string };

jest.setTimeout(120_000);

beforeAll(async () => {
  [stack, browser] = await startPasskeyStack();
  owner = createStaff(stack, 'Pat Owner');
  colleague = createStaff(stack, 'Cam Colleague');
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** A new browser context with a virtual authenticator holding no passkey. */
const device = () => virtualDevice(browser);
const auditEvents = (type: string, minimum = 1) => auditEventsOf(stack, type, minimum);

/** How many credentials the device's authenticator holds. */
async function credentialCount(d: { cdp: CDPSession; id: string }): Promise<number> {
  const { credentials } = await d.cdp.send('WebAuthn.getCredentials', { authenticatorId: d.id });
  return credentials.length;
}

/** Signs in to the account pages afresh with a password and opens Your account. */
async function openYourAccount(page: Page, who: { email: string; password: string }): Promise<void> {
  await page.context().clearCookies();
  await signInToYourAccount(stack, page, who);
}

/** Signs in to the account pages afresh with a passkey of the device and opens Your account. */
async function openWithPasskey(page: Page): Promise<void> {
  await page.context().clearCookies();
  await page.goto(`${stack.baseUrl}/oauth/account/apps`);
  await page.click('button:has-text("Sign in with a passkey")');
  await page.waitForSelector('h1:has-text("Connected apps")');
  await page.goto(`${stack.baseUrl}/oauth/account/account`);
  await page.waitForSelector('h1:has-text("Your account")');
}

/** Posts `fields` to an account page's form with the page's CSRF token and the browser's cookies. */
async function postForm(
  page: Page,
  path: string,
  fields: Record<string, string>,
): Promise<{ status: number; location: string | null; text: string }> {
  const csrf = await page.locator('input[name=csrf]').first().getAttribute('value');
  const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const res = await fetch(`${stack.edgeUrl}/oauth/account/${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: stack.baseUrl, cookie: cookies },
    body: new URLSearchParams({ csrf: csrf!, ...fields }).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** The stored passkeys of the account with `email`. */
async function storedPasskeys(email: string): Promise<Array<Record<string, unknown>>> {
  const conn = await mongoose.createConnection(stack.env.MONGODB_URI!).asPromise();
  try {
    const account = await conn.collection<{ _id: string; email: string }>('accounts').findOne({ email });
    return await conn
      .collection<Record<string, unknown>>('passkeys')
      .find({ accountId: account!._id })
      .toArray();
  } finally {
    await conn.close();
  }
}

/** The owner's own device, holding their passkey once it is added. */
let laptop: Device;

describe('who may add a passkey', () => {
  it('adds no passkey in a password session until the password is typed again, and tells the owner', async () => {
    laptop = await device();
    await openYourAccount(laptop.page, owner);
    // Signed in with the password alone: no add form, and a posted answer is refused before it is read.
    await expect(laptop.page.locator('#passkey-name').count()).resolves.toBe(0);
    await expect(laptop.page.innerText('main')).resolves.toContain('Confirm it is you');
    await inspectPage(laptop.page, 'your-account-confirm-password');
    const early = await postForm(laptop.page, 'account/passkeys', { name: 'Sneaky', response: '{"id":"x"}' });
    expect(early.status).toBe(403);
    expect(early.text).toContain('Confirm it is you first');

    await laptop.page.fill('#confirm-password', 'not the password at all');
    await laptop.page.click('button:has-text("Confirm with your password")');
    await laptop.page.waitForSelector('text=That is not your password');
    await expect(laptop.page.locator('#passkey-name').count()).resolves.toBe(0);

    await laptop.page.fill('#confirm-password', owner.password);
    await laptop.page.click('button:has-text("Confirm with your password")');
    await laptop.page.waitForSelector('text=It is you.');
    expect(new URL(laptop.page.url()).search).toBe('?done=confirmed'); // redirected after the POST
    await laptop.page.fill('#passkey-name', 'Office laptop');
    await laptop.page.click('button:has-text("Add a passkey")');
    await laptop.page.waitForSelector('text=Your passkey is added');
    await expect(credentialCount(laptop)).resolves.toBe(1);
    expect(await storedPasskeys(owner.email)).toEqual([expect.objectContaining({ proof: 'password' })]);
    const [confirmed] = await auditEvents('factor_confirmed');
    expect(confirmed?.details).toEqual({ factor: 'password' });
    const [added] = await auditEvents('passkey_registered');
    expect(added?.details).toEqual({ name: 'Office laptop', proof: 'password' });

    // Every other session of the account tells of it; this one, where it was added, does not. A
    // password sign-in to the account pages lands on the notice.
    await expect(laptop.page.innerText('main')).resolves.not.toContain('somewhere else');
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await passwordSignIn(stack, otherPage, owner);
    await otherPage.waitForSelector('h1:has-text("Your account")');
    const notice = otherPage.locator('[role=alert]', { hasText: 'added to your account somewhere else' });
    await expect(notice.innerText()).resolves.toContain('Office laptop');
    await inspectPage(otherPage, 'your-account-passkey-added-elsewhere');
    await other.close();
  });

  it('lets only the passkey confirm a change once the account has one: the password alone adds none, passes no write rule', async () => {
    // Someone with the owner's password, and an authenticator of their own.
    const intruder = await device();
    await openYourAccount(intruder.page, owner);
    await expect(intruder.page.locator('#passkey-name').count()).resolves.toBe(0);
    await expect(intruder.page.locator('#confirm-password').count()).resolves.toBe(0);
    await expect(intruder.page.locator('button:has-text("Confirm with a passkey")').count()).resolves.toBe(1);
    await inspectPage(intruder.page, 'your-account-confirm-passkey');
    const byPassword = await postForm(intruder.page, 'account/confirm/password', {
      password: owner.password,
    });
    expect(byPassword.status).toBe(403);
    expect(byPassword.text).toContain('confirm it is you with the passkey');
    const add = await postForm(intruder.page, 'account/passkeys', {
      name: 'Mine now',
      response: '{"id":"x"}',
    });
    expect(add.status).toBe(403);
    const [ownersPasskey] = await storedPasskeys(owner.email);
    const remove = await postForm(intruder.page, 'account/passkeys/remove', {
      passkey_id: String(ownersPasskey!._id),
    });
    expect(remove.status).toBe(403);
    expect(await storedPasskeys(owner.email)).toHaveLength(1);

    // Their own authenticator answers "Confirm with a passkey" with no passkey of this account.
    await intruder.page.click('button:has-text("Confirm with a passkey")');
    await intruder.page.waitForSelector('text=No passkey was used');
    // Said in words, never with the browser's error name.
    await expect(intruder.page.innerText('main')).resolves.not.toMatch(/[A-Za-z]+Error\b/);
    await expect(intruder.page.locator('#passkey-name').count()).resolves.toBe(0);
    await expect(credentialCount(intruder)).resolves.toBe(0);

    // So a write scope, which needs a passkey sign-in, stays out of reach.
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(stack, listener);
      await intruder.page.goto(writeScopeRequest(stack, clientId, listener));
      await intruder.page.waitForSelector('text=Sign in with your passkey to allow that');
      await intruder.page.click('button:has-text("Sign in with a passkey")');
      await intruder.page.waitForSelector('text=No passkey was used');
      await expect(intruder.page.title()).resolves.toBe('Sign in');
    } finally {
      await listener.close();
      await intruder.context.close();
    }

    // The owner's passkey confirms on the page, after a password sign-in.
    await openYourAccount(laptop.page, owner);
    await laptop.page.click('button:has-text("Confirm with a passkey")');
    await laptop.page.waitForSelector('text=It is you.');
    await expect(laptop.page.locator('#passkey-name').count()).resolves.toBe(1);
    const confirmed = await auditEvents('factor_confirmed', 2);
    expect(confirmed.at(-1)?.details).toEqual({ factor: 'passkey', passkey: 'Office laptop' });
  });

  it('makes recovery codes only for an account with a passkey, at most three sets an hour', async () => {
    const other = await device();
    await openYourAccount(other.page, colleague);
    await expect(other.page.innerText('main')).resolves.toContain('add a passkey first');
    await other.page.fill('#confirm-password', colleague.password);
    await other.page.click('button:has-text("Confirm with your password")');
    await other.page.waitForSelector('text=It is you.');
    const none = await postForm(other.page, 'account/recovery-codes', {});
    expect(none.status).toBe(409);
    expect(none.text).toContain('add a passkey first');
    await other.context.close();

    // The owner, signed in with their passkey just now (a fresh proof of it).
    await openWithPasskey(laptop.page);
    await laptop.page.click('button:has-text("Make new recovery codes")');
    await laptop.page.waitForSelector('text=shown only this once');
    expect(new URL(laptop.page.url()).search).toBe('?done=recovery-codes'); // redirected after the POST
    await expect(laptop.page.locator('ul.codes code').count()).resolves.toBe(10);
    await inspectPage(laptop.page, 'your-account-recovery-codes-after-redirect');
    await laptop.page.reload();
    await expect(laptop.page.locator('ul.codes').count()).resolves.toBe(0); // shown once
    const sets = [];
    for (let i = 0; i < 3; i++) sets.push(await postForm(laptop.page, 'account/recovery-codes', {}));
    expect(sets.map((s) => s.status)).toEqual([303, 303, 429]);
    expect(sets[2]!.text).toContain('several times this hour');
    await auditEvents('recovery_codes_generated', 3);
  });

  it('lists the passkeys that stay when the password changes or everyone is signed out', async () => {
    await openYourAccount(laptop.page, owner);
    const newPassword = `${owner.password}-changed`;
    await laptop.page.fill('#current', owner.password);
    await laptop.page.fill('#password', newPassword);
    await laptop.page.fill('#confirm', newPassword);
    await laptop.page.click('button:has-text("Change password")');
    await laptop.page.waitForSelector('text=Your passkeys below still sign you in');
    owner.password = newPassword;

    await laptop.page.click('a:has-text("Sign out everywhere…")');
    await laptop.page.waitForSelector('h1:has-text("Sign out everywhere?")');
    const staying = laptop.page.locator('li', { hasText: 'Office laptop' });
    await expect(staying.locator('a:has-text("Remove…")').count()).resolves.toBe(1);
    await inspectPage(laptop.page, 'sign-out-everywhere-passkeys-stay');
  });

  it('refuses to switch password sign-in off for an account with no other way in', async () => {
    const admin = await browser.newContext();
    const page = await admin.newPage();
    await openYourAccount(page, E2E_ADMIN);
    await page.goto(`${stack.baseUrl}/oauth/account/staff`);
    const row = page.locator('tr', { hasText: colleague.email });
    await expect(row.innerText()).resolves.toContain('No passkey; 0 recovery codes');
    await row.locator('button:has-text("Switch password sign-in off")').click();
    await page.waitForSelector('text=Password sign-in stays on');
    await inspectPage(page, 'staff-accounts-password-off-refused');
    await admin.close();

    const signIn = await browser.newContext();
    await openYourAccount(await signIn.newPage(), colleague); // the password still signs in
    await signIn.close();
  });

  it('shows an admin another account’s passkeys and removes them, ending the sessions they signed in', async () => {
    await openWithPasskey(laptop.page);
    const admin = await browser.newContext();
    const page = await admin.newPage();
    await openYourAccount(page, E2E_ADMIN);
    await page.goto(`${stack.baseUrl}/oauth/account/staff`);
    const row = page.locator('tr', { hasText: owner.email });
    await expect(row.innerText()).resolves.toMatch(/Passkey:\s*Office laptop; 10 recovery codes/);
    await row.locator('a:has-text("Remove passkeys and codes")').click();
    await page.waitForSelector('h1:has-text("Remove their passkeys and recovery codes?")');
    await expect(page.innerText('main')).resolves.toContain('Office laptop');
    await inspectPage(page, 'staff-remove-passkeys-confirm');
    await page.click('button:has-text("Remove passkeys and codes")');
    await page.waitForSelector(
      `text=${owner.email} has no passkey and no recovery code any more (1 passkey and`,
    );
    await admin.close();

    expect(await storedPasskeys(owner.email)).toEqual([]);
    const removed = await auditEvents('passkey_removed');
    expect(removed.at(-1)?.details).toMatchObject({ name: 'Office laptop', actor: expect.any(String) });
    await auditEvents('recovery_codes_removed');
    // The session the passkey signed in has ended; the passkey signs in no more.
    await laptop.page.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(laptop.page.title()).resolves.toBe('Sign in');
    await laptop.page.click('button:has-text("Sign in with a passkey")');
    await laptop.page.waitForSelector('text=That passkey could not sign you in');
    await laptop.context.close();
  });

  it('keeps the last way in, and ends the other sessions when the owner removes a passkey', async () => {
    const desk = await device();
    await openYourAccount(desk.page, colleague);
    await addFirstPasskey(desk.page, colleague.password, 'Desk key');
    const elsewhere = await browser.newContext();
    await openYourAccount(await elsewhere.newPage(), colleague);

    // Password sign-in off, no recovery code: the passkey is the only way in, and stays.
    schoolAuth(stack, ['accounts', 'password-sign-in', colleague.email, 'off']);
    await openWithPasskey(desk.page);
    const row = desk.page.locator('tr', { hasText: 'Desk key' });
    await row.locator('a:has-text("Remove")').click();
    await desk.page.click('button:has-text("Remove the passkey")');
    await desk.page.waitForSelector('text=This is the last way to sign in');
    await inspectPage(desk.page, 'your-account-last-way-in');
    expect(await storedPasskeys(colleague.email)).toHaveLength(1);

    schoolAuth(stack, ['accounts', 'password-sign-in', colleague.email, 'on']);
    await row.locator('a:has-text("Remove")').click();
    await desk.page.click('button:has-text("Remove the passkey")');
    await desk.page.waitForSelector('text=The passkey is removed');
    expect(await storedPasskeys(colleague.email)).toEqual([]);
    // This session stays; the one elsewhere has ended.
    await desk.page.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(desk.page.title()).resolves.not.toBe('Sign in');
    const other = elsewhere.pages()[0]!;
    await other.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(other.title()).resolves.toBe('Sign in');
    await elsewhere.close();
    await desk.context.close();
  });
});
