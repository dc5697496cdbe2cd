/**
 * Passkeys in headless Chromium through the edge, with Chromium's virtual authenticator
 * (support/passkey-browser.ts). A staff member
 * adds a passkey and recovery codes on Your account, signs out, signs in with the passkey and allows
 * an app a write scope (PASSKEY_FOR_WRITE_CONSENT is on: a password sign-in asking for one is sent to
 * the passkey first). Refused: an assertion made on another origin, a replayed assertion, a counter
 * that goes back, a recovery code used twice, a disabled account's passkey and recovery code, a right
 * password once an admin switched it off. The new page states get the axe-core check at 1280 and
 * 390 px (support/browser.ts `inspectPage`).
 *
 * The stack's public host is `localhost`: WebAuthn refuses an IP address as the relying party.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { inspectPage, loopbackListener, tickEveryScope } from './support/browser.js';
import { passwordSignIn } from './support/edge-flows.js';
import {
  addFirstPasskey,
  auditEvents as auditEventsOf,
  openYourAccount as signInToYourAccount,
  registerClient,
  startPasskeyStack,
  virtualDevice,
  writeScopeRequest,
  type VirtualCredential,
} from './support/passkey-browser.js';
import { createStaff, E2E_ADMIN, giveRole, schoolAuth, type Stack } from './support/stack.js';

let stack: Stack;
let browser: Browser;
let evilSite: Server;
let staff: { email: string; password: string };

/**
 * Run in a page (as a string: the tests are compiled without the DOM's types): asks the browser's
 * authenticator for an assertion for the page's own host as RP id over `challenge`, answered as the JSON a page
 * of ours would post.
 */
const ASSERT_IN_PAGE = `async (challenge) => {
  const rpId = location.hostname;
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  const bytes = Uint8Array.from(atob(challenge.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  const cred = await navigator.credentials.get({
    publicKey: { challenge: bytes, rpId, userVerification: 'required', allowCredentials: [] },
  });
  const r = cred.response;
  return JSON.stringify({
    id: cred.id,
    rawId: b64(cred.rawId),
    type: cred.type,
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64(r.clientDataJSON),
      authenticatorData: b64(r.authenticatorData),
      signature: b64(r.signature),
      userHandle: r.userHandle ? b64(r.userHandle) : undefined,
    },
  });
}`;

/** The staff member's passkey, as last exported from the authenticator that used it. */
let credential: VirtualCredential;
/** The bodies of the passkey sign-in forms the browser sent. */
const passkeyPosts: string[] = [];
let recoveryCodes: string[] = [];

jest.setTimeout(120_000);

beforeAll(async () => {
  [stack, browser] = await startPasskeyStack();
  staff = createStaff(stack, 'Kim Keys');
  // A teacher may let an app change courses: the write scope the passkey is asked for below.
  giveRole(stack, staff.email, 'teacher', ['courses:read', 'courses:write']);
  // Another site on loopback, for an assertion made on the wrong origin.
  evilSite = createServer((_req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Other site</title><p>hi</p>');
  });
  await new Promise<void>((r) => evilSite.listen(0, '127.0.0.1', r));
}, 90_000);
afterAll(async () => {
  evilSite?.close();
  await browser?.close();
  await stack?.stop();
});

/** A new browser context and page with a virtual authenticator, holding `held` if given. */
const device = (held?: VirtualCredential) =>
  virtualDevice(browser, held, (page) =>
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/passkey'))
        passkeyPosts.push(request.postData()!);
    }),
  );

/** A new device holding `held` that opens the account pages and signs in with its passkey. */
async function passkeySignIn(held: VirtualCredential) {
  const d = await device(held);
  await d.page.goto(`${stack.baseUrl}/oauth/account/apps`);
  await d.page.click('button:has-text("Sign in with a passkey")');
  return d;
}

/** The one credential of a device's authenticator, as it is now (its signCount moved on). */
async function exported(d: { cdp: CDPSession; id: string }): Promise<VirtualCredential> {
  const { credentials } = await d.cdp.send('WebAuthn.getCredentials', { authenticatorId: d.id });
  expect(credentials).toHaveLength(1);
  const { credentialId, isResidentCredential, rpId, privateKey, userHandle, signCount } =
    credentials[0] as VirtualCredential;
  return { credentialId, isResidentCredential, rpId, privateKey, userHandle, signCount };
}

