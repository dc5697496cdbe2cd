/**
 * Consent that grants only what the admin chooses, end to end in headless Chromium through the edge:
 * a self-declared app's write scope starts unticked and, left so, is missing from the token response
 * and refused by the API; "one hour" ends the grant (its end moved into the past in Redis, never
 * waited for), after which refresh is invalid_grant and introspection inactive; Deny lands on the
 * app's redirect URI at once; Connected apps shows the client id, the scopes used beside those
 * granted and the end of access, and "Drop unused scopes" narrows the grant. A repeat or step-up
 * consent (same session, and signed in again elsewhere) preselects the end the access has, says so,
 * and keeps it; a scope refused before stays unticked and is marked. axe-core finds no violation on
 * the consent pages and Connected apps at 1280 and 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { accountGrants } from '../packages/auth-server/src/storage/account-grants.js';
import { modelKey } from '../packages/auth-server/src/storage/redis-keys.js';
import type { LoopbackListener } from './support/browser.js';
import { expectNoAxeViolations, inspectPage, loopbackListener } from './support/browser.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { edgeToken, openConsent, redeemCode } from './support/edge-flows.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;
let redis: Redis;

afterAll(() => redis?.disconnect());
stackAndBrowserForFile(
  (started, launched) => {
    [stack, browser] = [started, launched];
    redis = new Redis(stack.env.REDIS_URL!);
  },
  { SCHOOL_TERM_ENDS: '2099-07-16' },
);

interface Flow {
  listener: LoopbackListener;
  clientId: string;
  verifier: string;
  page: Page;
}

/** Registers a self-declared app with `redirectUris`; its client id. */
async function register(name: string, redirectUris: string[]): Promise<string> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }),
  });
  return ((await res.json()) as { client_id: string }).client_id;
}

/** Registers a self-declared app and opens its authorization in `context`, signing in when asked. */
async function startFlow(context: BrowserContext, name: string, scope: string): Promise<Flow> {
  const listener = await loopbackListener();
  return openFlow(context, await register(name, [listener.redirectUri]), listener, scope);
}

/** Opens an authorization of `clientId` back to `listener` in `context`, signing in when asked. */
async function openFlow(
  context: BrowserContext,
  clientId: string,
  listener: LoopbackListener,
  scope: string,
): Promise<Flow> {
  const page = await context.newPage();
  const who = E2E_ADMIN;
  const verifier = await openConsent(stack, page, { clientId, listener, scope, state: 'consent-e2e', who });
  return { listener, clientId, verifier, page };
}

interface TokenResponse {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** Clicks Allow and redeems the code the app's listener receives. */
async function allowAndRedeem(flow: Flow): Promise<TokenResponse> {
  await flow.page.click('button:has-text("Allow")');
  const { clientId, verifier } = flow;
  const res = await redeemCode(stack, flow.listener, {
    clientId,
    verifier,
    extra: { resource: stack.baseUrl },
  });
  expect([res.status, res.body.error, res.body.error_description]).toEqual([200, undefined, undefined]);
  return res.body as unknown as TokenResponse;
}

const token = (form: Record<string, string>) => edgeToken(stack, form);

/** A refresh of `refreshToken` by the public client `clientId`, for the API. */
const refresh = (refreshToken: string, clientId: string) =>
  token({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
    resource: stack.baseUrl,
  });

async function introspect(accessToken: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token: accessToken,
      client_id: 'resource-api',
      client_secret: stack.env.INTROSPECTION_CLIENT_SECRET!,
    }),
  });
  return (await res.json()) as Record<string, unknown>;
}

async function api(path: string, accessToken: string, method = 'GET'): Promise<number> {
  const res = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : '{}',
  });
  await res.arrayBuffer();
  return res.status;
}

