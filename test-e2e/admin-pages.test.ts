/**
 * The account pages end to end, in headless Chromium through the edge: a school admin signs in, approves two
 * apps (one open registration, one operator integration), sees both on Connected apps with their
 * scopes, revokes one, and its token is refused by the API at once while the other still works; then
 * lists, filters and deletes clients on All clients and reads the audit trail on Activity.
 * Every page is photographed at 1280 and 390 px into test-results/, checked for sideways scrolling at
 * 390 px, and checked with axe-core (injected into the page) for serious or critical violations
 * (support/browser.ts `inspectPage`).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext } from 'playwright-core';
import { inspectPage, loopbackListener, tickEveryScope, type LoopbackListener } from './support/browser.js';
import { codeRequest } from '../test-support/oauth-flow.js';
import { accountPage, apiStatus as courseStatus, edgeToken, registerApp } from './support/edge-flows.js';
import { E2E_ADMIN, schoolAuth, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

const INTEGRATION_CALLBACK = 'https://timetable.example/oauth/callback';
const SCOPE = 'openid email courses:read coupons:write';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

/** An authorization URL and the PKCE verifier that redeems its code. */
function authorization(clientId: string, redirectUri: string): { url: string; verifier: string } {
  return codeRequest(
    { issuer: stack.baseUrl },
    { client_id: clientId, redirect_uri: redirectUri, scope: SCOPE },
  );
}

/** Redeems a code at the token endpoint; returns the access token. */
async function redeem(form: Record<string, string>): Promise<string> {
  const res = await edgeToken(stack, { grant_type: 'authorization_code', ...form });
  expect(res.status).toBe(200);
  return res.body.access_token!;
}

/** The API's answer to a read with `token`. */
const apiStatus = (token: string) => courseStatus(stack, token);

