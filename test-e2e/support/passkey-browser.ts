/**
 * What the passkey suites share: a browser context with Chromium's virtual authenticator (the
 * DevTools protocol's WebAuthn domain: CTAP2, internal, resident keys, user verification), signing in
 * to Your account with a password, an app asking for a write scope, and the audit events stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { launchBrowser, registerNativeApp, type LoopbackListener } from './browser.js';
import { passwordSignIn } from './edge-flows.js';
import { startStack, type Stack } from './stack.js';

/**
 * The stack the passkey suites run on, with Chromium: passkeys asked for write consent, and the
 * issuer on `localhost` (WebAuthn's relying party id must be a name, not an address).
 */
export function startPasskeyStack(): Promise<[Stack, Browser]> {
  return Promise.all([
    startStack({ PASSKEY_FOR_WRITE_CONSENT: 'true' }, 'http', {}, 'localhost'),
    launchBrowser(),
  ]);
}

/** The WebAuthn credential as the virtual authenticator exports it. */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  privateKey: string;
  userHandle: string;
  signCount: number;
}

/** A browser context and page with a virtual authenticator. */
export interface Device {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  /** The authenticator's id. */
  id: string;
}

/** A new context and page of `browser` with a virtual authenticator, holding `held` if given. */
export async function virtualDevice(
  browser: Browser,
  held?: VirtualCredential,
  watch?: (page: Page) => void,
): Promise<Device> {
  const context = await browser.newContext();
  const page = await context.newPage();
  watch?.(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId: id } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  if (held) await cdp.send('WebAuthn.addCredential', { authenticatorId: id, credential: held });
  return { context, page, cdp, id };
}

/**
 * Signs in to the account pages with a password and opens Your account. The sign-in lands on
 * Connected apps, or on Your account when it tells of a passkey added elsewhere after only the
 * password.
 */
export async function openYourAccount(
  stack: Stack,
  page: Page,
  who: { email: string; password: string },
): Promise<void> {
  await passwordSignIn(stack, page, who);
  await page.waitForURL(/\/oauth\/account\/(apps|account)$/);
  await page.goto(`${stack.baseUrl}/oauth/account/account`);
  await page.waitForSelector('h1:has-text("Your account")');
}

/**
 * On Your account, signed in with the password: types the password again to confirm it is them, then
 * adds a passkey named `name` on `page`'s virtual authenticator.
 */
export async function addFirstPasskey(page: Page, password: string, name: string): Promise<void> {
  await page.fill('#confirm-password', password);
  await page.click('button:has-text("Confirm with your password")');
  await page.waitForSelector('text=It is you.');
  await page.fill('#passkey-name', name);
  await page.click('button:has-text("Add a passkey")');
  await page.waitForSelector('text=Your passkey is added');
}

/** Registers a native app named "Course Planner" returning to `listener`; its client id. */
export const registerClient = (stack: Stack, listener: LoopbackListener): Promise<string> =>
  registerNativeApp(stack, 'Course Planner', listener);

/** An authorization request of `clientId` for a write scope. */
export function writeScopeRequest(stack: Stack, clientId: string, listener: LoopbackListener): string {
  return `${stack.baseUrl}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: listener.redirectUri,
    scope: 'openid courses:write',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString()}`;
}

/** The audit events of `type` on `stack`, oldest first, waiting until at least `minimum` are stored. */
export async function auditEvents(
  stack: Stack,
  type: string,
  minimum = 1,
): Promise<Array<Record<string, unknown>>> {
  const conn = await mongoose.createConnection(stack.env.MONGODB_URI!).asPromise();
  try {
    for (let i = 0; ; i++) {
      const events = await conn
        .collection<Record<string, unknown>>('audit_events')
        .find({ type })
        .sort({ at: 1 })
        .toArray();
      if (events.length >= minimum || i >= 50) return events;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await conn.close();
  }
}
