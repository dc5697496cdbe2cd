/**
 * Device pairing with DEVICE_PAIRING=integrations, through the edge: VS Code's published metadata
 * document (test-e2e/fixtures/cimd/vscode.json, served from a local HTTPS host) lists the device_code
 * grant type; the client gets it only once an operator allows its client_id, and then openid-client's
 * device functions (unmodified) pair it. An account with a passkey signs in with it (Chromium's virtual
 * authenticator) before it may enter a code, and then pairs. Wrong codes are limited per address too:
 * accounts that each stay within their own allowance are refused together once their address has
 * spent its allowance.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { makeTestPki, startDocumentServer, type DocumentServer } from '../test-support/https-documents.js';
import { inspectPage, launchBrowser } from './support/browser.js';
import { addFirstPasskey, auditEvents, openYourAccount, virtualDevice } from './support/passkey-browser.js';
import { createStaff, E2E_ADMIN, schoolAuth, startStack, type Stack } from './support/stack.js';
import { enterCode as typeCode, signedInPairingPage as pairingPageSignedIn } from './support/edge-flows.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let stack: Stack;
let browser: Browser;
let docs: DocumentServer;
/** VS Code's client id: its document's URL on the local HTTPS host. */
let vscodeId: string;
/** Stops openid-client's polling when a test fails before its pairing is approved. */
const stopPolling = new AbortController();

beforeAll(async () => {
  const pki = makeTestPki();
  docs = await startDocumentServer(pki);
  [stack, browser] = await Promise.all([
    // `localhost`: WebAuthn refuses an IP address as the relying party.
    startStack(
      {
        DEVICE_PAIRING: 'integrations',
        CIMD_ALLOW_LOOPBACK: 'true',
        CIMD_EXTRA_CA_FILE: pki.caFile,
        DEVICE_CODE_MAX_WRONG_PER_ACCOUNT: '3',
        DEVICE_CODE_MAX_WRONG_PER_ADDRESS: '4',
      },
      'http',
      {},
      'localhost',
    ),
    launchBrowser(),
  ]);
  // VS Code's document as published, at a path of this file's own on the local HTTPS host.
  const published = JSON.parse(
    readFileSync(resolve(import.meta.dirname, 'fixtures/cimd/vscode.json'), 'utf8'),
  ) as Record<string, unknown>;
  const path = `/vscode-${randomBytes(4).toString('hex')}/oauth/client-metadata.json`;
  vscodeId = `https://127.0.0.1:${docs.port}${path}`;
  docs.json(path, { ...published, client_id: vscodeId }, { 'cache-control': 'max-age=900' });
}, 120_000);

afterAll(async () => {
  stopPolling.abort();
  await browser?.close();
  await stack?.stop();
  await docs?.close();
});

/**
 * openid-client's configuration for VS Code: the server's public name is `localhost` (for the
 * browser), so its requests are sent to the edge's loopback address instead of resolving the name.
 */
async function vscode(): Promise<oidc.Configuration> {
  const toEdge = (url: string, init: RequestInit) => {
    const target = new URL(url);
    if (`${target.protocol}//${target.host}` === stack.baseUrl)
      return fetch(`${stack.edgeUrl}${target.pathname}${target.search}`, init);
    return fetch(url, init);
  };
  return oidc.discovery(new URL(stack.baseUrl), vscodeId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
    [oidc.customFetch]: toEdge,
  });
}

const signedInPairingPage = (who: { email: string; password: string }) =>
  pairingPageSignedIn(stack, browser, who);
const enterCode = (page: Page, code: string) => typeCode(stack, page, code);

const api = (token: string) =>
  fetch(`${stack.edgeUrl}/api/v1/courses`, { headers: { authorization: `Bearer ${token}` } });