describe('the school admin’s side, in a browser', () => {
  let listener: LoopbackListener;
  let context: BrowserContext;

  beforeAll(async () => {
    listener = await loopbackListener();
    context = await browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    await listener?.close();
  });

  it('approves two apps, sees both on Connected apps, revokes one: its token is refused at once, the other still works', async () => {
    // An open registration, and an operator integration made with the CLI.
    const { clientId: open } = await registerApp(stack, {
      client_name: 'Lesson Planner CLI',
      redirect_uris: [listener.redirectUri],
    });
    const integration = schoolAuth(stack, [
      'clients',
      'create-integration',
      '--name',
      'Timetable Integration',
      '--redirect-uri',
      INTEGRATION_CALLBACK,
    ]);
    // The integration's web server, played by the browser's request routing.
    let integrationCallback!: (u: URL) => void;
    const integrationReceived = new Promise<URL>((r) => (integrationCallback = r));
    await context.route(`${new URL(INTEGRATION_CALLBACK).origin}/**`, (route) => {
      integrationCallback(new URL(route.request().url()));
      return route.fulfill({
        status: 200,
        contentType: 'text/html',
        body: '<title>Timetable</title><h1>Connected</h1>',
      });
    });

    const page = await context.newPage();
    const first = authorization(open, listener.redirectUri);
    await page.goto(first.url);
    await page.fill('input[name=email]', E2E_ADMIN.email);
    await page.fill('input[name=password]', E2E_ADMIN.password);
    await inspectPage(page, 'login');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Allow access to your school?');
    expect(await page.innerText('main')).toContain('Self-declared name: the app chose this name itself');
    await inspectPage(page, 'consent-open');
    await tickEveryScope(page);
    await page.click('button:has-text("Allow")');
    const openCode = (await listener.received).searchParams.get('code')!;
    const openToken = await redeem({
      code: openCode,
      redirect_uri: listener.redirectUri,
      code_verifier: first.verifier,
      client_id: open,
    });

    const second = authorization(integration.client_id!, INTEGRATION_CALLBACK);
    await page.goto(second.url);
    await page.waitForSelector('text=Allow access to your school?'); // the session is remembered
    const consent = await page.innerText('main');
    expect(consent).toContain('Registered integration');
    expect(consent).toContain('Not you?');
    await inspectPage(page, 'consent-integration');
    await page.click('button:has-text("Allow")');
    const integrationToken = await redeem({
      code: (await integrationReceived).searchParams.get('code')!,
      redirect_uri: INTEGRATION_CALLBACK,
      code_verifier: second.verifier,
      client_id: integration.client_id!,
      client_secret: integration.client_secret!,
    });
    expect(await apiStatus(openToken)).toBe(200);
    expect(await apiStatus(integrationToken)).toBe(200);

    await page.goto(`${stack.baseUrl}/oauth/account/apps`);
    const openCard = page.locator('section.card', { hasText: 'Lesson Planner CLI' });
    const integrationCard = page.locator('section.card', { hasText: 'Timetable Integration' });
    await expect(openCard.innerText()).resolves.toContain('See your school’s courses');
    await expect(openCard.innerText()).resolves.toContain('Create, change and delete your school’s coupons');
    await expect(openCard.innerText()).resolves.toContain('Self-declared name');
    await expect(integrationCard.innerText()).resolves.toContain('Registered integration');
    await expect(integrationCard.innerText()).resolves.toContain('timetable.example (port 443)');
    await inspectPage(page, 'connected-apps');

    await openCard.locator('a:has-text("Revoke access…")').click();
    await page.waitForSelector('h1:has-text("Revoke this app’s access?")');
    expect(await apiStatus(openToken)).toBe(200); // asking ends nothing
    await inspectPage(page, 'connected-apps-revoke-confirm');
    await page.click('button:has-text("Revoke access")');
    await page.waitForSelector('text=has ended');
    expect(await apiStatus(openToken)).toBe(401);
    expect(await apiStatus(integrationToken)).toBe(200);
    await expect(page.locator('section.card', { hasText: 'Lesson Planner CLI' }).count()).resolves.toBe(0);
    await inspectPage(page, 'connected-apps-after-revoke');
  });

  it('hands the browser straight back to the app with access_denied after one click on Deny', async () => {
    const deniedListener = await loopbackListener();
    try {
      const metadata = { client_name: 'Unwanted Agent', redirect_uris: [deniedListener.redirectUri] };
      const { clientId } = await registerApp(stack, metadata);
      const page = await context.newPage();
      await page.goto(authorization(clientId, deniedListener.redirectUri).url);
      await page.click('button:has-text("Deny")');
      expect((await deniedListener.received).searchParams.get('error')).toBe('access_denied');
    } finally {
      await deniedListener.close();
    }
  });

  it('lists every client on All clients, filters them, and deletes one after asking', async () => {
    const { clientId: longNamed } = await registerApp(stack, {
      client_name: 'A very long self-declared name that keeps going well past the width of a phone screen',
      redirect_uris: [listener.redirectUri],
    });
    const page = await accountPage(stack, context, 'clients', 'All clients');
    const list = await page.innerText('main');
    expect(list).toContain('Timetable Integration');
    expect(list).toContain('Registered integration');
    expect(list).toContain(longNamed);
    await inspectPage(page, 'all-clients');

    await page.selectOption('select[name=kind]', 'integration');
    await page.click('form.filters button');
    await page.waitForURL(/kind=integration/);
    expect(await page.innerText('main')).not.toContain(longNamed);

    await page.goto(`${stack.baseUrl}/oauth/account/clients`);
    await page.locator('tr', { hasText: longNamed }).locator('a:has-text("Delete")').click();
    await page.waitForSelector('h1:has-text("Delete this app?")');
    await inspectPage(page, 'delete-client');
    await page.click('button:has-text("Delete this app")');
    await page.waitForSelector('text=was deleted');
    expect(await page.locator('tr', { hasText: longNamed }).count()).toBe(0);
  });

  it('shows the audit trail on Activity, filterable by event', async () => {
    const page = await accountPage(stack, context, 'activity', 'Activity');
    const all = await page.innerText('table');
    expect(all).toContain('An app was deleted');
    expect(all).toContain('Access allowed to an app');
    expect(all).toContain(E2E_ADMIN.email);
    await inspectPage(page, 'activity');
    await page.selectOption('select[name=event]', 'consent_granted');
    await page.click('form.filters button');
    await page.waitForURL(/event=consent_granted/);
    const granted = await page.innerText('table');
    expect(granted).toContain('Access allowed to an app');
    expect(granted).not.toContain('An app was deleted');
  });

  it('signs out at the end_session_endpoint, on a page of ours', async () => {
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}/oauth/account/apps`);
    await page.click('nav >> text=Sign out');
    await page.waitForSelector('text=Sign out?');
    await inspectPage(page, 'sign-out');
    await page.click('button:has-text("Sign out")');
    await page.waitForSelector('text=You are signed out');
    await inspectPage(page, 'signed-out');
    await page.goto(`${stack.baseUrl}/oauth/account/apps`);
    await expect(page.title()).resolves.toBe('Sign in');
  });
});
