/**
 * The site root and the error pages through the edge, in headless Chromium with axe-core at 1280 and
 * 390 px: `/` is a small home page for a browser and the JSON 404 for any other client; every error
 * page (the auth server's and the edge's own) offers a way back; an error page's reference finds the
 * auth server's log line naming the cause.
 */
import { describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { inspectPage } from './support/browser.js';
import type { Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

describe('the site root', () => {
  it('is a page for a browser, and the JSON 404 for a program', async () => {
    const page = await fetch(`${stack.baseUrl}/`, {
      headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const body = await page.text();
    for (const href of ['/oauth/account/apps', '/auth.md', '/openapi.json'])
      expect(body).toContain(`href="${href}"`);
    for (const accept of ['application/json', '*/*']) {
      const json = await fetch(`${stack.baseUrl}/`, { headers: { accept } });
      expect({ accept, status: json.status }).toEqual({ accept, status: 404 });
      expect(await json.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('reads well at both widths and leads to sign-in', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${stack.baseUrl}/`);
    await page.waitForSelector('h1:has-text("School sign-in")');
    await inspectPage(page, 'home');
    await page.click('a:has-text("Sign in")');
    await expect(page.title()).resolves.toBe('Sign in');
  });
});

describe('error pages', () => {
  it('offer a way back, and their reference finds the log line that names the cause', async () => {
    const page = await (await browser.newContext()).newPage();
    const answer = await page.goto(`${stack.baseUrl}/oauth/interaction/no-such-sign-in`);
    expect(answer?.status()).toBe(400);
    for (const link of ['Home', 'Sign in', 'Connected apps'])
      await expect(page.locator(`nav[aria-label="Ways back"] >> text=${link}`).count()).resolves.toBe(1);
    await inspectPage(page, 'error-page-ways-back');
    const reference = await page.innerText('code.ref');
    const lines = stack.logs['auth-server']!.flatMap((chunk) => chunk.split('\n')).filter(
      (l) => l.includes(reference) && l.includes('"cause"'),
    );
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ requestId: reference, error: 'interaction_expired' });
    await page.click('nav[aria-label="Ways back"] >> text=Home');
    await page.waitForSelector('h1:has-text("School sign-in")');
  });

  it('the edge’s own error page offers a way back too', async () => {
    const page = await (await browser.newContext()).newPage();
    const answer = await page.goto(`${stack.baseUrl}/oauth/${'x'.repeat(9000)}`);
    expect(answer?.status()).toBeGreaterThanOrEqual(400);
    await expect(page.locator('nav[aria-label="Ways back"] a').count()).resolves.toBe(3);
  });
});
