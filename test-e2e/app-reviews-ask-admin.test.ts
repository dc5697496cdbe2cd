/**
 * The school reviews new apps first (APP_REVIEW_UNREVIEWED=ask-admin), end to end through the edge with
 * Chromium and `school-auth`: a staff member connecting a metadata-document app nobody reviewed signs
 * in, lands on the page saying so (axe-core finds nothing at 1280 and 390 px), asks the admins, and
 * the app gets `access_denied` with a description saying a review was requested; asking again records
 * nothing new. The admin sees the request on App reviews and allows the app; the staff member's next
 * authorization reaches consent. Then the operator blocks the app's whole domain with the CLI: the
 * grant ends (the API answers 401), and another app of that domain, never fetched, is refused on the
 * school's page before its document is read; device authorization is refused for a blocked app. An
 * integration an operator created counts as allowed. The CLI lists reviews and requests, and refuses
 * what is not a domain.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { makeTestPki, startDocumentServer, type DocumentServer } from '../test-support/https-documents.js';
import type { LoopbackListener } from './support/browser.js';
import { expectNoAxeViolations, launchBrowser, loopbackListener, tickEveryScope } from './support/browser.js';
import { codeRequest } from '../test-support/oauth-flow.js';
import { redeemCode, registerApp, signedInPairingPage } from './support/edge-flows.js';
import { createStaff, E2E_ADMIN, schoolAuth, startStack, type Stack } from './support/stack.js';

let stack: Stack;
let browser: Browser;
let docs: DocumentServer;

beforeAll(async () => {
  const pki = makeTestPki();
  docs = await startDocumentServer(pki);
  [stack, browser] = await Promise.all([
    startStack({
      APP_REVIEW_UNREVIEWED: 'ask-admin',
      CIMD_ALLOW_LOOPBACK: 'true',
      CIMD_EXTRA_CA_FILE: pki.caFile,
      DEVICE_PAIRING: 'all',
    }),
    launchBrowser(),
  ]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await docs?.close();
});

/** Publishes a metadata document at a fresh path of the document host (127.0.0.1); returns its URL. */
function publish(name: string): { clientId: string; path: string } {
  const path = `/agents/${randomBytes(6).toString('hex')}/client-metadata.json`;
  const clientId = docs.url(path, '127.0.0.1');
  docs.json(path, { client_id: clientId, client_name: name, redirect_uris: ['http://127.0.0.1/callback'] });
  return { clientId, path };
}

/** An authorization URL for `clientId` and the PKCE verifier that redeems its code. */
function authorization(clientId: string, redirectUri: string): { url: string; verifier: string } {
  const params = { client_id: clientId, redirect_uri: redirectUri, scope: 'openid courses:read' };
  return codeRequest({ issuer: stack.baseUrl }, params);
}