const openYourAccount = (page: Page, who: { email: string; password: string }) =>
  signInToYourAccount(stack, page, who);
const auditEvents = (type: string, minimum = 1) => auditEventsOf(stack, type, minimum);

/** Opens the account pages in a new context and signs in as the staff member with a recovery code. */
async function signInWithCode(code: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${stack.baseUrl}/oauth/account/apps`);
  await page.click('summary:has-text("Use a recovery code")');
  await page.fill('#recovery-email', staff.email);
  await page.fill('#recovery-code', code);
  await page.click('button:has-text("Sign in with the code")');
  return { context, page };
}

/** What a login page offers a script-less client: the passkey form's action, CSRF token and options. */
async function passkeyForm(page: Page): Promise<{ action: string; csrf: string; challenge: string }> {
  const form = page.locator('form[data-passkey="sign-in"]');
  const options = JSON.parse((await form.getAttribute('data-options'))!) as { challenge: string };
  return {
    action: (await form.getAttribute('action'))!,
    csrf: (await form.locator('input[name=csrf]').getAttribute('value'))!,
    challenge: options.challenge,
  };
}

/** Posts a passkey answer to a login page's form from outside the browser, with the browser's cookies. */
async function postAnswer(context: BrowserContext, action: string, csrf: string, response: string) {
  const cookies = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const res = await fetch(`${stack.edgeUrl}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: stack.baseUrl,
      cookie: cookies,
    },
    body: new URLSearchParams({ csrf, response }).toString(),
  });
  return { status: res.status, text: await res.text() };
}

