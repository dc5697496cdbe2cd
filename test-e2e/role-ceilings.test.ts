/**
 * Roles, ceilings and Ask an admin end to end, through the edge, in headless Chromium: a staff member
 * (not an admin) shown an app asking `students:write courses:read` may allow `courses:read` only, and
 * the page lists `students:write` apart with Ask an admin; asking ends the request with
 * `access_denied` saying approval was asked; allowing grants a token with `courses:read` only. The
 * admin sees the request on Approvals and approves it; the staff member's next authorization of the
 * app grants `students:write`, and the account pages tell them. Lowering the staff ceiling
 * (`school-auth roles set-ceiling`) ends that token at the API at once, and its refresh gets the
 * narrower scopes. axe-core finds no violation on the consent page with its Ask an admin part, on
 * Approvals and on Roles, at 1280 and 390 px, and none of them scrolls sideways at 390 px.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { API_SCOPES } from '@school/shared';
import type { LoopbackListener } from './support/browser.js';
import { expectNoAxeViolations, inspectPage, loopbackListener } from './support/browser.js';
import { createStaff, E2E_ADMIN, schoolAuth, type Stack } from './support/stack.js';
import { edgeToken, openConsent, redeemCode } from './support/edge-flows.js';
import { stackAndBrowserForFile } from './support/suite.js';

let stack: Stack;
let browser: Browser;

stackAndBrowserForFile((started, launched) => {
  [stack, browser] = [started, launched];
});

const SCOPE = 'students:write courses:read';

/** Opens an authorization of `clientId` back to `listener` in `page`, signing `who` in when asked. */
async function authorize(
  page: Page,
  clientId: string,
  listener: LoopbackListener,
  who: { email: string; password: string },
): Promise<string> {
  return openConsent(stack, page, { clientId, listener, scope: SCOPE, state: 'ceilings-e2e', who });
}

const token = (form: Record<string, string>) => edgeToken(stack, form);

/** Clicks Allow and redeems the code `listener` receives. */
async function allowAndRedeem(page: Page, clientId: string, listener: LoopbackListener, verifier: string) {
  await page.click('button:has-text("Allow")');
  const res = await redeemCode(stack, listener, { clientId, verifier, extra: { resource: stack.baseUrl } });
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  return res.body as { access_token: string; refresh_token: string; scope: string };
}

