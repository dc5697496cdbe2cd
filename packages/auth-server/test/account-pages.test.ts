/**
 * The account pages (issue 16) over real HTTP, as a browser without JavaScript uses them: signing in
 * through the login page, Connected apps listing what this account granted, Revoke ending exactly
 * that app's tokens for this account, and the pages' refusals (CSRF, another origin, signed out).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import {
  FormBrowser,
  formAction,
  inputValue,
  openSignedIn,
  type Page,
} from '../../../test-support/form-browser.js';
import { isActive, registerClient, signIn, tokenRequest, type TestClient } from './oauth-http.js';

let auth: TestAuthServer;

beforeAll(async () => {
  auth = await startTestAuthServer();
});
afterAll(() => auth.stop());

/** Opens `/oauth/account/apps` in `browser`, signing in on the way when asked. */
async function openApps(browser: FormBrowser): Promise<Page> {
  const page = await openSignedIn(browser, '/oauth/account/apps', ADMIN);
  expect(page.status).toBe(200);
  return page;
}

/** The card of the app named `name` on a Connected apps page. */
function card(page: Page, name: string): string | undefined {
  return page.body
    .split('<section class="card"')
    .slice(1)
    .find((c) => c.includes(`<bdi>${name}</bdi>`));
}

describe('signing in to the account pages', () => {
  it('sends a signed-out browser through the login page and back to Connected apps, without a consent page', async () => {
    const browser = new FormBrowser(auth.issuer);
    const first = await browser.request('/oauth/account/apps');
    expect(first.status).toBe(303);
    expect(first.location).toMatch(/\/oauth\/authorize\?client_id=school-account-pages/);
    const page = await openApps(browser);
    expect(page.body).toContain('<h1>Connected apps</h1>');
    expect(page.body).toContain(ADMIN.email);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.body).not.toContain('School account pages'); // the pages are not a connected app
  });
});

describe('Connected apps', () => {
  let planner: TestClient;
  let sync: TestClient;
  let plannerToken: string;
  let syncToken: string;
  let plannerRefresh: string;

  beforeAll(async () => {
    planner = await registerClient(auth, { client_name: 'Lesson Planner' });
    sync = await registerClient(auth, { client_name: 'Gradebook Sync' });
    const a = await signIn(auth, planner, { scope: 'openid courses:read coupons:write' });
    const b = await signIn(auth, sync, { scope: 'openid students:read' });
    [plannerToken, plannerRefresh, syncToken] = [a.access_token, a.refresh_token, b.access_token];
    await isActive(auth, plannerToken); // a use, recorded as "last used"
  });

  it('lists each app this account granted with its kind, destination, scopes (writes flagged) and dates', async () => {
    const page = await openApps(new FormBrowser(auth.issuer));
    const planned = card(page, 'Lesson Planner')!;
    expect(planned).toBeDefined();
    expect(planned).toContain('Self-declared name');
    expect(planned).toContain('an app on this computer (127.0.0.1, port 53682)');
    expect(planned).toContain('See your school’s courses');
    expect(/<ul class="scopes writes">([\s\S]*?)<\/ul>/.exec(planned)?.[1]).toContain('coupons:write');
    expect(planned).toMatch(/First allowed<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(planned).toMatch(/Last used<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(card(page, 'Gradebook Sync')).toContain('students:read');
  });

  it('refuses a Revoke without the CSRF token, or from another origin, and ends nothing', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openApps(browser);
    const action = formAction(page.body, '/apps/revoke')!;
    const noToken = await browser.request(action, { form: { client_id: planner.clientId } });
    expect(noToken.status).toBe(403);
    const elsewhere = await browser.request(action, {
      form: { client_id: planner.clientId, csrf: inputValue(page.body, 'csrf')! },
      headers: { origin: 'http://evil.example' },
    });
    expect(elsewhere.status).toBe(403);
    await expect(isActive(auth, plannerToken)).resolves.toBe(true);
  });

  it('revokes one app: its access and refresh tokens end at once, the other app keeps working, and it is audited', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openApps(browser);
    const after = await browser.follow(formAction(page.body, '/apps/revoke')!, {
      form: { client_id: planner.clientId, csrf: inputValue(page.body, 'csrf')! },
    });
    expect(after.body).toContain('Access of <bdi>Lesson Planner</bdi> has ended');
    expect(card(after, 'Lesson Planner')).toBeUndefined();
    expect(card(after, 'Gradebook Sync')).toBeDefined();

    await expect(isActive(auth, plannerToken)).resolves.toBe(false);
    const refresh = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: plannerRefresh,
      client_id: planner.clientId,
    });
    expect(refresh.status).toBe(400);
    await expect(isActive(auth, syncToken)).resolves.toBe(true);

    const [event] = await auth.running.audit.query({ type: 'grant_revoked', clientId: planner.clientId });
    expect(event).toMatchObject({ details: { by: 'account', grants: 1 } });
    expect(event!.accountId).toEqual(expect.any(String));
  });
});
