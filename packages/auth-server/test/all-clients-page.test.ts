/**
 * All clients over real HTTP, as a browser without JavaScript uses it, on the real server
 * and real Redis: every stored client listed with its kind, created, last used and accounts; the GET
 * filters; paging by SCAN cursor; Delete ending the client's tokens at once and audited; the refusals
 * (staff, CSRF, another origin); and `school-auth clients list` run as an operator would.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import {
  forgedPostStatuses,
  formAction,
  FormBrowser,
  inputValue,
  linkHref,
  openAccountPage,
  pieceContaining,
  type Page,
} from '../../../test-support/form-browser.js';
import * as flow from '../../../test-support/oauth-flow.js';
import { createIntegration, createIntrospector } from '../src/provider/operator-clients.js';
import { listClients, SCAN_COUNT } from '../src/storage/client-listing.js';
import { isActive, registerClient, signIn, type TestClient } from './oauth-http.js';

const STAFF = {
  email: 'teacher@school.test',
  password: 'another horse battery staple',
  name: 'Tess Teacher',
};

let planner: TestClient;
let unused: TestClient;
let plannerToken: string;
let integrationId: string;
let serviceId: string;

const auth = authServerForFile();
beforeAll(async () => {
  await auth.running.accounts.upsert({ ...STAFF, role: 'staff' });
  planner = await registerClient(auth, { client_name: 'Lesson Planner <b>official</b>' });
  unused = await registerClient(auth, { client_name: 'Never Finished' });
  plannerToken = (await signIn(auth, planner, { scope: 'openid courses:read' })).access_token;
  await flow.signIn(auth, planner, { scope: 'openid', account: STAFF });
  await isActive(auth, plannerToken); // a use: "last used"
  const { provider } = auth.running;
  integrationId = (await createIntegration(provider, 'Timetable', ['https://timetable.example/cb']))
    .client_id;
  serviceId = (await createIntrospector(provider, 'Reporting')).client_id;
});

const openClients = (browser: FormBrowser, query = '') =>
  openAccountPage(browser, `/oauth/account/clients${query}`, ADMIN);

/** The table row of the client `clientId` on a page. */
function row(page: Page, clientId: string): string | undefined {
  return pieceContaining(page.body, '<tr>', `<bdi>${clientId}</bdi>`);
}

