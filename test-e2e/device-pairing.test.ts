/**
 * Device pairing (RFC 8628) through the edge: openid-client (unmodified) asks for a code and polls
 * while a person signs in, types the code in Chromium and allows it; the tokens work at the API and
 * refresh. Polling too fast is answered `slow_down`, before approval `authorization_pending`. Then the
 * guards against device-code phishing: off by default (nothing advertised, the grant unsupported), a
 * code taken by the first account that enters it, expired codes, one pending request per account
 * (a second replaces the first, whose device is denied), a flood of wrong codes refused, and where the
 * request came from shown with a warning when it is not the approver's network, by the address the edge
 * saw whatever forwarding headers the device sends. Under `all` any metadata document listing the grant
 * (VS Code's) gets a code, and only device codes that exist are paced.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SERVICES } from '../test-support/auth-server.js';
import { makeTestPki, startDocumentServer, type DocumentServer } from '../test-support/https-documents.js';
import { inspectPage, launchBrowser } from './support/browser.js';
import { createStaff, E2E_ADMIN, schoolAuth, startStack, type Stack } from './support/stack.js';
import {
  registerApp,
  enterCode as typeCode,
  signedInPairingPage as pairingPageSignedIn,
} from './support/edge-flows.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const insecure = { execute: [oidc.allowInsecureRequests] };

let stack: Stack;
let offStack: Stack;
let docs: DocumentServer;
let browser: Browser;
let redis: Redis;
let clientId: string;
let config: oidc.Configuration;
/** Stops openid-client's polling when a test fails before its pairing is approved. */
const stopPolling = new AbortController();

beforeAll(async () => {
  const pki = makeTestPki();
  docs = await startDocumentServer(pki);
  [stack, offStack, browser] = await Promise.all([
    startStack({
      DEVICE_PAIRING: 'all',
      CIMD_ALLOW_LOOPBACK: 'true',
      CIMD_EXTRA_CA_FILE: pki.caFile,
      DEVICE_CODE_MAX_WRONG_PER_ACCOUNT: '3',
      DEVICE_CODE_MAX_WRONG_PER_ADDRESS: '1000',
    }),
    startStack(),
    launchBrowser(),
  ]);
  redis = new Redis(SERVICES.redisUrl);
  const registered = await registerApp(stack, {
    client_name: 'e2e agent over SSH',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token', DEVICE_GRANT],
  });
  expect(registered.status).toBe(201);
  clientId = registered.clientId;
  config = await oidc.discovery(new URL(stack.baseUrl), clientId, undefined, oidc.None(), insecure);
}, 180_000);

afterAll(async () => {
  stopPolling.abort();
  await browser?.close();
  redis?.disconnect();
  await Promise.all([stack?.stop(), offStack?.stop()]);
  await docs?.close();
});

const signedInPairingPage = (who: { email: string; password: string }) =>
  pairingPageSignedIn(stack, browser, who);
const enterCode = (page: Page, code: string) => typeCode(stack, page, code);

/** A raw poll of the token endpoint for `deviceCode`. */
async function poll(deviceCode: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A device authorization of the agent for `school:read`, asked from `localAddress` with `extra` headers. */
async function pairingAskedFrom(localAddress: string, extra: Record<string, string> = {}) {
  const from = await oidc.discovery(new URL(stack.baseUrl), clientId, undefined, oidc.None(), insecure);
  from[oidc.customFetch] = fetchFrom(localAddress, extra);
  return oidc.initiateDeviceAuthorization(from, { scope: 'school:read' });
}

/**
 * A fetch for openid-client whose connections leave from `localAddress` (any 127/8 address is this
 * machine), adding `extra` headers to each request.
 */
function fetchFrom(localAddress: string, extra: Record<string, string> = {}) {
  return (url: string, init: RequestInit): Promise<Response> =>
    new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: init.method,
          headers: { ...Object.fromEntries(new Headers(init.headers)), ...extra },
          localAddress,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve(
              new Response(Buffer.concat(chunks), {
                status: res.statusCode,
                headers: res.headers as Record<string, string>,
              }),
            ),
          );
        },
      );
      req.on('error', reject);
      req.end(
        init.body instanceof URLSearchParams ? init.body.toString() : (init.body as string | undefined),
      );
    });
}

