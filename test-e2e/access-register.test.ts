/**
 * The Access register and the term review end to end, in headless Chromium through the edge: a school
 * admin allows two apps (one whose self-chosen name is a spreadsheet formula), finds both in the Access
 * register with their scopes under their data categories, exactly as `school-auth grants export` has
 * them, and shortens one to the end of the term on the term review, whose token the API then still
 * accepts (the access is shorter, not ended) while the register shows the new end. Each page is
 * photographed at 1280 and 390 px into test-results/, checked for sideways scrolling at 390 px, and
 * axe-core finds no violation of any impact on it at either width.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { codeRequest } from '../test-support/oauth-flow.js';
import type { LoopbackListener } from './support/browser.js';
import { approveInBrowser, expectNoAxeViolations, inspectPage, loopbackListener } from './support/browser.js';
import { accountPage, edgeToken, passwordSignIn, registerApp } from './support/edge-flows.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

/** The term ends ten days from now (a day in UTC, the stack's time zone). */
const TERM_ENDS = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
const FORMULA_NAME = '=HYPERLINK("http://evil.example","Open me")';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile(
  (s, b) => {
    stack = s;
    browser = b;
  },
  { SCHOOL_TERM_ENDS: TERM_ENDS },
);

/** Both checks of a new page: photographed, no sideways scroll, and no axe violation at all. */
async function checkPage(page: Page, name: string): Promise<void> {
  await inspectPage(page, name);
  await expectNoAxeViolations(page);
}

/** The register as `school-auth grants export --format json` writes it on `stack`. */
function exported(): {
  app: { client_id: string };
  scopes: { title: string; scopes: string[] }[];
  ends_at: string;
}[] {
  const run = spawnSync(
    process.execPath,
    ['packages/auth-server/dist/cli/main.js', 'grants', 'export', '--format', 'json'],
    {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, ...stack.env },
      encoding: 'utf8',
    },
  );
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as ReturnType<typeof exported>;
}

describe('the Access register and the term review, in a browser', () => {
  let context: BrowserContext;
  const listeners: LoopbackListener[] = [];
  const clients: string[] = [];
  let token = '';

  beforeAll(async () => {
    for (const [name, scope] of [
      ['Lesson Planner', 'openid courses:read students:read'],
      [FORMULA_NAME, 'openid orders:read members:read'],
    ] as const) {
      const listener = await loopbackListener();
      listeners.push(listener);
      const { clientId } = await registerApp(stack, {
        client_name: name,
        redirect_uris: [listener.redirectUri],
      });
      clients.push(clientId);
      const params = { client_id: clientId, redirect_uri: listener.redirectUri, scope };
      const { url, verifier } = codeRequest({ issuer: stack.baseUrl }, params);
      const { callback } = await approveInBrowser(browser, url, listener);
      const res = await edgeToken(stack, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: listener.redirectUri,
        code_verifier: verifier,
        client_id: clientId,
      });
      expect(res.status).toBe(200);
      token = res.body.access_token!;
    }
    // The admin signs in to the account pages in a browser of their own.
    context = await browser.newContext();
    const page = await context.newPage();
    await passwordSignIn(stack, page, E2E_ADMIN);
    await page.waitForSelector('h1:has-text("Connected apps")');
    await page.close();
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    for (const l of listeners) await l.close();
  });

  it('lists both apps with their scopes under their data categories, as the export does', async () => {
    const page = await accountPage(stack, context, 'register', 'Access register');
    const text = await page.innerText('main');
    expect(text).toContain('Lesson Planner');
    expect(text).toContain(FORMULA_NAME);
    for (const row of exported()) {
      const cells = page.locator('tr', { hasText: row.app.client_id });
      const shown = await cells.innerText();
      for (const group of row.scopes) {
        expect(shown).toContain(group.title);
        for (const scope of group.scopes) expect(shown).toContain(scope);
      }
    }
    expect(exported()).toHaveLength(2);
    await checkPage(page, 'access-register');
  });

  it('shortens the selected app to the end of the term: still working, ending then', async () => {
    const page = await accountPage(stack, context, 'term-review', 'Term review');
    await checkPage(page, 'term-review');
    await page.locator('tr', { hasText: clients[1]! }).locator('input[type=checkbox]').check();
    await page.check('#action-shorten');
    await page.click('button:has-text("Apply to the selected access")');
    await page.waitForSelector('text=Shortened: 1 app’s access.');
    await checkPage(page, 'term-review-after-shorten');
    const api = await fetch(`${stack.baseUrl}/api/v1/orders`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await api.arrayBuffer();
    expect(api.status).toBe(200);
    const shortened = exported().find((r) => r.app.client_id === clients[1])!;
    expect(shortened.ends_at).toBe(new Date(Date.parse(`${TERM_ENDS}T00:00:00Z`) + 86_400_000).toISOString());
    await expect(page.locator('input[type=checkbox]').count()).resolves.toBe(1);
  });
});
