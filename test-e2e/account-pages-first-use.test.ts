/**
 * The account pages as a newcomer meets them, in headless Chromium through the edge: signing in from
 * a link to an account page lands on that page (and a `state` naming any other place lands on
 * Connected apps); a form that changed something is followed by a redirect, so a reload repeats
 * nothing and a password shown once is not shown again; two apps of one name on Connected apps are
 * told apart by their landmarks (axe-core, every rule, at 1280 and 390 px).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { approveInBrowser, expectNoAxeViolations, inspectPage, loopbackListener } from './support/browser.js';
import { codeRequest } from '../test-support/oauth-flow.js';
import { registerApp } from './support/edge-flows.js';
import { createStaff, E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((started, launched) => {
  stack = started;
  browser = launched;
});

/** Goes to `path` in a fresh browser, signs in there as `who`, and returns the page it lands on. */
async function signInFrom(path: string, who: { email: string; password: string }): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.baseUrl}${path}`);
  await expect(page.title()).resolves.toBe('Sign in');
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForURL(/\/oauth\/account\/[a-z-]+/);
  return page;
}

describe('signing in from a link to an account page', () => {
  it('lands on the page asked for, with its query', async () => {
    const clients = await signInFrom('/oauth/account/clients', E2E_ADMIN);
    expect(new URL(clients.url()).pathname).toBe('/oauth/account/clients');
    await clients.waitForSelector('h1:has-text("All clients")');
    await clients.context().close();

    const staff = createStaff(stack, 'Dana Deep');
    const account = await signInFrom('/oauth/account/account', staff);
    expect(new URL(account.url()).pathname).toBe('/oauth/account/account');
    await account.waitForSelector('h1:has-text("Your account")');
    await account.context().close();

    const activity = await signInFrom('/oauth/account/activity?type=login_failed', E2E_ADMIN);
    expect(activity.url()).toBe(`${stack.baseUrl}/oauth/account/activity?type=login_failed`);
    await activity.context().close();
  });

  it('never goes elsewhere, whatever the returned state names', async () => {
    const page = await signInFrom('/oauth/account/apps', E2E_ADMIN);
    // The state the pages write: `~`, the page's path in base64url, a dot and random characters.
    const hostile = [
      '//evil.example',
      'https://evil.example/oauth/account/apps',
      '/\\evil.example',
      '/%2F%2Fevil.example',
      '/oauth/account/%2F%2Fevil.example',
      '/oauth/account//evil.example',
      '/oauth/account/../../evil',
      '/oauth/account/%2e%2e/evil',
    ];
    for (const target of hostile) {
      const state = `~${Buffer.from(target).toString('base64url')}.${randomBytes(6).toString('hex')}`;
      // Not followed: a wrong answer would send the browser to another host.
      const res = await page
        .context()
        .request.get(
          `${stack.baseUrl}/oauth/account/signed-in?${new URLSearchParams({ state }).toString()}`,
          { maxRedirects: 0 },
        );
      expect([target, res.status(), new URL(res.headers().location ?? '', stack.baseUrl).href]).toEqual([
        target,
        303,
        `${stack.baseUrl}/oauth/account/apps`,
      ]);
    }
    await page.context().close();
  });
});

describe('forms that change something, then a reload', () => {
  it('shows a reset password once and does not reset it again', async () => {
    const lee = createStaff(stack, 'Lee Reload');
    const admin = await signInFrom('/oauth/account/staff', E2E_ADMIN);
    const leeRow = admin.locator('tr', { hasText: lee.email });
    await leeRow.locator('a:has-text("Reset password…")').click();
    await admin.click('button:has-text("Reset password")');
    await admin.waitForSelector(`text=The password of ${lee.email} is reset`);
    const password = await admin.innerText('code.secret');
    expect(new URL(admin.url()).pathname).toBe('/oauth/account/staff'); // a GET after the POST
    await inspectPage(admin, 'staff-reset-done');
    // Every action of a row starts at one left edge, links and buttons alike.
    const actions = await leeRow.locator('td[data-label=Actions] .actions > *').all();
    const lefts = await Promise.all(actions.map(async (a) => Math.round((await a.boundingBox())!.x)));
    expect(lefts.length).toBeGreaterThan(3);
    expect(new Set(lefts).size).toBe(1);

    await admin.reload();
    await admin.waitForSelector('h1:has-text("Staff accounts")');
    await expect(admin.locator('code.secret').count()).resolves.toBe(0);
    await expect(admin.locator('[role=status], [role=alert]').count()).resolves.toBe(0);
    // The password shown is still the one that works: the reload did not reset it again.
    const signedIn = await signInFrom('/oauth/account/account', { email: lee.email, password });
    await signedIn.waitForSelector('h1:has-text("Your account")');
    await signedIn.context().close();

    // Adding a staff account, then a reload: one account, its password shown once, no error.
    const email = `robin-${randomBytes(3).toString('hex')}@e2e.test`;
    await admin.fill('input[name=email]', email);
    await admin.fill('input[name=name]', 'Robin Reload');
    await admin.click('button:has-text("Add staff account")');
    await admin.waitForSelector('text=Staff account created');
    await expect(admin.locator('code.secret').count()).resolves.toBe(1);
    await admin.reload();
    await admin.waitForSelector('h1:has-text("Staff accounts")');
    await expect(admin.locator('code.secret').count()).resolves.toBe(0);
    await expect(admin.locator('[role=alert]').count()).resolves.toBe(0);
    await expect(admin.locator('tr', { hasText: email }).count()).resolves.toBe(1);
    await admin.context().close();
  });
});

describe('Connected apps with two apps of one name', () => {
  it('names each card’s landmark apart', async () => {
    for (let i = 0; i < 2; i++) {
      const listener = await loopbackListener();
      try {
        const registered = await registerApp(stack, {
          client_name: 'Twin Planner',
          application_type: 'native',
          redirect_uris: [listener.redirectUri],
        });
        expect(registered.status).toBe(201);
        const params = { redirect_uri: listener.redirectUri, scope: 'openid courses:read' };
        const { url } = codeRequest({ issuer: stack.baseUrl }, { client_id: registered.clientId, ...params });
        const { callback } = await approveInBrowser(browser, url, listener);
        expect(callback.searchParams.get('code')).toBeTruthy();
      } finally {
        await listener.close();
      }
    }
    const page = await signInFrom('/oauth/account/apps', E2E_ADMIN);
    await expect(page.locator('section.card', { hasText: 'Twin Planner' }).count()).resolves.toBe(2);
    // Never used, every API scope is unused: Drop unused scopes is offered on both.
    await expect(page.locator('button:has-text("Drop unused scopes")').count()).resolves.toBe(2);
    await expectNoAxeViolations(page);
    await page.context().close();
  });
});

describe('All clients as an admin first reads it', () => {
  it('says once what a self-declared name is, aligns its filters and says a filter it cannot read', async () => {
    for (const name of ['Homework Helper', 'Reading Buddy']) {
      const res = await registerApp(stack, {
        client_name: name,
        redirect_uris: ['http://127.0.0.1:9/callback'],
      });
      expect(res.status).toBe(201);
    }
    const page = await signInFrom('/oauth/account/clients?idle_days=soon', E2E_ADMIN);
    const alert = page.locator('[role=alert]');
    await expect(alert.innerText()).resolves.toContain(
      'must be a whole number of days from 1 to 3650, not “soon”',
    );
    await expect(page.inputValue('#idle_days')).resolves.toBe('soon');
    await inspectPage(page, 'all-clients-filter-unread');

    await page.goto(`${stack.baseUrl}/oauth/account/clients`);
    await expect(page.locator('[role=alert]').count()).resolves.toBe(0);
    const main = await page.innerText('main');
    expect(main.split('nobody has checked it')).toHaveLength(2); // once, above the list
    expect(main.split('Self-declared name').length).toBeGreaterThan(2); // and two words in each row
    // The checkbox sits level with the other fields, not below them.
    const centre = async (selector: string) => {
      const box = (await page.locator(selector).boundingBox())!;
      return box.y + box.height / 2;
    };
    expect(Math.abs((await centre('input[name=never_used]')) - (await centre('#idle_days')))).toBeLessThan(3);
    await inspectPage(page, 'all-clients-first-read');
    await page.context().close();
  });
});

describe('Activity as an admin first reads it', () => {
  it('names the account pages’ own sign-ins plainly, and its filters fit a phone', async () => {
    const page = await signInFrom('/oauth/account/activity', E2E_ADMIN);
    await page.waitForSelector('h1:has-text("Activity")');
    const rows = page.locator('tbody tr', { hasText: 'These account pages (signing in to them)' });
    expect(await rows.count()).toBeGreaterThan(0);
    await expect(page.locator('tbody').innerText()).resolves.not.toContain('school-account-pages');
    await page.setViewportSize({ width: 390, height: 900 });
    // Each field of the filters takes the width of the form, so it can be read and typed in.
    const form = (await page.locator('form.filters').boundingBox())!;
    for (const field of ['#event', '#app', '#account']) {
      const box = (await page.locator(field).boundingBox())!;
      expect([field, Math.round(box.width)]).toEqual([field, Math.round(form.width)]);
    }
    await inspectPage(page, 'activity-first-read');
    await page.context().close();
  });
});

describe('the sign-in page', () => {
  it('leaves room under the Sign in button before what follows it', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${stack.baseUrl}/oauth/account/apps`);
    const button = (await page.locator('button:text-is("Sign in")').boundingBox())!;
    const next = (await page.locator('form:has(button:text-is("Sign in")) + *').boundingBox())!;
    expect(next.y - (button.y + button.height)).toBeGreaterThanOrEqual(24); // 1.5rem
    await inspectPage(page, 'sign-in-first-read');
    await page.context().close();
  });
});