describe('All clients', () => {
  it('lists every stored client with its kind in words, created, last used and the accounts that allowed it', async () => {
    const page = await openClients(new FormBrowser(auth.issuer));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('<h1>All clients</h1>');
    const planned = row(page, planner.clientId)!;
    expect(planned).toContain('<bdi>Lesson Planner &lt;b&gt;official&lt;/b&gt;</bdi>'); // isolated, escaped
    expect(planned).toContain('Self-declared name');
    // What a self-declared name is, said once above the list, not in every row.
    expect(planned).not.toContain('nobody has checked it');
    expect(page.body.split('nobody has checked it')).toHaveLength(2);
    expect(planned).toMatch(/data-label="Created">\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(planned).toMatch(/data-label="Last used">\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(planned).toContain('2 accounts');
    expect(row(page, unused.clientId)).toContain('data-label="Last used">Not yet');
    expect(row(page, unused.clientId)).toContain('0 accounts');
    expect(row(page, integrationId)).toContain('Registered integration');
    expect(row(page, serviceId)).toMatch(/it checks tokens and never signs\s+anyone in/);
    // The configured clients are not stored clients.
    expect(page.body).not.toContain('<bdi>resource-api</bdi>');
    expect(page.body).not.toContain('<bdi>school-account-pages</bdi>');
  });

  it('filters by kind, by never having completed a sign-in, and by days idle, through a GET form', async () => {
    const browser = new FormBrowser(auth.issuer);
    const integrations = await openClients(browser, '?kind=integration');
    expect(row(integrations, integrationId)).toBeDefined();
    expect(row(integrations, planner.clientId)).toBeUndefined();
    expect(integrations.body).toContain('<option value="integration" selected>');

    const never = await openClients(browser, '?never_used=1');
    expect(row(never, unused.clientId)).toBeDefined();
    expect(row(never, planner.clientId)).toBeUndefined();

    // A client last used three days ago is idle for two days; one used just now is not.
    const stale = await registerClient(auth, { client_name: 'Stale Sync' });
    const threeDaysAgo = Math.floor(Date.now() / 1000) - 3 * 86400;
    await auth.running.redis.hset(
      `${auth.config.REDIS_KEY_PREFIX}clientUsedAt`,
      stale.clientId,
      threeDaysAgo,
    );
    const idle = await openClients(browser, '?idle_days=2');
    expect(row(idle, stale.clientId)).toBeDefined();
    expect(row(idle, planner.clientId)).toBeUndefined();
    expect(row(idle, unused.clientId)).toBeUndefined(); // registered just now

    // A value that does not read is said, beside the field, and the list is not filtered by it.
    const unread = await openClients(browser, '?idle_days=soon&kind=nope');
    expect(unread.status).toBe(400);
    const alert = pieceContaining(unread.body, '<div class="error" role="alert"', 'not filtered')!;
    expect(alert).toContain('Kind must be one of the kinds listed, not “<bdi>nope</bdi>”');
    expect(alert).toContain('a whole number of days from 1 to 3650, not “<bdi>soon</bdi>”');
    expect(unread.body).toMatch(/name="idle_days"\s+value="soon"\s+aria-invalid="true"/);
    expect(row(unread, planner.clientId)).toBeDefined();
  });

  it('pages by SCAN cursor: every client once over the walk, no page beyond its bound', async () => {
    const { redis } = auth.running;
    const prefix = auth.config.REDIS_KEY_PREFIX;
    for (let i = 0; i < 6; i++) await registerClient(auth, { client_name: `Paged ${i}` });
    const seen: string[] = [];
    let cursor: string | undefined = '0';
    let pages = 0;
    while (cursor) {
      const page = await listClients(redis, prefix, { cursor, pageSize: 2 });
      expect(page.clients.length).toBeLessThanOrEqual(2 + SCAN_COUNT);
      seen.push(...page.clients.map((c) => c.clientId));
      cursor = page.next;
      pages++;
    }
    const stored = (await redis.keys(`${prefix}Client:*`)).map((k) => k.slice(`${prefix}Client:`.length));
    expect(new Set(seen)).toEqual(new Set(stored));
    expect(pages).toBeGreaterThanOrEqual(1);
  });
});

describe('deleting a client on All clients', () => {
  it('refuses a Delete without the CSRF token, or from another origin, and ends nothing', async () => {
    const browser = new FormBrowser(auth.issuer);
    const confirm = await openAccountPage(
      browser,
      `/oauth/account/clients/delete?client_id=${encodeURIComponent(planner.clientId)}`,
      ADMIN,
    );
    const action = formAction(confirm.body, '/clients/delete')!;
    const form = { client_id: planner.clientId };
    expect(await forgedPostStatuses(browser, action, form, inputValue(confirm.body, 'csrf')!)).toEqual([
      403, 403,
    ]);
    await expect(isActive(auth, plannerToken)).resolves.toBe(true);
  });

  it('asks first, then deletes: the client’s tokens are inactive at once, others are not, and it is audited', async () => {
    const doomed = await registerClient(auth, { client_name: 'Doomed App' });
    const doomedToken = (await signIn(auth, doomed, { scope: 'openid students:read' })).access_token;
    const browser = new FormBrowser(auth.issuer);
    const list = await openClients(browser);
    const confirmLink = linkHref(row(list, doomed.clientId)!, 'Delete')!;
    const confirm = await browser.follow(confirmLink);
    expect(confirm.body).toContain('<h1>Delete this app?</h1>');
    expect(confirm.body).toContain('<bdi>Doomed App</bdi>');
    expect(confirm.body).toContain('for the account that allowed it');

    const after = await browser.submit(confirm, '/clients/delete', { client_id: doomed.clientId });
    expect(after.status).toBe(200);
    expect(after.body).toMatch(/<bdi>Doomed App<\/bdi> was deleted\. 1 grant\s+and \d+ tokens? ended/);
    expect(row(after, doomed.clientId)).toBeUndefined();
    await expect(isActive(auth, doomedToken)).resolves.toBe(false);
    await expect(isActive(auth, plannerToken)).resolves.toBe(true);

    const [event] = await auth.running.audit.query({ type: 'client_deleted', clientId: doomed.clientId });
    expect(event).toMatchObject({ details: { reason: 'admin', client_name: 'Doomed App', grants: 1 } });
    expect(event!.accountId).toBe(await auth.running.accounts.idOf(ADMIN.email));
    expect(event!.ip).toEqual(expect.any(String));
  });

  it('announces a deletion only when the audit log has it: a crafted link says nothing', async () => {
    const page = await openClients(new FormBrowser(auth.issuer), '?deleted=Your%20school%20was%20hacked');
    expect(page.body).not.toContain('was deleted');
    expect(page.body).not.toContain('hacked');
  });
});

describe('the admins-only pages', () => {
  it('answer staff with the 403 admins_only page, and refuse their Delete', async () => {
    const browser = new FormBrowser(auth.issuer);
    for (const path of [
      '/oauth/account/clients',
      '/oauth/account/activity',
      '/oauth/account/clients/delete',
    ]) {
      const page = await openAccountPage(browser, `${path}?client_id=${planner.clientId}`, STAFF);
      expect({ path, status: page.status }).toEqual({ path, status: 403 });
      expect(page.body).toContain('This page is for the school’s admins');
    }
    const apps = await openAccountPage(browser, '/oauth/account/apps', STAFF);
    expect(apps.body).not.toContain('All clients'); // not in a staff member's navigation
    const refused = await browser.request('/oauth/account/clients/delete', {
      form: { client_id: planner.clientId, csrf: inputValue(apps.body, 'csrf')! },
    });
    expect(refused.status).toBe(403);
    await expect(isActive(auth, plannerToken)).resolves.toBe(true);
  });
});

describe('the methods of the new paths', () => {
  it('answers 405 with Allow for a method a page does not take', async () => {
    for (const [path, method, allow] of [
      ['/oauth/account/clients', 'POST', 'GET, HEAD'],
      ['/oauth/account/activity', 'DELETE', 'GET, HEAD'],
      ['/oauth/account/clients/delete', 'PUT', 'GET, HEAD, POST'],
    ] as const) {
      const res = await fetch(`${auth.issuer}${path}`, { method });
      await res.arrayBuffer();
      expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        path,
        status: 405,
        allow,
      });
    }
  });
});

