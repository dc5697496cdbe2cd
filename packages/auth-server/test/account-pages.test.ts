/**
 * The account pages over real HTTP, as a browser without JavaScript uses them: signing in
 * through the login page, Connected apps listing what this account granted, Revoke ending exactly
 * that app's tokens for this account, and the pages' refusals (CSRF, another origin, signed out).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, operatorCommandEnv } from '../../../test-support/auth-server.js';
import { FormBrowser, inputValue, type Page } from '../../../test-support/form-browser.js';
import { forgedPostStatuses, openAccountPage, pieceContaining } from '../../../test-support/form-browser.js';
import { isActive, refreshAs, registerClient, signIn, type TestClient } from './oauth-http.js';

const auth = authServerForFile();

/** Opens `/oauth/account/apps` in `browser`, signing in on the way when asked. */
async function openApps(browser: FormBrowser): Promise<Page> {
  const page = await openAccountPage(browser, '/oauth/account/apps', ADMIN);
  expect(page.status).toBe(200);
  return page;
}

/** The card of the app named `name` on a Connected apps page. */
function card(page: Page, name: string): string | undefined {
  return pieceContaining(page.body, '<section class="card"', `<bdi>${name}</bdi>`);
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
    expect(/<tr class="writes">([\s\S]*?)<\/tr>/.exec(planned)?.[1]).toContain('coupons:write');
    expect(planned).toMatch(/First allowed<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(planned).toMatch(/Last used<\/dt>\s*<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(card(page, 'Gradebook Sync')).toContain('students:read');
  });

  it('refuses a Revoke without the CSRF token, or from another origin, and ends nothing', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openApps(browser);
    expect(page.status).toBe(200);
    const action = '/oauth/account/apps/revoke';
    const form = { client_id: planner.clientId };
    expect(await forgedPostStatuses(browser, action, form, inputValue(page.body, 'csrf')!)).toEqual([
      403, 403,
    ]);
    await expect(isActive(auth, plannerToken)).resolves.toBe(true);
  });

  it('revokes one app: its access and refresh tokens end at once, the other app keeps working, and it is audited', async () => {
    const browser = new FormBrowser(auth.issuer);
    await openApps(browser);
    // Revoke access… opens a confirmation page; its form ends the access.
    const confirm = await browser.request(
      `/oauth/account/apps/revoke?${new URLSearchParams({ client_id: planner.clientId }).toString()}`,
    );
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('Revoke this app’s access?');
    expect(await isActive(auth, plannerToken)).toBe(true); // asking changes nothing
    const after = await browser.submit(confirm, '/apps/revoke', { client_id: planner.clientId });
    expect(after.body).toContain('Access of <bdi>Lesson Planner</bdi> has ended');
    expect(card(after, 'Lesson Planner')).toBeUndefined();
    expect(card(after, 'Gradebook Sync')).toBeDefined();

    await expect(isActive(auth, plannerToken)).resolves.toBe(false);
    const refresh = await refreshAs(auth, planner.clientId, plannerRefresh);
    expect(refresh.status).toBe(400);
    await expect(isActive(auth, syncToken)).resolves.toBe(true);

    const [event] = await auth.running.audit.query({ type: 'grant_revoked', clientId: planner.clientId });
    expect(event).toMatchObject({ details: { by: 'account', grants: 1 } });
    expect(event!.accountId).toEqual(expect.any(String));
  });

  it('says an app’s access ended only after this session revoked it, never because a link says so', async () => {
    const lure = await registerClient(auth, { client_name: 'Your school was hacked: call 555-0100' });
    const browser = new FormBrowser(auth.issuer);
    await openApps(browser);
    for (const query of [`revoked=${lure.clientId}`, `revoked=${lure.clientId}&done=forged`]) {
      const page = await browser.follow(`/oauth/account/apps?${query}`);
      expect(page.status).toBe(200);
      expect(page.body).not.toContain('has ended');
      expect(page.body).not.toContain('555-0100');
    }
  });
});

describe('school-auth apps (the same operations for operators)', () => {
  const cli = (...args: string[]) => {
    const run = spawnSync(process.execPath, [resolve(import.meta.dirname, '../dist/cli/main.js'), ...args], {
      env: { ...process.env, ...operatorCommandEnv(auth.config) },
      encoding: 'utf8',
    });
    return { status: run.status, out: run.stdout, err: run.stderr };
  };

  it('lists the apps an account allowed and revokes one of them, its tokens refused at once', async () => {
    const kept = await registerClient(auth, { client_name: 'CLI Kept App' });
    const gone = await registerClient(auth, { client_name: 'CLI Revoked App' });
    const keptTokens = await signIn(auth, kept, { scope: 'openid courses:read' });
    const goneTokens = await signIn(auth, gone, { scope: 'openid coupons:write' });

    const listed = cli('apps', 'list', ADMIN.email);
    expect(listed.status).toBe(0);
    const apps = JSON.parse(listed.out) as { client_id: string }[];
    // The commands' one style: snake_case keys, times in ISO 8601 UTC.
    const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(apps.find((a) => a.client_id === gone.clientId)).toMatchObject({
      client_name: 'CLI Revoked App',
      kind: 'open',
      scopes: expect.arrayContaining(['coupons:write']),
      first_allowed_at: ISO,
      access_ends_at: ISO,
    });
    expect(apps.some((a) => a.client_id === kept.clientId)).toBe(true);

    const revoked = cli('apps', 'revoke', ADMIN.email, gone.clientId);
    expect(revoked.status).toBe(0);
    expect(JSON.parse(revoked.out)).toMatchObject({
      account_id: expect.any(String),
      client_id: gone.clientId,
      revoked: true,
      grants_ended: 1,
    });
    expect(await isActive(auth, goneTokens.access_token)).toBe(false);
    expect(await isActive(auth, keptTokens.access_token)).toBe(true);
    const after = JSON.parse(cli('apps', 'list', ADMIN.email).out) as { client_id: string }[];
    expect(after.some((a) => a.client_id === gone.clientId)).toBe(false);

    const events = await auth.running.audit.query({ type: 'grant_revoked', clientId: gone.clientId });
    expect(events[0]).toMatchObject({ details: expect.objectContaining({ by: 'operator' }) });
  });

  it('says so for an unknown account, and shows its usage for a missing argument', () => {
    const unknown = cli('apps', 'list', 'nobody@school.test');
    expect(unknown.status).toBe(1);
    expect(unknown.err).toContain('no account nobody@school.test');
    expect(cli('apps', 'revoke', ADMIN.email).status).toBe(2);
  });
});
