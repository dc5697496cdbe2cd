/**
 * A school admin in a real browser (headless Chromium) through the edge: signs in, reads the consent
 * page and approves; in another run denies. A loopback listener plays the native app catching the
 * redirect. Screenshots of both pages are saved in test-results/.
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import {
  ARTIFACTS,
  loopbackListener,
  registerNativeApp,
  tickEveryScope,
  type LoopbackListener,
} from './support/browser.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

const registerClient = (listener: LoopbackListener, name: string) => registerNativeApp(stack, name, listener);

function authorizationUrl(clientId: string, listener: LoopbackListener, state: string): string {
  const verifier = randomBytes(32).toString('base64url');
  return `${stack.baseUrl}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: listener.redirectUri,
    scope: 'openid email courses:read coupons:write',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString()}`;
}

describe('the admin in a browser', () => {
  it('signs in, sees who asks and for what, approves, and the app receives code, state and iss', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(listener, 'Gradebook Sync Agent');
      const page = await browser.newPage();
      await page.goto(authorizationUrl(clientId, listener, 'approve-1'));

      await expect(page.title()).resolves.toBe('Sign in');
      await page.fill('input[name=email]', E2E_ADMIN.email);
      await page.fill('input[name=password]', E2E_ADMIN.password);
      await page.screenshot({ path: join(ARTIFACTS, 'login.png'), fullPage: true });
      await page.click('button[type=submit]');

      await page.waitForSelector('text=Allow access to your school?');
      const text = await page.innerText('main');
      expect(text).toContain('Gradebook Sync Agent');
      expect(text).toContain('Self-declared name');
      expect(text).toContain(`an app on this computer (127.0.0.1, port ${listener.port})`);
      expect(text).toContain('See your school’s courses');
      expect(text).toContain('Create, change and delete your school’s coupons');
      expect(text).toContain('See your email address');
      expect(text).toContain(E2E_ADMIN.email);
      await page.screenshot({ path: join(ARTIFACTS, 'consent.png'), fullPage: true });
      await tickEveryScope(page);
      await page.click('button:has-text("Allow")');

      const callback = await listener.received;
      expect(callback.searchParams.get('code')).toEqual(expect.any(String));
      expect(callback.searchParams.get('state')).toBe('approve-1');
      expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
      await page.close();
    } finally {
      await listener.close();
    }
  });

  it('denies, and the app receives access_denied with state and iss', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(listener, 'Unwanted Agent');
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(authorizationUrl(clientId, listener, 'deny-1'));
      await page.fill('input[name=email]', E2E_ADMIN.email);
      await page.fill('input[name=password]', E2E_ADMIN.password);
      await page.click('button[type=submit]');
      await page.click('button:has-text("Deny")');

      const callback = await listener.received;
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe('deny-1');
      expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
      expect(callback.searchParams.get('code')).toBeNull();
      await context.close();
    } finally {
      await listener.close();
    }
  });

  it('fits a 390 px phone screen without sideways scrolling, on the sign-in and consent pages', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(
        listener,
        'A very long self-declared application name for phones',
      );
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      // Evaluated in the page (a string, as the tests are type-checked without the DOM library).
      const overflow = () =>
        page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      await page.goto(authorizationUrl(clientId, listener, 'phone-1'));
      expect(await overflow()).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, 'login-390.png'), fullPage: true });
      await page.fill('input[name=email]', E2E_ADMIN.email);
      await page.fill('input[name=password]', E2E_ADMIN.password);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Allow access to your school?');
      expect(await overflow()).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(ARTIFACTS, 'consent-390.png'), fullPage: true });
      await context.close();
    } finally {
      await listener.close();
    }
  });

  it('shows the same generic message for a wrong password, in the browser', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(listener, 'Typo Agent');
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(authorizationUrl(clientId, listener, 's'));
      await page.fill('input[name=email]', E2E_ADMIN.email);
      await page.fill('input[name=password]', 'wrong password');
      await page.click('button[type=submit]');
      await expect(page.innerText('.error')).resolves.toBe('The email or password is not right.');
      await context.close();
    } finally {
      await listener.close();
    }
  });
});
