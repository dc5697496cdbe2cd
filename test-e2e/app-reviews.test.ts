/**
 * The school blocks an app and allows it again, end to end through the edge, with the admin in
 * Chromium on App reviews and two resource API instances that cache introspection answers for ten
 * minutes: blocking ends the app's grants at once (both API instances answer 401 straight away, which
 * only the revocation feed can make them do within their cache's life; introspection, through the
 * direct path, answers inactive; the refresh token is refused), its next authorization ends on the
 * school's page (no redirect to the app), and allowing it again lets a new authorization through while
 * the ended grant stays ended. The page is checked with axe-core at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LoopbackListener } from './support/browser.js';
import { expectNoAxeViolations, launchBrowser, loopbackListener, tickEveryScope } from './support/browser.js';
import { codeRequest } from '../test-support/oauth-flow.js';
import { edgeToken, redeemCode, registerApp } from './support/edge-flows.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

let stack: Stack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startStack({ INTROSPECTION_CACHE_TTL: '600' }, 'http', { api: 2 }),
    launchBrowser(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** An authorization URL for `clientId` and the PKCE verifier that redeems its code. */
function authorization(clientId: string, redirectUri: string): { url: string; verifier: string } {
  const params = { client_id: clientId, redirect_uri: redirectUri, scope: 'openid courses:read' };
  return codeRequest({ issuer: stack.baseUrl }, params);
}

const token = (form: Record<string, string>) => edgeToken(stack, form);

/** What each API instance answers, asked directly (not through the edge's round robin). */
async function everyApi(accessToken: string): Promise<number[]> {
  return Promise.all(
    stack.apiUrls.map(async (apiUrl) => {
      const res = await fetch(`${apiUrl}/api/v1/courses`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

/** Whether introspection, as the resource API asks it (the direct path), finds the token active. */
async function introspectedActive(accessToken: string): Promise<boolean> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${accessToken}&client_id=resource-api&client_secret=${stack.env.INTROSPECTION_CLIENT_SECRET!}`,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { active: boolean }).active;
}

describe('blocking an app, then allowing it again', () => {
  let context: BrowserContext;
  let page: Page;
  let listener: LoopbackListener;
  beforeAll(async () => {
    context = await browser.newContext();
    page = await context.newPage();
    listener = await loopbackListener();
  });
  afterAll(async () => {
    await context?.close();
    await listener?.close();
  });

  it('ends its live grants on every API instance at once, refuses it on the school’s page, and lets it in once allowed', async () => {
    const metadata = { client_name: 'Homework Helper', redirect_uris: [listener.redirectUri] };
    const { clientId } = await registerApp(stack, metadata);

    // The admin allows it; both API instances take its token and cache the answer.
    const first = authorization(clientId, listener.redirectUri);
    await page.goto(first.url);
    await page.fill('input[name=email]', E2E_ADMIN.email);
    await page.fill('input[name=password]', E2E_ADMIN.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Allow access to your school?');
    await tickEveryScope(page);
    await page.click('button:has-text("Allow")');
    const issued = await redeemCode(stack, listener, { clientId, verifier: first.verifier });
    expect(issued.status).toBe(200);
    const { access_token: access, refresh_token: refresh } = issued.body;
    expect(await everyApi(access!)).toEqual([200, 200]);
    expect(await introspectedActive(access!)).toBe(true);

    // App reviews: block it by its client id.
    await page.goto(`${stack.baseUrl}/oauth/account/app-reviews`);
    await page.waitForSelector('h1:has-text("App reviews")');
    expect(await page.innerText('main')).toContain('No app has been reviewed yet.');
    await expectNoAxeViolations(page);
    await page.fill('#value', clientId);
    await page.click('form[aria-labelledby=review] button:has-text("Block")');
    await page.waitForSelector('[role=status]');
    expect(new URL(page.url()).pathname).toBe('/oauth/account/app-reviews'); // redirected after the POST
    expect(await page.innerText('[role=status]')).toContain(
      'Homework Helper is blocked: its access ended for every account',
    );
    const reviewed = page.locator('table tr', { hasText: clientId });
    expect(await reviewed.innerText()).toContain('Blocked');
    await expectNoAxeViolations(page);
    // A reload repeats nothing: it is the page, with the same notice read back from storage.
    await page.reload();
    expect(await page.innerText('[role=status]')).toContain('Homework Helper is blocked');

    // Every API instance refuses the token now, though its cache would keep the answer ten minutes.
    let statuses = await everyApi(access!);
    for (let i = 0; i < 20 && statuses.some((s) => s !== 401); i++) {
      await new Promise((r) => setTimeout(r, 100));
      statuses = await everyApi(access!);
    }
    expect(statuses).toEqual([401, 401]);
    expect(await introspectedActive(access!)).toBe(false);
    const refused = await token({
      grant_type: 'refresh_token',
      refresh_token: refresh!,
      client_id: clientId,
    });
    expect(refused).toEqual({
      status: 400,
      body: { error: 'unauthorized_client', error_description: 'the school has blocked this app' },
    });

    // Its next authorization ends on the school's page: nothing is sent back to the app.
    const blocked = authorization(clientId, listener.redirectUri);
    const answer = await page.goto(blocked.url);
    expect(answer?.status()).toBe(403);
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    expect(await page.innerText('h1')).toBe('Your school has blocked this app');
    expect(page.url().startsWith(`${stack.baseUrl}/`)).toBe(true);

    // Allowed again from the page: a new authorization goes through; the ended grant stays ended.
    await page.goto(`${stack.baseUrl}/oauth/account/app-reviews`);
    await page.click(`button[aria-label="Allow Homework Helper"]`);
    await page.waitForSelector('text=Homework Helper is allowed.');
    const again = await loopbackListener();
    try {
      const second = authorization(clientId, again.redirectUri);
      await page.goto(second.url);
      await page.waitForSelector('text=Allow access to your school?');
      await tickEveryScope(page);
      await page.click('button:has-text("Allow")');
      const reissued = await redeemCode(stack, again, { clientId, verifier: second.verifier });
      expect(reissued.status).toBe(200);
      expect(await everyApi(reissued.body.access_token!)).toEqual([200, 200]);
    } finally {
      await again.close();
    }
    expect(await everyApi(access!)).toEqual([401, 401]);
    const stale = await token({ grant_type: 'refresh_token', refresh_token: refresh!, client_id: clientId });
    expect([stale.status, stale.body.error]).toEqual([400, 'invalid_grant']);
  }, 120_000);
});