describe('a metadata-document client under DEVICE_PAIRING=integrations', () => {
  it('is refused the grant until an operator allows its client_id, and the operator sees why', async () => {
    const config = await vscode();
    expect(config.serverMetadata().device_authorization_endpoint).toBe(
      `${stack.baseUrl}/api/oauth/device/auth`,
    );
    const refused = await oidc
      .initiateDeviceAuthorization(config, { scope: 'school:read' })
      .then(() => undefined)
      .catch((err: { error?: string; error_description?: string }) => err);
    expect(refused).toMatchObject({
      error: 'invalid_request',
      error_description: `${DEVICE_GRANT} is not allowed for this client`,
    });
    const listed = schoolAuth(stack, ['clients', 'cimd']) as unknown as {
      client_id: string;
      dropped?: { member: string; value: string; why: string }[];
    }[];
    expect(listed.find((c) => c.client_id === vscodeId)?.dropped).toContainEqual({
      member: 'grant_types',
      value: DEVICE_GRANT,
      why: 'device pairing needs an operator to allow this client_id (school-auth clients allow-cimd)',
    });
  });

  it('pairs VS Code with openid-client once allowed: code, sign-in, Allow, tokens that work and refresh', async () => {
    schoolAuth(stack, ['clients', 'allow-cimd', vscodeId]);
    const config = await vscode();
    const started = await oidc.initiateDeviceAuthorization(config, {
      scope: 'openid courses:read',
      resource: stack.baseUrl,
    });
    expect(started.verification_uri).toBe(`${stack.baseUrl}/oauth/device`);
    const polling = oidc.pollDeviceAuthorizationGrant(
      config,
      started,
      { resource: stack.baseUrl },
      { signal: stopPolling.signal },
    );
    polling.catch(() => undefined); // stopped after a failure: its rejection is not the test's
    const page = await signedInPairingPage(E2E_ADMIN);
    const shown = await enterCode(page, started.user_code);
    expect(shown).toContain('Visual Studio Code');
    expect(shown).toContain(vscodeId);
    await page.check('input[value="courses:read"]');
    await page.click('button:has-text("Allow")');
    await page.waitForSelector('h1:has-text("Device paired")');

    const tokens = await polling;
    expect(tokens.scope).toBe('courses:read');
    expect((await api(tokens.access_token)).status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, {
      resource: stack.baseUrl,
    });
    expect((await api(refreshed.access_token)).status).toBe(200);
    await page.context().close();
  }, 120_000);
});

describe('an account with a passkey', () => {
  it('signs in with the passkey, then enters the code and pairs', async () => {
    const staff = createStaff(stack, 'Pat Passkey');
    // The staff member adds a passkey on Your account (the password typed again first).
    const laptop = await virtualDevice(browser);
    await openYourAccount(stack, laptop.page, staff);
    await addFirstPasskey(laptop.page, staff.password, 'Laptop');
    await laptop.page.click('button:has-text("Sign out")').catch(() => undefined);
    await laptop.context.clearCookies();

    schoolAuth(stack, ['clients', 'allow-cimd', vscodeId]);
    const config = await vscode();
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'courses:read' });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started, undefined, {
      signal: stopPolling.signal,
    });
    polling.catch(() => undefined); // stopped after a failure: its rejection is not the test's
    // A password sign-in on the pairing page is sent to the passkey first.
    const page = laptop.page;
    await page.goto(`${stack.baseUrl}/oauth/device`);
    await page.fill('input[name=email]', staff.email);
    await page.fill('input[name=password]', staff.password);
    await page.click('button:text-is("Sign in")');
    // The first sign-in after a passkey was added with only the password tells of it on Your account.
    await page.waitForURL(/\/oauth\/account\/account$/);
    await page.goto(`${stack.baseUrl}/oauth/device`);
    await page.waitForSelector('h1:has-text("Sign in with your passkey first")');
    expect(await page.locator('input[name=user_code]').count()).toBe(0);
    await page.click('a:has-text("Sign in with your passkey")');
    await page.click('button:has-text("Sign in with a passkey")');
    await page.waitForSelector('h1:has-text("Pair a device")');
    await inspectPage(page, 'device-pairing-after-passkey');
    expect(await enterCode(page, started.user_code)).toContain('Pair this device with your account?');
    await page.click('button:has-text("Allow")');
    await page.waitForSelector('h1:has-text("Device paired")');

    const tokens = await polling;
    expect(tokens.scope).toBe('courses:read');
    expect((await api(tokens.access_token)).status).toBe(200);
    const signedIn = await auditEvents(stack, 'login_succeeded', 2);
    expect(signedIn.map((e) => (e.details as { method?: string } | undefined)?.method)).toContain('passkey');
    const approved = await auditEvents(stack, 'device_pairing_approved', 2);
    expect(approved.at(-1)).toMatchObject({ clientId: vscodeId });
    await laptop.context.close();
  }, 120_000);
});

describe('wrong codes from one address', () => {
  it('refuse every account there once the address has spent its allowance', async () => {
    // Three wrong codes: this account's allowance, and three of the address's four.
    const first = await signedInPairingPage(createStaff(stack, 'Wren Wrong'));
    for (const wrong of ['BBBB-BBBB', 'CCCC-CCCC', 'DDDD-DDDD'])
      expect(await enterCode(first, wrong)).toContain('That code is not right.');
    expect(await enterCode(first, 'FFFF-FFFF')).toContain('Too many wrong codes.');
    // Another account from the same address: one wrong code, then the address is spent.
    const second = await signedInPairingPage(createStaff(stack, 'Sam Second'));
    expect(await enterCode(second, 'GGGG-GGGG')).toContain('That code is not right.');
    expect(await enterCode(second, 'HHHH-HHHH')).toContain('Too many wrong codes.');
    const refused = await auditEvents(stack, 'rate_limited', 2);
    expect(refused.map((e) => (e.details as { reason?: string }).reason)).toContain(
      'wrong device pairing codes',
    );
  }, 120_000);
});