describe('school-auth clients list', () => {
  const schoolAuth = (...args: string[]) => runSchoolAuth(auth.config, args);

  it('lists the stored clients as JSON lines, with the page’s filters', () => {
    const all = schoolAuth('clients', 'list', '--json');
    expect(all.status).toBe(0);
    const listed = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(listed.find((c) => c.client_id === planner.clientId)).toMatchObject({
      kind: 'open',
      accounts: 2,
      last_used_at: expect.stringMatching(/^\d{4}-/),
      created_at: expect.stringMatching(/^\d{4}-/),
    });
    const kinds = schoolAuth('clients', 'list', '--kind', 'integration', '--json');
    expect(
      kinds.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { client_id: string }).client_id),
    ).toEqual([integrationId]);
    const never = schoolAuth('clients', 'list', '--never-used');
    expect(never.stdout.split('\n')[0]).toBe(
      'client_id\tkind\tcreated_at\tlast_used_at\taccounts\tclient_name',
    );
    expect(never.stdout).toContain(unused.clientId);
    expect(never.stdout).not.toContain(planner.clientId);
  });

  it('refuses a filter that does not read', () => {
    const run = schoolAuth('clients', 'list', '--idle-days', 'soon');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("option '--idle-days <n>' argument 'soon' is invalid. Give a whole number");
  });
});