/** `school-auth` run as a process; its exit code and what it wrote. */
function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(
    process.execPath,
    [resolve(import.meta.dirname, '../packages/auth-server/dist/cli/main.js'), ...args],
    { cwd: resolve(import.meta.dirname, '..'), env: { ...process.env, ...stack.env }, encoding: 'utf8' },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Runs `work` with a fresh loopback listener, closed afterwards. */
async function withListener<T>(work: (l: LoopbackListener) => Promise<T>): Promise<T> {
  const listener = await loopbackListener();
  try {
    return await work(listener);
  } finally {
    await listener.close();
  }
}

describe('unreviewed apps wait for the admins, and a domain can be blocked', () => {
  let staffContext: BrowserContext;
  let adminContext: BrowserContext;
  let staffPage: Page;
  let adminPage: Page;
  let staff: { email: string; password: string };
  const coach = () => publish('Essay Coach');
  let app: { clientId: string; path: string };

  beforeAll(async () => {
    staff = createStaff(stack, 'Sam Teacher');
    [staffContext, adminContext] = await Promise.all([browser.newContext(), browser.newContext()]);
    [staffPage, adminPage] = await Promise.all([staffContext.newPage(), adminContext.newPage()]);
    app = coach();
  });
  afterAll(async () => {
    await staffContext?.close();
    await adminContext?.close();
  });

  it('ends an unreviewed app’s authorization on the review page; asking records one request and tells the app', async () => {
    const denied = await withListener(async (listener) => {
      await staffPage.goto(authorization(app.clientId, listener.redirectUri).url);
      await staffPage.fill('input[name=email]', staff.email);
      await staffPage.fill('input[name=password]', staff.password);
      await staffPage.click('button[type=submit]');
      await staffPage.waitForSelector('h1:has-text("Your school reviews new apps first")');
      expect(await staffPage.innerText('main')).toContain('Essay Coach');
      await expectNoAxeViolations(staffPage);
      await staffPage.click('button:has-text("Ask the admins to review this app")');
      return listener.received;
    });
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('error_description')).toContain('a review of this app was requested');

    // Asking again is the same request: still one app waiting, asked once.
    const again = await withListener(async (listener) => {
      await staffPage.goto(authorization(app.clientId, listener.redirectUri).url);
      await staffPage.click('button:has-text("Ask the admins to review this app")');
      return listener.received;
    });
    expect(again.searchParams.get('error')).toBe('access_denied');
    const listed = schoolAuth(stack, ['apps', 'reviews']) as unknown as {
      unreviewed_apps: string;
      requests: {
        client_id: string;
        name: string;
        kind: string;
        domain: string;
        asked: number;
        asked_by: { email: string }[];
      }[];
    };
    expect(listed.unreviewed_apps).toBe('ask-admin');
    expect(listed.requests).toEqual([
      expect.objectContaining({
        client_id: app.clientId,
        name: 'Essay Coach',
        kind: 'metadata-document',
        domain: '127.0.0.1',
        asked: 1,
        asked_by: [expect.objectContaining({ email: staff.email })],
      }),
    ]);
  }, 90_000);

  it('lets the admin allow it from the request: the staff member’s next authorization reaches consent and the API', async () => {
    await adminPage.goto(`${stack.baseUrl}/oauth/account/app-reviews`);
    await adminPage.fill('input[name=email]', E2E_ADMIN.email);
    await adminPage.fill('input[name=password]', E2E_ADMIN.password);
    await adminPage.click('button[type=submit]');
    await adminPage.waitForSelector('nav[aria-label="Account pages"]');
    await adminPage.goto(`${stack.baseUrl}/oauth/account/app-reviews`);
    await adminPage.waitForSelector('h1:has-text("App reviews")');
    const request = adminPage.locator('table tr', { hasText: app.clientId });
    const row = await request.innerText();
    expect(row).toContain('Essay Coach');
    expect(row).toContain(staff.email);
    expect(row).toContain('127.0.0.1');
    await expectNoAxeViolations(adminPage);
    await adminPage.click('button[aria-label="Allow Essay Coach"]');
    await adminPage.waitForSelector('text=Essay Coach is allowed.');
    expect(await adminPage.innerText('main')).toContain('No one is waiting for a review.');

    const token = await withListener(async (listener) => {
      const { url, verifier } = authorization(app.clientId, listener.redirectUri);
      await staffPage.goto(url);
      await staffPage.waitForSelector('text=Allow access to your school?');
      await tickEveryScope(staffPage);
      await staffPage.click('button:has-text("Allow")');
      const res = await redeemCode(stack, listener, { clientId: app.clientId, verifier });
      expect(res.status).toBe(200);
      return res.body.access_token!;
    });
    const courses = () =>
      fetch(`${stack.baseUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.status,
      );
    expect(await courses()).toBe(200);

    // The operator blocks the whole domain: the block wins over the app's own allow, and its grant ends.
    const blocked = schoolAuth(stack, ['apps', 'block', '--domain', '127.0.0.1.']);
    expect(blocked).toMatchObject({
      target: 'domain',
      value: '127.0.0.1',
      review: 'blocked',
      grants_ended: 1,
    });
    expect(await courses()).toBe(401);

    // Another app of that domain is refused on the school's page before its document is fetched.
    const other = publish('Essay Coach Pro');
    const page = await staffContext.newPage();
    const answer = await page.goto(authorization(other.clientId, 'http://127.0.0.1:1/callback').url);
    expect(answer?.status()).toBe(403);
    expect(await page.innerText('h1')).toBe('Your school has blocked this app');
    expect(docs.hits.get(other.path) ?? 0).toBe(0);
    await page.close();

    const reviews = (
      schoolAuth(stack, ['apps', 'reviews']) as unknown as {
        reviews: { target: string; value: string; review: string; by: string }[];
      }
    ).reviews;
    expect(reviews.map((r) => [r.target, r.value, r.review, r.by])).toEqual([
      ['domain', '127.0.0.1', 'blocked', 'operator'],
      ['client', app.clientId, 'allowed', E2E_ADMIN.email],
    ]);
    const lifted = schoolAuth(stack, ['apps', 'unblock', '--domain', '127.0.0.1']);
    expect(lifted).toMatchObject({ target: 'domain', value: '127.0.0.1', review: 'unreviewed' });
  }, 90_000);

  it('refuses device authorization to a blocked app, and counts an operator’s integration as allowed', async () => {
    const registered = await registerApp(stack, {
      client_name: 'Lab Kiosk',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
      token_endpoint_auth_method: 'none',
    });
    expect(registered.status).toBe(201);
    const kiosk = registered.clientId;
    const deviceAuth = () =>
      fetch(`${stack.baseUrl}/api/oauth/device/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: kiosk, scope: 'openid courses:read' }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
    const refusal = (r: { status: number; body: Record<string, string> }) => [r.status, r.body.error];
    expect(refusal(await deviceAuth())).toEqual([400, 'unauthorized_client']); // unreviewed: nobody to ask here
    schoolAuth(stack, ['apps', 'allow', kiosk]);
    const started = await deviceAuth();
    expect(started.status).toBe(200);
    schoolAuth(stack, ['apps', 'block', kiosk]);
    expect(refusal(await deviceAuth())).toEqual([400, 'unauthorized_client']);

    // A code its device got before the block pairs nothing: the pairing page says the school blocked it.
    const pairing = await signedInPairingPage(stack, browser, staff);
    await pairing.fill('input[name=user_code]', started.body.user_code!);
    const [shown] = await Promise.all([
      pairing.waitForResponse((r) => r.url().endsWith('/oauth/device') && r.request().method() === 'POST'),
      pairing.click('button:has-text("Continue")'),
    ]);
    expect(shown.status()).toBe(403);
    expect(await pairing.innerText('h1')).toBe('Your school has blocked this app');
    await pairing.context().close();
    const polled = await fetch(`${stack.baseUrl}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: started.body.device_code!,
        client_id: kiosk,
      }),
    });
    expect(polled.status).toBe(400);

    const native = schoolAuth(stack, [
      'clients',
      'create-native',
      '--name',
      'Grade Book Desktop',
      '--redirect-uri',
      'http://127.0.0.1:8787/callback',
    ]);
    await staffPage.goto(authorization(native.client_id!, 'http://127.0.0.1:8787/callback').url);
    await staffPage.waitForSelector('text=Allow access to your school?');
  }, 60_000);

  it('refuses, in plain words, a review the CLI cannot make', () => {
    const notADomain = cli(['apps', 'block', '--domain', 'https://example.com/']);
    expect([notADomain.status, notADomain.stderr]).toEqual([
      1,
      expect.stringContaining('is not a domain: name the host only'),
    ]);
    const both = cli(['apps', 'allow', 'abc', '--domain', 'example.com']);
    expect([both.status, both.stderr]).toEqual([1, expect.stringContaining('not both')]);
    const unknown = cli(['apps', 'block', 'no-such-app']);
    expect([unknown.status, unknown.stderr]).toEqual([
      1,
      expect.stringContaining('There is no app with the client id no-such-app.'),
    ]);
    const nothing = cli(['apps', 'unreview', '--domain', 'example.org']);
    expect([nothing.status, nothing.stderr]).toEqual([
      1,
      expect.stringContaining('example.org had no review'),
    ]);
  });
});