describe('consent that grants only what the admin chooses', () => {
  let context: BrowserContext;
  const flows: Flow[] = [];
  beforeAll(async () => {
    context = await browser.newContext();
  });
  afterAll(async () => {
    await context?.close();
    for (const f of flows) await f.listener.close();
  });

  it('starts a self-declared app’s write scope unticked; left so, the token lacks it and the API refuses it', async () => {
    const flow = await startFlow(context, 'Unticked Agent', 'openid courses:read coupons:write');
    flows.push(flow);
    expect(await flow.page.isChecked('input[name=scope][value="courses:read"]')).toBe(true);
    expect(await flow.page.isChecked('input[name=scope][value="coupons:write"]')).toBe(false);
    expect(await flow.page.isChecked('input[name=duration][value="revoked"]')).toBe(true);
    expect(await flow.page.locator('input[name=duration][value="term"]').count()).toBe(1);
    await inspectPage(flow.page, 'consent-choices');
    await expectNoAxeViolations(flow.page);
    const tokens = await allowAndRedeem(flow);
    expect(tokens.scope).toBe('courses:read');
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(200);
    expect(await api('/api/v1/coupons', tokens.access_token, 'POST')).toBe(403);
  });

  it('one hour: after the grant’s end, refresh is invalid_grant and introspection inactive', async () => {
    const flow = await startFlow(context, 'One Hour Agent', 'courses:read');
    flows.push(flow);
    await flow.page.check('input[name=duration][value="hour"]');
    const tokens = await allowAndRedeem(flow);
    expect((await introspect(tokens.access_token)).active).toBe(true);
    // The hour passes: the grant's end is moved into the past where it is stored.
    const sub = (await introspect(tokens.access_token)).sub as string;
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    const [held] = (await accountGrants(redis, prefix, sub)).filter((g) => g.clientId === flow.clientId);
    const key = modelKey(prefix, 'Grant', held!.grantId);
    const stored = JSON.parse((await redis.get(key))!) as Record<string, unknown>;
    await redis.set(key, JSON.stringify({ ...stored, exp: Math.floor(Date.now() / 1000) - 1 }), 'KEEPTTL');
    const refreshed = await refresh(tokens.refresh_token, flow.clientId);
    expect([refreshed.status, refreshed.body.error]).toEqual([400, 'invalid_grant']);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    const apps = await context.newPage();
    await apps.goto(`${stack.baseUrl}/oauth/account/apps`);
    expect(await apps.locator('section.card', { hasText: flow.clientId }).count()).toBe(0);
    await apps.close();
  });

  it('Deny sends the browser straight to the app’s redirect URI with error=access_denied', async () => {
    const flow = await startFlow(context, 'Denied Agent', 'courses:read');
    flows.push(flow);
    await flow.page.click('button:has-text("Deny")');
    const callback = await flow.listener.received;
    expect(callback.searchParams.get('error')).toBe('access_denied');
    await flow.page.waitForURL(`${flow.listener.redirectUri}**`);
    expect(await flow.page.innerText('body')).toContain('You can close this window.');
  });

  it('shows on Connected apps the client id, the scopes used beside those granted and the end, and drops the unused', async () => {
    const flow = await startFlow(context, 'Busy Agent', 'courses:read school:read coupons:write');
    flows.push(flow);
    await flow.page.check('input[name=scope][value="coupons:write"]');
    const tokens = await allowAndRedeem(flow);
    expect(tokens.scope.split(' ').sort()).toEqual(['coupons:write', 'courses:read', 'school:read']);
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(200);

    const page = await context.newPage();
    const card = page.locator('section.card', { hasText: flow.clientId });
    const courses = card.locator('tr', { hasText: 'courses:read' });
    // The API reports the use without waiting for it: look again until the auth server has it.
    for (let i = 0; i < 50; i++) {
      await page.goto(`${stack.baseUrl}/oauth/account/apps`);
      if ((await courses.innerText()).match(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/)) break;
      await page.waitForTimeout(100);
    }
    expect(await courses.innerText()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(await card.locator('tr', { hasText: 'school:read' }).innerText()).toContain('Not used yet');
    expect(await card.locator('tr', { hasText: 'coupons:write' }).innerText()).toContain('Not used yet');
    const facts = await card.locator('dl.facts').innerText();
    expect(facts).toContain(flow.clientId);
    expect(facts).toMatch(/Access ends\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await inspectPage(page, 'connected-apps-scopes');
    await expectNoAxeViolations(page);

    await card.locator('button:has-text("Drop unused scopes")').click();
    await page.waitForSelector('text=no longer has');
    // The header row, the heading row of courses:read's data category, and courses:read.
    expect(await card.locator('tr').count()).toBe(3);
    expect(await card.locator('tr.category').innerText()).toBe('School content');
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(401);
    const refreshed = await refresh(tokens.refresh_token, flow.clientId);
    expect([refreshed.status, refreshed.body.scope]).toEqual([200, 'courses:read']);
    await page.close();
  });
});

describe('a repeat or step-up consent', () => {
  const listeners: LoopbackListener[] = [];
  const contexts: BrowserContext[] = [];
  afterAll(async () => {
    for (const c of contexts) await c.close();
    for (const l of listeners) await l.close();
  });

  /** The ends of the grants the admin holds for `clientId`, as stored. */
  async function storedEnds(accessToken: string, clientId: string): Promise<number[]> {
    const sub = (await introspect(accessToken)).sub as string;
    const prefix = stack.env.REDIS_KEY_PREFIX!;
    const held = (await accountGrants(redis, prefix, sub)).filter((g) => g.clientId === clientId);
    const ends: number[] = [];
    for (const g of held) {
      const stored = JSON.parse((await redis.get(modelKey(prefix, 'Grant', g.grantId)))!) as { exp: number };
      ends.push(stored.exp);
    }
    return ends;
  }

  /** The page keeps `end` (Unix seconds, shown in the stack's zone, UTC) preselected and says so. */
  async function expectEndKept(page: Page, end: number): Promise<void> {
    const shown = new Date((end - 1) * 1000).toISOString(); // the last second of access
    const [year, time] = [shown.slice(0, 4), shown.slice(11, 16)];
    expect(await page.locator('fieldset.durations p.current-end').count()).toBe(1);
    const current = await page.locator('fieldset.durations p.current-end').innerText();
    expect(current).toContain('Access currently ends');
    expect(current).toContain(year);
    expect(current).toContain(time);
    expect(await page.isChecked('input[name=duration][value="current"]')).toBe(true);
    expect(await page.isChecked('input[name=duration][value="revoked"]')).toBe(false);
    const longest = await page
      .locator('fieldset.durations li', { hasText: 'Until I take it back' })
      .innerText();
    expect(longest).toContain('extends all of its access');
  }

  /** The scope's checkbox is unticked and its line says it was refused before. */
  async function expectRefusedBefore(page: Page, scope: string): Promise<void> {
    expect(await page.isChecked(`input[name=scope][value="${scope}"]`)).toBe(false);
    const line = await page.locator('ul.choices li', { hasText: scope }).innerText();
    expect(line).toContain('You refused this before');
  }

  it('keeps a one-hour end and a refused scope when the app asks for one more, also after signing in again', async () => {
    for (let i = 0; i < 3; i++) listeners.push(await loopbackListener());
    const clientId = await register(
      'Step-up Agent',
      listeners.map((l) => l.redirectUri),
    );
    const context = await browser.newContext();
    contexts.push(context);

    // First consent: courses:read for one hour, school:read refused.
    const first = await openFlow(context, clientId, listeners[0]!, 'courses:read school:read');
    expect(await first.page.locator('fieldset.durations p.current-end').count()).toBe(0);
    await first.page.uncheck('input[name=scope][value="school:read"]');
    await first.page.check('input[name=duration][value="hour"]');
    const firstTokens = await allowAndRedeem(first);
    expect(firstTokens.scope).toBe('courses:read');
    const [end] = await storedEnds(firstTokens.access_token, clientId);
    expect(end).toBeDefined();

    // Same session, one more scope: the hour is kept, school:read stays unticked and is marked.
    const second = await openFlow(context, clientId, listeners[1]!, 'courses:read school:read events:read');
    await expectEndKept(second.page, end!);
    await expectRefusedBefore(second.page, 'school:read');
    expect(await second.page.isChecked('input[name=scope][value="events:read"]')).toBe(true);
    expect(await second.page.locator('ul.choices li', { hasText: 'events:read' }).innerText()).not.toContain(
      'refused',
    );
    await inspectPage(second.page, 'consent-step-up');
    await expectNoAxeViolations(second.page);
    const secondTokens = await allowAndRedeem(second);
    expect(secondTokens.scope.split(' ').sort()).toEqual(['courses:read', 'events:read']);
    expect(await storedEnds(secondTokens.access_token, clientId)).toEqual([end]);

    // Signed in again elsewhere, one more scope (the held grant is carried over): the same end and refusal.
    const elsewhere = await browser.newContext();
    contexts.push(elsewhere);
    const third = await openFlow(elsewhere, clientId, listeners[2]!, 'courses:read school:read posts:read');
    await expectEndKept(third.page, end!);
    await expectRefusedBefore(third.page, 'school:read');
    const thirdTokens = await allowAndRedeem(third);
    expect(thirdTokens.scope.split(' ').sort()).toEqual(['courses:read', 'posts:read']);
    expect(await storedEnds(thirdTokens.access_token, clientId)).toEqual([end, end]);
  }, 90_000);
});
