/**
 * Activity over real HTTP on the real server and the real audit log in the MongoDB-protocol
 * server: events newest first in plain words with the app, the account and the address; the filters
 * (event, app, account by email or id); paging by cursor without repeats or gaps; client-supplied
 * strings isolated; and `school-auth activity` run as an operator would.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import { FormBrowser, linkHref, openAccountPage, type Page } from '../../../test-support/form-browser.js';
import { registerClient, signIn, type TestClient } from './oauth-http.js';

let planner: TestClient;
let adminId: string;

const auth = authServerForFile();
beforeAll(async () => {
  adminId = (await auth.running.accounts.idOf(ADMIN.email))!;
  planner = await registerClient(auth, { client_name: 'Planner \u05e9\u05dc\u05d5\u05dd <i>x</i>' });
  await signIn(auth, planner, { scope: 'openid courses:read' });
});

const openActivity = (browser: FormBrowser, query = '') =>
  openAccountPage(browser, `/oauth/account/activity${query}`, ADMIN);

/** The table rows of a page. */
const rows = (page: Page) => page.body.split('<tr>').slice(2);

describe('Activity', () => {
  it('shows the audit log newest first: time, event in words, the app, the account’s email and the address', async () => {
    const page = await openActivity(new FormBrowser(auth.issuer));
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.body).toContain('<h1>Activity</h1>');
    const consent = rows(page).find((r) => r.includes('<code>consent_granted</code>'))!;
    expect(consent).toContain('Access allowed to an app');
    expect(consent).toContain('<bdi>Planner \u05e9\u05dc\u05d5\u05dd &lt;i&gt;x&lt;/i&gt;</bdi>');
    expect(consent).toContain(`<bdi>${planner.clientId}</bdi>`);
    expect(consent).toContain(`<bdi>${ADMIN.email}</bdi>`);
    expect(consent).toMatch(/data-label="Address"><bdi>[0-9a-f.:]+<\/bdi>/);
    const times = rows(page).map((r) => /data-label="Time">([^<]+)</.exec(r)![1]!);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('filters by event, by app and by account (email or id)', async () => {
    const other = await registerClient(auth, { client_name: 'Other App' });
    const browser = new FormBrowser(auth.issuer);
    const registered = await openActivity(browser, '?event=client_registered');
    expect(rows(registered).length).toBeGreaterThanOrEqual(2);
    expect(rows(registered).every((r) => r.includes('<code>client_registered</code>'))).toBe(true);
    expect(registered.body).toContain('<option value="client_registered" selected>');

    const byApp = await openActivity(browser, `?app=${encodeURIComponent(other.clientId)}`);
    expect(rows(byApp)).toHaveLength(1);
    expect(rows(byApp)[0]).toContain('<bdi>Other App</bdi>');

    for (const account of [ADMIN.email, adminId]) {
      const mine = await openActivity(browser, `?account=${encodeURIComponent(account)}`);
      expect(rows(mine).length).toBeGreaterThan(0);
      expect(rows(mine).every((r) => r.includes(`<bdi>${ADMIN.email}</bdi>`))).toBe(true);
    }
    const nobody = await openActivity(browser, '?account=nobody%40school.test');
    expect(nobody.body).toContain('No event matches.');
  });

  it('ties every failed or refused sign-in to the account its email names: the column shows it, the filter finds them all', async () => {
    const email = `tried-${Date.now()}@school.test`;
    const { _id } = await auth.running.accounts.create({
      email,
      password: 'the right password',
      name: 'Tried',
    });
    // Eleven: the tenth failure is also reported as a suspected attack on the account, the eleventh refused.
    for (let i = 0; i < 11; i++) {
      const refused = await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', {
        email: email.toUpperCase(), // as typed: the address names the account whatever its case
        password: `wrong password ${i}`,
      });
      expect([401, 429]).toContain(refused.status);
    }
    const recorded = await auth.running.audit.query({ limit: 200 });
    const about = recorded.filter(
      (e) => e.type.startsWith('login_') && String(e.details?.email).toLowerCase() === email,
    );
    expect(about.map((e) => e.type)).toEqual(
      expect.arrayContaining(['login_failed', 'login_attack_suspected']),
    );
    expect(about.filter((e) => e.accountId !== _id)).toEqual([]);
    const mine = await openActivity(new FormBrowser(auth.issuer), `?account=${encodeURIComponent(email)}`);
    const failed = rows(mine).filter((r) => /<code>login_(failed|locked|attack_suspected)<\/code>/.test(r));
    expect(failed).toHaveLength(about.length);
    for (const r of failed) expect(r).toContain(`data-label="Account"><bdi>${email}</bdi>`);
  });

  it('pages older events by cursor: every event once, newest first, filters kept', async () => {
    for (let i = 0; i < 120; i++) {
      // From many addresses: one address's events are stored at most 60 a minute (audit/flood-guard.ts).
      void auth.running.audit.record('rate_limited', { ip: `192.0.2.${i}`, details: { n: i } });
    }
    const browser = new FormBrowser(auth.issuer);
    let page = await openActivity(browser, '?event=rate_limited');
    const seen: string[] = [];
    for (;;) {
      const here = rows(page);
      expect(here.length).toBeLessThanOrEqual(50);
      seen.push(...here.map((r) => /data-label="Time">([^<]+)</.exec(r)![1]!));
      const older = linkHref(page.body, 'Older events');
      if (!older) break;
      expect(older).toContain('event=rate_limited');
      page = await browser.follow(older);
    }
    expect(seen).toHaveLength(120);
    const events = await auth.running.audit.query({ type: 'rate_limited', limit: 1000 });
    expect(events.map((e) => e.details?.n).sort((a, b) => Number(a) - Number(b))).toEqual([
      ...Array(120).keys(),
    ]);
    expect([...seen].sort().reverse()).toEqual(seen);
  });
});

describe('school-auth activity', () => {
  const schoolAuth = (...args: string[]) => runSchoolAuth(auth.config, args);

  it('prints the events in words, filtered like the page, with the next page’s cursor on stderr', () => {
    const run = schoolAuth(
      'activity',
      '--event',
      'consent_granted',
      '--account',
      ADMIN.email,
      '--limit',
      '1',
    );
    expect(run.status).toBe(0);
    const [line] = run.stdout.trim().split('\n');
    expect(line).toContain('Access allowed to an app');
    expect(line).toContain(ADMIN.email);

    const json = schoolAuth('activity', '--client', planner.clientId, '--json');
    const events = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.client_id === planner.clientId)).toBe(true);
    expect(events[0]).toMatchObject({
      client_name: expect.stringContaining('Planner'),
      words: expect.any(String),
    });

    const first = schoolAuth('activity', '--limit', '1');
    const cursor = /--before (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeDefined();
    const second = schoolAuth('activity', '--limit', '1', '--before', cursor!);
    expect(second.stdout).not.toEqual(first.stdout);
  });

  it('refuses an event type it does not know', () => {
    const run = schoolAuth('activity', '--event', 'nonsense');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      "option '--event <type>' argument 'nonsense' is invalid. Allowed choices are",
    );
  });
});
