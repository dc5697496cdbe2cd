/**
 * Least privilege by default, end to end through the edge, with the admin in Chromium and the MCP
 * TypeScript client 2.x (`@modelcontextprotocol/client`), unmodified: its first connection asks only
 * for the protected-resource metadata's baseline; a write is refused with a 403 whose challenge names
 * the write scope; the client steps up exactly as its HTTP transport does on `insufficient_scope`
 * (`computeScopeUnion` of what it holds and what the challenge names, `isStrictScopeSuperset` to
 * force a new authorization, then `auth()`); the admin, still signed in, sees a consent page asking
 * only for the new scope; the new token carries the union and the write works.
 *
 * The resource API is not an MCP server, so the transport itself cannot be pointed at it; its step-up
 * is the sequence of the client's exported functions this test calls.
 */
import { describe, expect, it } from '@jest/globals';
import {
  auth,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  isStrictScopeSuperset,
} from '@modelcontextprotocol/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { inspectPage, loopbackListener, tickEveryScope, type LoopbackListener } from './support/browser.js';
import { ClientAgent } from './support/mcp-agent.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

/** The consent page as the admin reads it: its text and the scope names it lists. */
async function readConsent(page: Page): Promise<{ text: string; listed: string[] }> {
  await page.waitForSelector('button:has-text("Allow")', { timeout: 10_000 }).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${page.url()}\n${await page.locator('body').innerText()}`);
  });
  return {
    text: await page.locator('main, body').first().innerText(),
    listed: await page.locator('ul.scopes code').allInnerTexts(),
  };
}

/** The admin answers the authorization in `context` (signing in when asked); resolves with the consent page and the callback. */
async function approve(context: BrowserContext, url: URL, listener: LoopbackListener, name: string) {
  const page = await context.newPage();
  try {
    await page.goto(url.href);
    if (await page.locator('input[name=password]').count()) {
      await page.fill('input[name=email]', E2E_ADMIN.email);
      await page.fill('input[name=password]', E2E_ADMIN.password);
      await page.click('button[type=submit]');
    }
    const consent = await readConsent(page);
    await inspectPage(page, name);
    await tickEveryScope(page);
    await page.click('button:has-text("Allow")');
    return { consent, callback: await listener.received };
  } finally {
    await page.close();
  }
}

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${stack.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });

async function introspectedScopes(token: string): Promise<string[]> {
  const res = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      token,
      client_id: 'resource-api',
      client_secret: stack.env.INTROSPECTION_CLIENT_SECRET!,
    }),
  });
  const body = (await res.json()) as { active: boolean; scope?: string };
  expect(body.active).toBe(true);
  return (body.scope ?? '').split(' ').sort();
}

describe('an MCP client 2.x starting from the baseline and stepping up, through the edge', () => {
  it('asks for the baseline, meets a 403 naming courses:write, steps up, and the admin approves only that', async () => {
    const agent = new ClientAgent('e2e step-up agent'); // a new listener for each authorization
    const context = await browser.newContext(); // the admin's browser, signed in for both approvals
    const listeners: LoopbackListener[] = [];
    const listen = async () => {
      agent.listener = await loopbackListener();
      listeners.push(agent.listener);
      return agent.listener;
    };
    try {
      const serverUrl = `${stack.baseUrl}/api/v1/courses`;

      // First connection: no challenge yet, so the client asks for what the metadata lists.
      const first = await listen();
      expect(await auth(agent, { serverUrl })).toBe('REDIRECT');
      expect(agent.authorizationUrl!.searchParams.get('scope')).toBe('school:read account:read');
      const one = await approve(context, agent.authorizationUrl!, first, 'consent-baseline');
      expect(one.consent.listed).toEqual(['school:read', 'account:read']);
      expect(one.consent.text).toContain('It will be able to');
      expect(one.consent.text).not.toContain('Changes data');
      const code = one.callback.searchParams.get('code')!;
      const iss = one.callback.searchParams.get('iss')!;
      expect(await auth(agent, { serverUrl, authorizationCode: code, iss })).toBe('AUTHORIZED');
      const baseline = agent.tokens()!;
      expect((await api('/api/v1/school', baseline.access_token)).status).toBe(200);

      // A write: refused, and the challenge names the scope it needs.
      const course = JSON.stringify({ title: 'Step-up Sourdough' });
      const refused = await api('/api/v1/courses', baseline.access_token, { method: 'POST', body: course });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ error: 'insufficient_scope' });
      const challenge = extractWWWAuthenticateParams(refused);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", /);
      expect(challenge.scope).toBe('courses:write');
      expect(String(challenge.resourceMetadataUrl)).toBe(
        `${stack.baseUrl}/.well-known/oauth-protected-resource`,
      );

      // Step-up, as the client's transport does it on 403 insufficient_scope.
      const union = computeScopeUnion(baseline.scope, challenge.scope);
      expect(union).toBe('school:read account:read courses:write');
      const forceReauthorization = isStrictScopeSuperset(union, baseline.scope);
      expect(forceReauthorization).toBe(true);
      const second = await listen();
      const stepUp = {
        serverUrl,
        resourceMetadataUrl: challenge.resourceMetadataUrl,
        scope: union,
        forceReauthorization,
      };
      expect(await auth(agent, stepUp)).toBe('REDIRECT');
      expect(agent.authorizationUrl!.searchParams.get('scope')).toBe(union);
      const two = await approve(context, agent.authorizationUrl!, second, 'consent-step-up');
      expect(two.consent.listed).toEqual(['courses:write']);
      expect(two.consent.text).toContain('Besides what you allowed before, it will also be able to');
      expect(two.consent.text).toContain('Create, change and delete your school’s courses');
      expect(
        await auth(agent, {
          ...stepUp,
          authorizationCode: two.callback.searchParams.get('code')!,
          iss: two.callback.searchParams.get('iss')!,
        }),
      ).toBe('AUTHORIZED');

      // The new token carries the union: the write works, and so does everything allowed before.
      const stepped = agent.tokens()!;
      expect(stepped.access_token).not.toBe(baseline.access_token);
      expect(await introspectedScopes(stepped.access_token)).toEqual(union!.split(' ').sort());
      const created = await api('/api/v1/courses', stepped.access_token, { method: 'POST', body: course });
      expect(created.status).toBe(201);
      expect((await api('/api/v1/school', stepped.access_token)).status).toBe(200);
      expect((await api('/api/v1/account', stepped.access_token)).status).toBe(200);
    } finally {
      await context.close();
      await Promise.all(listeners.map((l) => l.close()));
    }
  }, 90_000);
});
