/**
 * Every response mode discovery advertises completes in a real browser (headless Chromium) through
 * the edge: sign in, approve, the app's loopback listener receives code, state and iss (by redirect
 * query, by fragment in the browser's address bar, or by the form_post page's auto-submitted form),
 * and the code is redeemed at the token endpoint. The list of modes comes from discovery itself, so
 * advertising a new mode without making it work fails here. No page may report a CSP violation.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import {
  launchBrowser,
  loopbackListener,
  registerNativeApp,
  type LoopbackListener,
} from './support/browser.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

let stack: Stack;
let browser: Browser;
let advertised: string[];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  const discovery = await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`);
  advertised = ((await discovery.json()) as { response_modes_supported: string[] }).response_modes_supported;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const registerClient = (listener: LoopbackListener) =>
  registerNativeApp(stack, 'Response Mode Agent', listener);

/** Where the app finds the authorization response for each mode, once the browser has delivered it. */
async function callbackParameters(
  mode: string,
  page: Page,
  listener: LoopbackListener,
): Promise<URLSearchParams> {
  if (mode === 'fragment') {
    await page.waitForURL((url) => url.hash.length > 1, { timeout: 20_000 });
    return new URLSearchParams(new URL(page.url()).hash.slice(1));
  }
  const received = await Promise.race([
    listener.received,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`the app never received the ${mode} callback`)), 20_000).unref(),
    ),
  ]);
  await expect(listener.receivedMethod).resolves.toBe(mode === 'form_post' ? 'POST' : 'GET');
  return received.searchParams;
}

describe('every advertised response mode, in Chromium', () => {
  it('advertises the modes this suite knows how to receive, and nothing else', () => {
    expect([...advertised].sort()).toEqual(['form_post', 'fragment', 'query']);
  });

  it.each(['query', 'fragment', 'form_post'])(
    'response_mode=%s delivers code, state and iss to the app, and the code is redeemed',
    async (mode) => {
      const listener = await loopbackListener();
      const context = await browser.newContext();
      const violations: string[] = [];
      try {
        const clientId = await registerClient(listener);
        const verifier = randomBytes(32).toString('base64url');
        const state = `state-${mode}`;
        const page = await context.newPage();
        page.on('console', (message) => {
          if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
        });
        await page.goto(
          `${stack.baseUrl}/oauth/authorize?${new URLSearchParams({
            response_type: 'code',
            response_mode: mode,
            client_id: clientId,
            redirect_uri: listener.redirectUri,
            scope: 'openid courses:read',
            state,
            code_challenge: createHash('sha256').update(verifier).digest('base64url'),
            code_challenge_method: 'S256',
          }).toString()}`,
        );
        await page.fill('input[name=email]', E2E_ADMIN.email);
        await page.fill('input[name=password]', E2E_ADMIN.password);
        await page.click('button[type=submit]');
        await page.click('button:has-text("Allow")');

        const params = await callbackParameters(mode, page, listener);
        expect(params.get('state')).toBe(state);
        expect(params.get('iss')).toBe(stack.baseUrl);
        const code = params.get('code');
        expect(code).toEqual(expect.any(String));

        const token = await fetch(`${stack.baseUrl}/api/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: code!,
            redirect_uri: listener.redirectUri,
            client_id: clientId,
            code_verifier: verifier,
          }),
        });
        expect(token.status).toBe(200);
        expect(await token.json()).toEqual(expect.objectContaining({ access_token: expect.any(String) }));
        expect(violations).toEqual([]);
      } finally {
        await context.close();
        await listener.close();
      }
    },
    60_000,
  );
});
