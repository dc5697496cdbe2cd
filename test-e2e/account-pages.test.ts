/**
 * Your account and Staff accounts in headless Chromium through the edge: the admin unlocks
 * a staff account locked by wrong passwords (which then signs in at once), adds a staff account on
 * Staff accounts (its generated password shown once), that person signs in with it, changes their
 * password on Your account, and signs out everywhere. Each page is photographed at 1280
 * and 390 px into test-results/, with no sideways scrolling at 390 px and no serious or critical axe-core
 * violation (support/browser.ts `inspectPage`).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { inspectPage } from './support/browser.js';
import { createStaff, E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

// Two wrong passwords of one account from one address lock that pair, so a lock is quick to make.
stackAndBrowserForFile(
  (started, launched) => {
    stack = started;
    browser = launched;
  },
  { LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '2' },
);

/** Opens the account page `path` in `page`, signing in as `who` on the way. */
async function openAccountPage(
  page: Page,
  path: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${stack.baseUrl}/oauth/account/${path}`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/oauth\/account\/[a-z-]+$/); // the page asked for, or a notice on Your account
  await page.goto(`${stack.baseUrl}/oauth/account/${path}`);
}

describe('Staff accounts and Your account, in a browser', () => {
  it('unlocks a locked account, adds a staff account who signs in, changes their password and signs out everywhere', async () => {
    // Lee, made with the command, mistypes their password until the sign-in page refuses them.
    const lee = createStaff(stack, 'Lee Other');
    const leePage = await (await browser.newContext()).newPage();
    await leePage.goto(`${stack.baseUrl}/oauth/account/apps`);
    for (let i = 0; i < 3; i++) {
      await leePage.fill('input[name=email]', lee.email);
      await leePage.fill('input[name=password]', i < 2 ? 'a wrong password' : lee.password);
      await leePage.click('button[type=submit]');
      await leePage.waitForSelector(i < 2 ? 'text=is not right' : 'text=Too many failed sign-ins');
    }

    const admin = await (await browser.newContext()).newPage();
    await openAccountPage(admin, 'staff', E2E_ADMIN);
    await admin.waitForSelector('h1:has-text("Staff accounts")');
    const leeRow = admin.locator('tr', { hasText: lee.email });
    await expect(leeRow.innerText()).resolves.toContain('Locked from 1 address');
    await inspectPage(admin, 'staff-accounts');
    await leeRow.locator('button:has-text("Unlock")').click();
    await admin.waitForSelector('text=Unlocked');
    await openAccountPage(leePage, 'account', lee); // at once
    await leePage.waitForSelector('h1:has-text("Your account")');

    const email = `sam-${randomBytes(3).toString('hex')}@e2e.test`;
    await admin.fill('input[name=email]', email);
    await admin.fill('input[name=name]', 'Sam Staff');
    await admin.click('button:has-text("Add staff account")');
    await admin.waitForSelector('text=Staff account created');
    const password = await admin.innerText('code.secret');
    expect(password).toMatch(/^[2-9a-zA-Z]{5}(-[2-9a-zA-Z]{5}){4}$/); // no look-alike characters
    await inspectPage(admin, 'staff-accounts-created');

    const staff = await (await browser.newContext()).newPage();
    await openAccountPage(staff, 'account', { email, password });
    await staff.waitForSelector('h1:has-text("Your account")');
    await expect(staff.locator('nav >> text=Staff accounts').count()).resolves.toBe(0);
    await inspectPage(staff, 'your-account');

    await staff.fill('#current', password);
    await staff.fill('#password', 'my own new password');
    await staff.fill('#confirm', 'my own new password');
    await staff.click('button:has-text("Change password")');
    await staff.waitForSelector('text=Your password is changed');
    await inspectPage(staff, 'your-account-changed');

    await staff.click('a:has-text("Sign out everywhere…")');
    await staff.waitForSelector('h1:has-text("Sign out everywhere?")');
    await inspectPage(staff, 'sign-out-everywhere-confirm');
    await staff.click('button:has-text("Sign out everywhere")');
    await staff.waitForSelector('text=You are signed out everywhere');
    await inspectPage(staff, 'signed-out-everywhere');
    await staff.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(staff.title()).resolves.toBe('Sign in');

    // The new password works, from a fresh browser.
    const again = await (await browser.newContext()).newPage();
    await openAccountPage(again, 'account', { email, password: 'my own new password' });
    await again.waitForSelector('h1:has-text("Your account")');
  });

  it('keeps a refused Add form, asks before Reset password, Disable and Remove, and acts on each', async () => {
    const kim = createStaff(stack, 'Kim Staff');
    const kimPage = await (await browser.newContext()).newPage();
    await openAccountPage(kimPage, 'account', kim);
    await kimPage.waitForSelector('h1:has-text("Your account")');

    const admin = await (await browser.newContext()).newPage();
    await openAccountPage(admin, 'staff', E2E_ADMIN);
    await admin.fill('input[name=email]', 'kim at school');
    await admin.fill('input[name=name]', 'Kim Again');
    await admin.fill('input[name=password]', 'short');
    // The browser's own check of type=email would stop the form: the server's answer is what is tested.
    await admin.$eval(
      'form[action$="/staff/create"]',
      (f: { setAttribute(name: string, value: string): void }) => f.setAttribute('novalidate', ''),
    );
    await admin.click('button:has-text("Add staff account")');
    await admin.waitForSelector('text=The staff account was not added');
    await expect(admin.locator('[role=alert] li').count()).resolves.toBe(2);
    await expect(admin.inputValue('input[name=email]')).resolves.toBe('kim at school');
    await expect(admin.inputValue('input[name=name]')).resolves.toBe('Kim Again');
    await inspectPage(admin, 'staff-accounts-refused');

    const kimRow = () => admin.locator('tr', { hasText: kim.email });
    await kimRow().locator('a:has-text("Reset password…")').click();
    await admin.waitForSelector('h1:has-text("Reset this password?")');
    await inspectPage(admin, 'staff-reset-confirm');
    await admin.click('a:has-text("Cancel")');
    await admin.waitForSelector('h1:has-text("Staff accounts")');

    await kimRow().locator('a:has-text("Disable…")').click();
    await admin.waitForSelector('h1:has-text("Disable this account?")');
    await inspectPage(admin, 'staff-disable-confirm');
    await admin.click('button:has-text("Disable account")');
    await admin.waitForSelector(`text=${kim.email} is disabled`);
    await expect(kimRow().innerText()).resolves.toContain('Disabled');
    await inspectPage(admin, 'staff-accounts-disabled');
    await kimPage.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(kimPage.title()).resolves.toBe('Sign in'); // signed out at once

    await kimRow().locator('button:has-text("Enable")').click();
    await admin.waitForSelector(`text=${kim.email} can sign in again`);
    await kimRow().locator('button:has-text("Make admin")').click();
    await admin.waitForSelector(`text=${kim.email} is now an admin`);

    await kimRow().locator('a:has-text("Remove…")').click();
    await admin.waitForSelector('h1:has-text("Remove this account?")');
    await inspectPage(admin, 'staff-remove-confirm');
    await admin.click('button:has-text("Remove account")');
    await admin.waitForSelector(`text=${kim.email} is removed`);
    await expect(kimRow().count()).resolves.toBe(0);
  });
});