const api = (path: string, token: string) =>
  fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('device pairing is off by default', () => {
  it('advertises nothing, has no endpoint or page, and refuses the grant and its registration', async () => {
    const metadata = (await (
      await fetch(`${offStack.baseUrl}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.device_authorization_endpoint).toBeUndefined();
    expect(metadata.grant_types_supported).not.toContain(DEVICE_GRANT);

    const registered = await fetch(`${offStack.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'] }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const token = await fetch(`${offStack.baseUrl}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: 'x', client_id }),
    });
    expect(token.status).toBe(400);
    expect(await token.json()).toMatchObject({ error: 'unsupported_grant_type' });

    const endpoint = await fetch(`${offStack.baseUrl}/api/oauth/device/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id }),
    });
    expect(endpoint.status).toBe(404);
    expect((await fetch(`${offStack.baseUrl}/oauth/device`)).status).toBe(404);

    const registration = await fetch(`${offStack.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], grant_types: [DEVICE_GRANT] }),
    });
    expect(registration.status).toBe(400);
    expect(await registration.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});

describe('device pairing with DEVICE_PAIRING=all', () => {
  it('advertises the device authorization endpoint and the grant, and links the page from home', async () => {
    const metadata = config.serverMetadata();
    expect(metadata.device_authorization_endpoint).toBe(`${stack.baseUrl}/api/oauth/device/auth`);
    expect(metadata.grant_types_supported).toContain(DEVICE_GRANT);
    const home = await fetch(`${stack.baseUrl}/`, { headers: { accept: 'text/html' } });
    expect(await home.text()).toContain('href="/oauth/device"');
  });

  it('answers authorization_pending at the right pace and slow_down when polled faster', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    const first = await poll(started.device_code);
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    const tooSoon = await poll(started.device_code);
    expect([tooSoon.status, tooSoon.body.error]).toEqual([400, 'slow_down']);
    // The interval is now 10 seconds: a poll after it is pending again, not slowed down.
    await new Promise((done) => setTimeout(done, 10_500));
    const later = await poll(started.device_code);
    expect([later.status, later.body.error]).toEqual([400, 'authorization_pending']);
  }, 60_000);

  it('gives any metadata document that lists the grant a code, no operator needed (VS Code’s)', async () => {
    const published = JSON.parse(
      readFileSync(resolve(import.meta.dirname, 'fixtures/cimd/vscode.json'), 'utf8'),
    ) as Record<string, unknown>;
    const path = `/vscode-${Date.now()}/oauth/client-metadata.json`;
    const vscodeId = `https://127.0.0.1:${docs.port}${path}`;
    docs.json(path, { ...published, client_id: vscodeId });
    const vscode = await oidc.discovery(new URL(stack.baseUrl), vscodeId, undefined, oidc.None(), insecure);
    const started = await oidc.initiateDeviceAuthorization(vscode, { scope: 'school:read' });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    const listed = schoolAuth(stack, ['clients', 'cimd']) as unknown as {
      client_id: string;
      dropped?: { value: string }[];
    }[];
    expect(listed.find((c) => c.client_id === vscodeId)?.dropped?.map((d) => d.value)).not.toContain(
      DEVICE_GRANT,
    );
  });

  it('paces only device codes that exist: a made-up one leaves no key and goes on to the limit', async () => {
    const madeUp = `made-up-${Date.now()}`;
    const id = createHash('sha256').update(madeUp).digest('base64url');
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    for (let i = 0; i < 3; i++) {
      const answer = await poll(madeUp);
      expect([answer.status, answer.body.error]).toEqual([400, 'invalid_grant']);
    }
    expect(await redis.exists(`${prefix}devicePollInterval:${id}`, `${prefix}devicePolled:${id}`)).toBe(0);
  });

  it('pairs openid-client: the person signs in, types the code, allows; the tokens work and refresh', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, {
      scope: 'openid courses:read',
      resource: stack.baseUrl,
    });
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.expires_in).toBe(300); // codes live 5 minutes
    expect(started.verification_uri).toBe(`${stack.baseUrl}/oauth/device`);
    const polling = oidc.pollDeviceAuthorizationGrant(
      config,
      started,
      { resource: stack.baseUrl },
      {
        signal: stopPolling.signal,
      },
    );

    const page = await signedInPairingPage(E2E_ADMIN);
    // A link with the code in it opens the same empty form: the person types what the device shows.
    await page.goto(started.verification_uri_complete!);
    expect(await page.inputValue('input[name=user_code]')).toBe('');
    await inspectPage(page, 'device-pairing-enter');
    const shown = await enterCode(page, started.user_code.toLowerCase());
    expect(shown).toContain('Pair this device with your account?');
    expect(shown).toContain('e2e agent over SSH');
    expect(shown).toContain(clientId);
    expect(shown).toContain('Self-declared name');
    expect(shown).toMatch(/Asked from\s+127\.0\.0\.1 \(the same address as this browser\)/);
    expect(shown).toMatch(/Asked\s+(just now|\d+ seconds ago)/);
    expect(shown).not.toContain('did not come from the network you are on');
    await inspectPage(page, 'device-pairing-confirm');
    await page.check('input[value="courses:read"]');
    await page.click('button:has-text("Allow")');
    await page.waitForSelector('h1:has-text("Device paired")');

    const tokens = await polling;
    // Bound to the API (RFC 8707): it carries the API scope and the API's audience.
    expect(tokens.scope).toBe('courses:read');
    const introspected = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.access_token,
        client_id: stack.env.INTROSPECTION_CLIENT_ID ?? 'resource-api',
        client_secret: stack.env.INTROSPECTION_CLIENT_SECRET!,
      }),
    });
    expect(await introspected.json()).toMatchObject({
      active: true,
      aud: stack.baseUrl,
      scope: 'courses:read',
    });
    expect((await api('/api/v1/courses', tokens.access_token)).status).toBe(200);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, {
      resource: stack.baseUrl,
    });
    expect((await api('/api/v1/courses', refreshed.access_token)).status).toBe(200);
    // Activity lists the pairing's steps for the school's admins.
    for (const [event, words] of [
      ['device_pairing_requested', 'A device asked to be paired'],
      ['device_pairing_shown', 'A device pairing code was entered'],
      ['device_pairing_approved', 'A device was paired'],
    ]) {
      await page.goto(`${stack.baseUrl}/oauth/account/activity?event=${event}`);
      expect(await page.locator('main').innerText()).toContain(words);
    }
    // The code is spent: polling it again gets nothing more.
    await new Promise((done) => setTimeout(done, 5_000));
    expect((await poll(started.device_code)).body.error).toBe('invalid_grant');
  }, 120_000);

  it('binds the tokens to the key of a DPoP proof sent with the polls', async () => {
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const started = await oidc.initiateDeviceAuthorization(config, {
      scope: 'courses:read',
      resource: stack.baseUrl,
    });
    const polling = oidc.pollDeviceAuthorizationGrant(
      config,
      started,
      { resource: stack.baseUrl },
      { DPoP: dpop, signal: stopPolling.signal },
    );
    const page = await signedInPairingPage(E2E_ADMIN);
    await enterCode(page, started.user_code);
    await page.click('button:has-text("Allow")');
    await page.waitForSelector('h1:has-text("Device paired")');
    const tokens = await polling.catch((err: { error?: string; error_description?: string }) => {
      throw new Error(`${err.error}: ${err.error_description}`);
    });
    expect(tokens.token_type).toBe('dpop');
    const courses = new URL(`${stack.baseUrl}/api/v1/courses`);
    const bound = await oidc.fetchProtectedResource(
      config,
      tokens.access_token,
      courses,
      'GET',
      null,
      undefined,
      {
        DPoP: dpop,
      },
    );
    expect(bound.status).toBe(200);
    // The same token without the key's proof is refused.
    expect((await api('/api/v1/courses', tokens.access_token)).status).toBe(401);
  }, 60_000);

  it('warns in plain words when the request came from another network', async () => {
    // The device asks from 127.1.2.3, another /24 than the browser's 127.0.0.1.
    const started = await pairingAskedFrom('127.1.2.3');
    const page = await signedInPairingPage(E2E_ADMIN);
    const shown = await enterCode(page, started.user_code);
    expect(shown).toContain('This request did not come from the network you are on now.');
    expect(shown).toContain('127.1.2.3');
    await inspectPage(page, 'device-pairing-elsewhere');
    await page.click('button:has-text("Deny")');
    await page.waitForSelector('h1:has-text("Pairing denied")');
    await new Promise((done) => setTimeout(done, 5_000));
    expect((await poll(started.device_code)).body.error).toBe('access_denied');
    await page.goto(`${stack.baseUrl}/oauth/account/activity?event=device_pairing_denied`);
    expect(await page.locator('main').innerText()).toContain('A device pairing was denied');
  }, 60_000);

  it('shows the address the edge saw, never one the device claims in its headers', async () => {
    // Another loopback address of the browser's /24: shown as the same network, by its own address.
    const nearby = await pairingAskedFrom('127.0.0.3');
    const page = await signedInPairingPage(E2E_ADMIN);
    expect(await enterCode(page, nearby.user_code)).toMatch(
      /Asked from\s+127\.0\.0\.3 \(the same network as this browser\)/,
    );

    // A device elsewhere claims the browser's address in every header a proxy might read, and names
    // itself as the school's laptop: the page shows the address the edge saw, warns, and shows the
    // program's name as its own claim.
    const spoofed = await pairingAskedFrom('127.1.2.3', {
      'x-forwarded-for': '127.0.0.1',
      'x-real-ip': '127.0.0.1',
      forwarded: 'for=127.0.0.1',
      'user-agent': '<b>School laptop</b>',
    });
    const shown = await enterCode(page, spoofed.user_code);
    expect(shown).toMatch(/Asked from\s+127\.1\.2\.3\s/);
    expect(shown).toContain('This request did not come from the network you are on now.');
    expect(shown).toContain('Program (as it names itself)');
    expect(await page.locator('dd bdi', { hasText: 'School laptop' }).innerText()).toBe(
      '<b>School laptop</b>',
    );
    // Entering the second code replaced the first pending one.
    expect((await poll(nearby.device_code)).body.error).toBe('access_denied');
    await page.click('button:has-text("Deny")');
    await page.waitForSelector('h1:has-text("Pairing denied")');
  }, 60_000);

  it('keeps a code with the first account that entered it', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    const admin = await signedInPairingPage(E2E_ADMIN);
    expect(await enterCode(admin, started.user_code)).toContain('Pair this device with your account?');
    const other = await signedInPairingPage(createStaff(stack, 'Otto Other'));
    const refused = await enterCode(other, started.user_code);
    expect(refused).toContain('That code was entered by another account.');
    // Nor can the other account approve it by posting the form itself.
    const csrf = await other.locator('input[name=csrf]').getAttribute('value');
    const approve = await other.request.post(`${stack.baseUrl}/oauth/device`, {
      form: {
        csrf: csrf!,
        step: 'approve',
        user_code: started.user_code,
        scope: 'school:read',
        duration: 'hour',
      },
      headers: { origin: stack.baseUrl },
    });
    expect(approve.status()).toBe(403);
    expect((await poll(started.device_code)).body.error).toBe('authorization_pending');
  }, 60_000);

  it('refuses an expired code', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    // Five minutes pass: the stored code's expiry is moved into the past.
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    const id = await redis.get(`${prefix}userCode:${started.user_code.replace('-', '')}`);
    const key = `${prefix}DeviceCode:{${id!.slice(0, 12)}}${id!.slice(12)}`;
    const payload = JSON.parse((await redis.hget(key, 'p'))!) as { exp: number };
    await redis.hset(key, 'p', JSON.stringify({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 }));
    const page = await signedInPairingPage(E2E_ADMIN);
    expect(await enterCode(page, started.user_code)).toContain('That code has expired');
    expect((await poll(started.device_code)).body.error).toBe('expired_token');
    await page.goto(`${stack.baseUrl}/oauth/account/activity?event=device_pairing_expired`);
    expect(await page.locator('main').innerText()).toContain('A device pairing code expired');
  }, 60_000);

  it('replaces an account’s pending request with its second: the first device is denied', async () => {
    const first = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    const second = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    const page = await signedInPairingPage(E2E_ADMIN);
    expect(await enterCode(page, first.user_code)).toContain('Pair this device with your account?');
    expect(await enterCode(page, second.user_code)).toContain('Pair this device with your account?');
    expect((await poll(first.device_code)).body.error).toBe('access_denied');
    expect((await poll(second.device_code)).body.error).toBe('authorization_pending');
    // The first code cannot come back.
    expect(await enterCode(page, first.user_code)).toContain('That code was already used');
  }, 60_000);

  it('refuses a flood of wrong codes, then even the right one, for that account only', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'school:read' });
    const flooder = await signedInPairingPage(createStaff(stack, 'Fay Flood'));
    for (const wrong of ['BBBB-BBBB', 'CCCC-CCCC', 'DDDD-DDDD'])
      expect(await enterCode(flooder, wrong)).toContain('That code is not right.');
    expect(await enterCode(flooder, started.user_code)).toContain('Too many wrong codes.');
    // Another account (same address, whose allowance is larger) still pairs.
    const admin = await signedInPairingPage(E2E_ADMIN);
    expect(await enterCode(admin, started.user_code)).toContain('Pair this device with your account?');
  }, 60_000);

  it('asks an account with a passkey to sign in with it before it may enter a code', async () => {
    const email = `pia-${Date.now()}@e2e.test`;
    const made = schoolAuth(stack, ['accounts', 'create-staff', '--email', email, '--name', 'Pia Passkey']);
    // The account has a passkey (stored as Your account stores one); it signs in with its password.
    const mongo = await mongoose.createConnection(stack.env.MONGODB_URI!).asPromise();
    try {
      await mongo.collection('passkeys').insertOne({
        _id: 'e2e-passkey-credential' as never,
        accountId: made.account_id!,
        publicKey: 'AQID',
        counter: 0,
        transports: [],
        name: 'Laptop',
        createdAt: new Date(),
      });
    } finally {
      await mongo.close();
    }
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${stack.baseUrl}/oauth/device`);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', made.password!);
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Sign in with your passkey first")');
    expect(await page.locator('input[name=user_code]').count()).toBe(0);
    await inspectPage(page, 'device-pairing-passkey-first');
    // Nor can the form be posted around the page.
    const posted = await page.request.post(`${stack.baseUrl}/oauth/device`, {
      form: { csrf: 'x', step: 'enter', user_code: 'BBBB-BBBB' },
      headers: { origin: stack.baseUrl },
    });
    expect(posted.status()).toBe(403);
  }, 60_000);
});