describe('passkeys, in a browser with a virtual authenticator', () => {
  it('adds a passkey and recovery codes on Your account', async () => {
    const laptop = await device();
    await openYourAccount(laptop.page, staff);
    await expect(laptop.page.innerText('main')).resolves.toContain('You have no passkey yet.');
    await inspectPage(laptop.page, 'your-account-no-passkey');

    // Signed in with the password, which is typed again before a first passkey is added.
    await addFirstPasskey(laptop.page, staff.password, 'Office laptop');
    const row = laptop.page.locator('tr', { hasText: 'Office laptop' });
    await expect(row.innerText()).resolves.toContain('Not yet');
    await inspectPage(laptop.page, 'your-account-passkey-added');
    credential = await exported(laptop);
    expect(credential.isResidentCredential).toBe(true);
    expect(credential.rpId).toBe('localhost');

    // The account has a passkey now: recovery codes need it, not the password.
    await laptop.page.click('button:has-text("Confirm with a passkey")');
    await laptop.page.waitForSelector('text=It is you.');
    credential = await exported(laptop);
    await laptop.page.click('button:has-text("Make new recovery codes")');
    await laptop.page.waitForSelector('text=shown only this once');
    recoveryCodes = await laptop.page.locator('ul.codes code').allInnerTexts();
    expect(recoveryCodes).toHaveLength(10);
    await inspectPage(laptop.page, 'your-account-recovery-codes');
    await laptop.page.goto(`${stack.baseUrl}/oauth/account/account`);
    await expect(laptop.page.innerText('main')).resolves.toContain('You have 10 unused recovery codes.');
    await expect(laptop.page.locator('ul.codes').count()).resolves.toBe(0); // shown once
    // With unused codes, making new ones asks first; Cancel keeps them (they sign in further down).
    await laptop.page.click('a:has-text("Make new recovery codes")');
    await laptop.page.waitForSelector('text=Your 10 unused recovery codes stop working');
    await inspectPage(laptop.page, 'recovery-codes-confirm');
    await laptop.page.click('a:has-text("Cancel")');
    await expect(laptop.page.innerText('main')).resolves.toContain('You have 10 unused recovery codes.');

    const [registered] = await auditEvents('passkey_registered');
    expect(registered?.details).toEqual({ name: 'Office laptop', proof: 'password' });
    await auditEvents('recovery_codes_generated');
    await laptop.context.close();
  });

  it('sends a password sign-in asked for a write scope to the passkey, which signs in and allows it', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = await registerClient(stack, listener);
      const laptop = await device(credential);
      await laptop.page.goto(writeScopeRequest(stack, clientId, listener));
      await expect(laptop.page.title()).resolves.toBe('Sign in');
      await inspectPage(laptop.page, 'login-with-passkey');
      await laptop.page.fill('#email', staff.email);
      await laptop.page.fill('#password', staff.password);
      await laptop.page.click('button:text-is("Sign in")');

      // Signed in with the password, but a write scope needs the passkey first.
      await laptop.page.waitForSelector('text=Sign in with your passkey to allow that');
      await expect(laptop.page.locator('#password').count()).resolves.toBe(0);
      await inspectPage(laptop.page, 'login-passkey-required');
      await laptop.page.click('button:has-text("Sign in with a passkey")');

      await laptop.page.waitForSelector('text=Allow access to your school?');
      await expect(laptop.page.innerText('main')).resolves.toContain(staff.email);
      await tickEveryScope(laptop.page);
      await laptop.page.click('button:has-text("Allow")');
      const callback = await listener.received;
      expect(callback.searchParams.get('code')).toEqual(expect.any(String));
      credential = await exported(laptop);
      expect(credential.signCount).toBeGreaterThan(0);

      const signedIn = await auditEvents('login_succeeded', 1);
      expect(signedIn.map((e) => (e.details as { method?: string })?.method)).toContain('passkey');
      const granted = await auditEvents('consent_granted');
      expect(granted.at(-1)?.details).toEqual({
        scope: 'openid courses:write',
        duration: 'revoked',
        ends: expect.any(String),
      });
      await laptop.context.close();
    } finally {
      await listener.close();
    }
  });

  it('refuses a recorded assertion replayed against a new sign-in page', async () => {
    expect(passkeyPosts.length).toBeGreaterThan(0);
    const recorded = new URLSearchParams(passkeyPosts.at(-1)).get('response')!;
    const other = await device();
    await other.page.goto(`${stack.baseUrl}/oauth/account/apps`);
    const { action, csrf } = await passkeyForm(other.page);
    const replayed = await postAnswer(other.context, action, csrf, recorded);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('That passkey could not sign you in');
    const refused = await auditEvents('passkey_refused');
    expect(JSON.stringify(refused.at(-1)?.details)).toContain('challenge');
    await other.context.close();
  });

  it('refuses an assertion the authenticator made on another origin', async () => {
    // The same key pair, also registered with a look-alike site: its assertion over our challenge is
    // signed by the real key, but for the other site's RP id and origin.
    const phone = await device({ ...credential, rpId: 'evil.localhost' });
    await phone.page.goto(`${stack.baseUrl}/oauth/account/apps`);
    const { action, csrf, challenge } = await passkeyForm(phone.page);
    const port = (evilSite.address() as AddressInfo).port;
    await phone.page.goto(`http://evil.localhost:${port}/`);
    const answer = await phone.page.evaluate<string>(`(${ASSERT_IN_PAGE})(${JSON.stringify(challenge)})`);
    const clientData = JSON.parse(
      Buffer.from(
        (JSON.parse(answer) as { response: { clientDataJSON: string } }).response.clientDataJSON,
        'base64url',
      ).toString(),
    ) as { origin: string; challenge: string };
    expect(clientData.origin).toBe(`http://evil.localhost:${port}`);
    expect(clientData.challenge).toBe(challenge);

    const relayed = await postAnswer(phone.context, action, csrf, answer);
    expect(relayed.status).toBe(401);
    const refused = await auditEvents('passkey_refused', 2);
    expect(JSON.stringify(refused.at(-1)?.details)).toMatch(/origin/i);
    await phone.context.close();
  });

  it('refuses a passkey whose signature counter went back (a cloned authenticator)', async () => {
    const clone = await passkeySignIn({ ...credential, signCount: 0 });
    await clone.page.waitForSelector('text=That passkey could not sign you in');
    await expect(clone.page.title()).resolves.toBe('Sign in');
    await inspectPage(clone.page, 'login-passkey-refused');
    const refused = await auditEvents('passkey_refused', 3);
    expect(JSON.stringify(refused.at(-1)?.details)).toMatch(/counter/i);
    await clone.context.close();

    // The real authenticator, counting on, still signs in.
    const laptop = await passkeySignIn(credential);
    await laptop.page.waitForSelector('h1:has-text("Connected apps")');
    credential = await exported(laptop);
    await laptop.context.close();
  });

  it('signs in once with a recovery code, never twice', async () => {
    const code = recoveryCodes[0]!;
    const useCode = () => signInWithCode(code.toUpperCase());
    const first = await useCode();
    await first.page.waitForSelector('h1:has-text("Connected apps")');
    await first.context.close();
    const used = await auditEvents('recovery_code_used');
    expect(used[0]?.details).toEqual({ codes_left: 9 });

    const second = await useCode();
    await second.page.waitForSelector('text=recovery code is not right');
    await expect(second.page.inputValue('#recovery-email')).resolves.toBe(staff.email);
    await inspectPage(second.page, 'login-recovery-code-refused');
    await second.context.close();
  });

  it('signs a disabled account in by neither its passkey nor a recovery code', async () => {
    schoolAuth(stack, ['accounts', 'disable', staff.email]);
    const laptop = await passkeySignIn(credential);
    await laptop.page.waitForSelector('text=That passkey could not sign you in');
    credential = await exported(laptop);
    await laptop.context.close();
    const refused = await auditEvents('passkey_refused', 4);
    expect(refused.at(-1)?.details).toMatchObject({ reason: 'account_disabled' });

    const code = recoveryCodes[1]!;
    const whileDisabled = await signInWithCode(code);
    await whileDisabled.page.waitForSelector('text=recovery code is not right');
    await whileDisabled.context.close();

    // Enabled again, the same code signs in: it was not spent on the refusal.
    schoolAuth(stack, ['accounts', 'enable', staff.email]);
    const enabled = await signInWithCode(code);
    await enabled.page.waitForSelector('h1:has-text("Connected apps")');
    await enabled.context.close();
  });

  it('shows and removes a passkey, with its last use', async () => {
    const laptop = await device(credential);
    await openYourAccount(laptop.page, staff);
    // Removing needs the passkey confirmed first.
    await laptop.page.click('button:has-text("Confirm with a passkey")');
    await laptop.page.waitForSelector('text=It is you.');
    credential = await exported(laptop);
    const row = laptop.page.locator('tr', { hasText: 'Office laptop' });
    await expect(row.innerText()).resolves.toMatch(
      /\d{4}-\d\d-\d\d \d\d:\d\d UTC[\s\S]*\d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    // Remove asks first, on a page of its own naming the passkey.
    await row.locator('a:has-text("Remove")').click();
    await laptop.page.waitForSelector('h1:has-text("Remove this passkey?")');
    await expect(laptop.page.innerText('main')).resolves.toContain('Office laptop');
    await inspectPage(laptop.page, 'remove-passkey-confirm');
    const confirmUrl = laptop.page.url();
    await laptop.page.click('button:has-text("Remove the passkey")');
    await laptop.page.waitForSelector('text=The passkey is removed');
    // Its confirmation page, asked again, knows it is gone; another person's id is no different.
    for (const url of [
      confirmUrl,
      `${stack.baseUrl}/oauth/account/account/passkeys/remove?passkey_id=someone-else`,
    ]) {
      const again = await laptop.page.goto(url);
      expect(again?.status()).toBe(404);
      await expect(laptop.page.innerText('main')).resolves.toContain('You have no such passkey any more.');
    }
    await expect(laptop.page.innerText('main')).resolves.toContain('You have no passkey yet.');
    await auditEvents('passkey_removed');

    // The removed passkey no longer signs in.
    const again = await passkeySignIn(credential);
    await again.page.waitForSelector('text=That passkey could not sign you in');
    await laptop.context.close();
    await again.context.close();
  });

  it('refuses a right password once an admin switched it off for the account', async () => {
    const admin = await browser.newContext();
    const adminPage = await admin.newPage();
    await openYourAccount(adminPage, E2E_ADMIN);
    await adminPage.goto(`${stack.baseUrl}/oauth/account/staff`);
    const row = adminPage.locator('tr', { hasText: staff.email });
    await row.locator('button:has-text("Switch password sign-in off")').click();
    await adminPage.waitForSelector('text=Password sign-in is off');
    await inspectPage(adminPage, 'staff-accounts-password-off');
    await admin.close();

    const context = await browser.newContext();
    const page = await context.newPage();
    await passwordSignIn(stack, page, staff);
    await page.waitForSelector('text=Password sign-in is switched off for this account');
    await expect(page.inputValue('#email')).resolves.toBe(staff.email);
    await inspectPage(page, 'login-password-off');
    await context.close();
    await auditEvents('password_sign_in_switched');
    await auditEvents('password_sign_in_refused');
  });
});