async function api(path: string, accessToken: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${accessToken}` } });
  await res.arrayBuffer();
  return res.status;
}

/** Opens the account page `path` in `page`, signing in as `who` on the way. */
async function openAccountPage(page: Page, path: string, who: { email: string; password: string }) {
  await page.goto(`${stack.baseUrl}/oauth/account/${path}`);
  if (await page.locator('input[name=password]').count()) {
    await page.fill('input[name=email]', who.email);
    await page.fill('input[name=password]', who.password);
    await page.click('button[type=submit]');
    await page.waitForSelector('nav[aria-label="Account pages"]');
    await page.goto(`${stack.baseUrl}/oauth/account/${path}`);
  }
}

describe('a staff member asks an admin for what their role may not allow', () => {
  let staffContext: BrowserContext;
  let adminContext: BrowserContext;
  const listeners: LoopbackListener[] = [];
  let clientId: string;
  let staff: { email: string; password: string };
  let tokens: { access_token: string; refresh_token: string; scope: string };

  beforeAll(async () => {
    [staffContext, adminContext] = await Promise.all([browser.newContext(), browser.newContext()]);
    for (let i = 0; i < 3; i++) listeners.push(await loopbackListener());
    const res = await fetch(`${stack.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Gradebook Agent',
        redirect_uris: listeners.map((l) => l.redirectUri),
      }),
    });
    clientId = ((await res.json()) as { client_id: string }).client_id;
    staff = createStaff(stack, 'Sam Staff');
  });
  afterAll(async () => {
    await staffContext?.close();
    await adminContext?.close();
    for (const l of listeners) await l.close();
  });

  it('offers courses:read only, lists students:write apart, and Ask an admin tells the app approval was asked', async () => {
    const page = await staffContext.newPage();
    await authorize(page, clientId, listeners[0]!, staff);
    const boxes = await page.locator('input[name=scope]').all();
    expect(await Promise.all(boxes.map((b) => b.getAttribute('value')))).toEqual(['courses:read']);
    const apart = page.locator('section.needs-admin');
    expect(await apart.innerText()).toContain('students:write');
    await inspectPage(page, 'consent-ask-admin');
    await expectNoAxeViolations(page);
    await apart.locator('button:has-text("Ask an admin")').click();
    const back = await listeners[0]!.received;
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toMatch(/asked a school admin to approve/);
    await page.close();
  });

  it('allowing grants a token with courses:read only', async () => {
    const page = await staffContext.newPage();
    const verifier = await authorize(page, clientId, listeners[1]!, staff);
    tokens = await allowAndRedeem(page, clientId, listeners[1]!, verifier);
    expect(tokens.scope).toBe('courses:read');
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(200);
    await page.close();
  });

  it('the admin sees the request on Approvals and approves it; Roles shows the ceilings', async () => {
    const page = await adminContext.newPage();
    await openAccountPage(page, 'approvals', E2E_ADMIN);
    const card = page.locator('section.card', { hasText: staff.email });
    expect(await card.innerText()).toMatch(/Gradebook Agent[\s\S]*students:write/);
    await inspectPage(page, 'approvals');
    await expectNoAxeViolations(page);
    await card.locator('button:has-text("Approve ticked")').click();
    await page.waitForSelector('text=Nobody is waiting for a decision.');
    expect(page.url()).toMatch(/\/oauth\/account\/approvals\?done=approved$/);
    expect(await page.locator('table').innerText()).toMatch(/Approved/);
    await expectNoAxeViolations(page);
    await page.goto(`${stack.baseUrl}/oauth/account/roles`);
    const staffRole = page.locator('section.card', { has: page.locator('h2:has-text("Staff")') });
    expect(await staffRole.locator('input[value="courses:read"]').isChecked()).toBe(true);
    expect(await staffRole.locator('input[value="orders:read"]').isChecked()).toBe(false);
    await inspectPage(page, 'roles');
    await expectNoAxeViolations(page);
    await page.close();
  });

  it('the staff member’s next authorization grants students:write, and the account pages tell them', async () => {
    const page = await staffContext.newPage();
    const verifier = await authorize(page, clientId, listeners[2]!, staff);
    // Offered now; an app nobody vouched for starts with what changes data unticked: tick it.
    expect(await page.locator('section.needs-admin').count()).toBe(0);
    await page.check('input[name=scope][value="students:write"]');
    tokens = await allowAndRedeem(page, clientId, listeners[2]!, verifier);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'students:write']);
    await page.goto(`${stack.baseUrl}/oauth/account/apps`);
    expect(await page.locator('[role=status]').first().innerText()).toContain(
      'An admin approved your request for Gradebook Agent',
    );
    await page.close();
  });

  it('lowering the staff ceiling ends the token at the API; its refresh gets what is left', async () => {
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(200);
    const lower = API_SCOPES.filter(
      (s) => !s.changesData && !['courses:read', 'orders:read', 'members:read'].includes(s.name),
    );
    const done = schoolAuth(stack, ['roles', 'set-ceiling', 'staff', ...lower.map((s) => s.name)]);
    expect(done).toMatchObject({ removed: ['courses:read'], grants_narrowed: 1 });
    expect(await api('/api/v1/courses?limit=1', tokens.access_token)).toBe(401);
    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: stack.baseUrl,
    });
    expect(refreshed.status).toBe(200);
    // students:write stays: an admin approved it for this person and app.
    expect(refreshed.body.scope).toBe('students:write');
    expect(await api('/api/v1/courses?limit=1', refreshed.body.access_token!)).toBe(403);
  });
});
