/**
 * The steps several e2e suites take through the edge the same way: an open registration, opening an
 * authorization in a browser page (signing in when the page asks) up to the consent page, a form POST
 * to the token endpoint (a code redeemed), the API's answer to a token, the account pages (a password sign-in, a page
 * opened), and the device pairing page signed in with a password.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LoopbackListener } from './browser.js';
import type { Stack } from './stack.js';

/** What an authorization opened in a page asks for, and who signs in when the page asks. */
export interface ConsentRequest {
  clientId: string;
  listener: LoopbackListener;
  scope: string;
  state: string;
  who: { email: string; password: string };
}

/**
 * Opens an authorization (PKCE S256, the stack as the resource) in `page`, signs `who` in when the
 * page asks, and waits for the consent page; the PKCE verifier that redeems the code.
 */
export async function openConsent(stack: Stack, page: Page, req: ConsentRequest): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: req.clientId,
    redirect_uri: req.listener.redirectUri,
    scope: req.scope,
    state: req.state,
    resource: stack.baseUrl,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  await page.goto(`${stack.baseUrl}/oauth/authorize?${params.toString()}`);
  if (await page.locator('input[name=password]').count()) {
    await page.fill('input[name=email]', req.who.email);
    await page.fill('input[name=password]', req.who.password);
    await page.click('button[type=submit]');
  }
  await page.waitForSelector('text=Allow access to your school?');
  return verifier;
}

/** Registers `metadata` (open registration) through the edge; the answer's status and client id. */
export async function registerApp(
  stack: Stack,
  metadata: Record<string, unknown>,
): Promise<{ status: number; clientId: string }> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: res.status, clientId: ((await res.json()) as { client_id: string }).client_id };
}

/**
 * Redeems the code `listener` receives at the token endpoint as the public client `clientId` with the
 * PKCE `verifier` (and `extra` parameters, such as the resource); the token endpoint's answer.
 */
export async function redeemCode(
  stack: Stack,
  listener: Pick<LoopbackListener, 'received' | 'redirectUri'>,
  grant: { clientId: string; verifier: string; extra?: Record<string, string> },
): Promise<{ status: number; body: Record<string, string> }> {
  return edgeToken(stack, {
    grant_type: 'authorization_code',
    code: (await listener.received).searchParams.get('code')!,
    redirect_uri: listener.redirectUri,
    code_verifier: grant.verifier,
    client_id: grant.clientId,
    ...grant.extra,
  });
}

/** The status the API answers `token` with at /api/v1/courses, through the edge. */
export async function apiStatus(stack: Stack, token: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/api/v1/courses`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

/** A new page of `context` on the account page at `path`, once its heading `heading` shows. */
export async function accountPage(
  stack: Stack,
  context: BrowserContext,
  path: string,
  heading: string,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/oauth/account/${path}`);
  await page.waitForSelector(`h1:has-text("${heading}")`);
  return page;
}

/** A form POST to the token endpoint through the edge; its status and JSON body. */
export async function edgeToken(
  stack: Stack,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Opens the account pages in `page` and sends `who`'s email and password on the sign-in page. */
export async function passwordSignIn(
  stack: Stack,
  page: Page,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${stack.baseUrl}/oauth/account/apps`);
  await page.fill('#email', who.email);
  await page.fill('#password', who.password);
  await page.click('button:text-is("Sign in")');
}

/** A new browser context's page, signed in as `who` (a password sign-in) on the pairing page. */
export async function signedInPairingPage(
  stack: Stack,
  browser: Browser,
  who: { email: string; password: string },
): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${stack.baseUrl}/oauth/device`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=password]', who.password);
  await page.click('button:text-is("Sign in")');
  await page.waitForSelector('h1:has-text("Pair a device")');
  return page;
}

/** Types `code` on the pairing page (signed in already) and continues; the page's text after. */
export async function enterCode(stack: Stack, page: Page, code: string): Promise<string> {
  await page.goto(`${stack.baseUrl}/oauth/device`);
  await page.fill('input[name=user_code]', code);
  await page.click('button:has-text("Continue")');
  return page.locator('main').innerText();
}
