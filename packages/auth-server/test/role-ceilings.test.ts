/**
 * Roles, their ceilings and Ask an admin over real HTTP, Redis and MongoDB, as a browser without
 * JavaScript uses the pages and as an operator uses `school-auth`: a staff member's consent page offers
 * only what the staff ceiling allows and lists the rest apart with Ask an admin; a hand-made Allow
 * naming scopes beyond the ceiling is narrowed; Ask an admin ends the request with `access_denied`
 * saying approval was asked and records it; an admin's approval (Approvals page) makes the scope
 * grantable on the next authorization, and the person is told once; a denial (CLI) is told too; a
 * request past its days cannot be decided; lowering a ceiling narrows a live grant (its access token
 * ends, its refresh gets the narrower scope), and so does `accounts demote` of an admin; the roles and
 * approvals commands.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import {
  checkboxValues,
  formAction,
  FormBrowser,
  inputValue,
  openAccountPage,
  pieceContaining,
  type Page,
} from '../../../test-support/form-browser.js';
import * as flow from '../../../test-support/oauth-flow.js';
import { accessRegister } from '../src/account-pages/access-register.js';
import { accountGrants } from '../src/storage/account-grants.js';
import {
  isActive,
  openConsent,
  refreshAs,
  registerClient,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

const auth = authServerForFile();

interface Person {
  id: string;
  email: string;
  password: string;
}

async function staffMember(name: string): Promise<Person> {
  const email = `${name.toLowerCase()}-${randomBytes(3).toString('hex')}@school.test`;
  const password = `staff password ${randomBytes(9).toString('base64url')}`;
  const id = await auth.running.accounts.upsert({ email, password, name, role: 'staff' });
  return { id, email, password };
}

/** Opens the consent page of `client` asking `scope`, signing `who` in when asked. */
const consentPage = (browser: FormBrowser, client: TestClient, scope: string, who: Person) =>
  openConsent(auth, browser, client, scope, undefined, who);

/** The "needs an admin" section of a consent page, if any. */
const needsAdminPart = (page: Page) => pieceContaining(page.body, '<section', 'Needs an admin');

/** Exchanges the code the redirect `page` carries. */
async function redeem(client: TestClient, page: Page, verifier: string) {
  const code = new URL(page.location!).searchParams.get('code');
  expect(code).toBeTruthy();
  const res = await tokenRequest(auth, {
    grant_type: 'authorization_code',
    code: code!,
    redirect_uri: flow.REDIRECT,
    code_verifier: verifier,
    client_id: client.clientId,
  });
  expect(res.status).toBe(200);
  return res.body as { access_token: string; refresh_token: string; scope: string };
}

/** Posts the Allow form of a consent page to Ask an admin, as its button does. */
async function askAdmin(browser: FormBrowser, page: Page): Promise<URL> {
  const action = formAction(page.body, '/confirm')!.replace(/\/confirm$/, '/ask-admin');
  const answer = await browser.request(action, {
    form: { csrf: inputValue(page.body, 'csrf')!, duration: 'week' },
  });
  expect(answer.status).toBe(303);
  const back = await browser.follow(answer.location!);
  return new URL(back.location!);
}

/** `tokens` of `client` were narrowed: the access token ended, a refresh gets `scopes` (sorted). */
async function expectNarrowed(
  client: TestClient,
  tokens: { access_token: string; refresh_token: string },
  scopes: string[],
): Promise<void> {
  expect(await isActive(auth, tokens.access_token)).toBe(false);
  const refreshed = await refreshAs(auth, client.clientId, tokens.refresh_token);
  expect(refreshed.status).toBe(200);
  expect(String(refreshed.body!.scope).split(' ').sort()).toEqual(scopes);
}

describe('a staff member’s consent', () => {
  let staff: Person;
  let browser: FormBrowser;
  let client: TestClient;

  beforeAll(async () => {
    staff = await staffMember('Sam');
    browser = new FormBrowser(auth.issuer);
    client = await registerClient(auth, { client_name: 'Gradebook Sync' });
  });

  it('offers only what the staff ceiling allows; a hand-made Allow beyond it is narrowed', async () => {
    const { page, verifier } = await consentPage(
      browser,
      client,
      'openid students:write courses:read',
      staff,
    );
    expect(checkboxValues(page.body, 'scope')).toEqual(['courses:read']);
    const apart = needsAdminPart(page)!;
    expect(apart).toContain('<code>students:write</code>');
    expect(apart).toContain('Ask an admin');
    expect(apart).toMatch(/formaction="[^"]*\/ask-admin"/);

    // The form names what the page never offered: only the ceiling's part is granted.
    const answer = await browser.submit(page, '/confirm', {
      scope: ['courses:read', 'students:write', 'orders:read', 'members:write'],
    });
    const tokens = await redeem(client, answer, verifier);
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid']);
    const held = await accountGrants(auth.running.redis, auth.config.REDIS_KEY_PREFIX, staff.id);
    expect(held.map((g) => g.scopes.sort())).toEqual([['courses:read', 'openid']]);
  });

  it('Ask an admin ends the request with access_denied saying approval was asked, and records it', async () => {
    const { page } = await consentPage(browser, client, 'openid students:write courses:read', staff);
    expect(checkboxValues(page.body, 'scope')).toEqual([]); // courses:read is held already
    const back = await askAdmin(browser, page);
    expect(back.origin + back.pathname).toBe(flow.REDIRECT);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toMatch(/asked a school admin to approve/);
    const pending = (await auth.running.approvals.pending()).filter((r) => r.accountId === staff.id);
    expect(pending).toEqual([
      expect.objectContaining({
        accountEmail: staff.email,
        clientId: client.clientId,
        clientName: 'Gradebook Sync',
        clientKind: 'open',
        scopes: ['students:write'],
        duration: 'week',
        status: 'pending',
      }),
    ]);
    const events = await auth.running.audit.query({ type: 'approval_requested', accountId: staff.id });
    expect(events).toHaveLength(1);
  });

  it('an admin approves it on Approvals; the next authorization grants it, and the staff member is told once', async () => {
    const admin = new FormBrowser(auth.issuer);
    const approvals = await openAccountPage(admin, '/oauth/account/approvals', ADMIN);
    expect(approvals.status).toBe(200);
    const card = pieceContaining(approvals.body, '<section class="card"', staff.email)!;
    expect(card).toContain('Gradebook Sync');
    expect(card).toContain('<code>students:write</code>');
    const decided = await admin.submit(approvals, '/approvals/decide', { decision: 'approve', days: '7' });
    expect(decided.status).toBe(200);
    expect(decided.url).toMatch(/\/oauth\/account\/approvals\?done=approved$/);
    expect(decided.body).toContain('Nobody is waiting for a decision.');
    const approved = await auth.running.approvals.adminApprovedScopes(staff.id, client.clientId);
    expect(approved.map((a) => [a.scope, a.approvedBy])).toEqual([['students:write', expect.any(String)]]);

    const { page, verifier } = await consentPage(
      browser,
      client,
      'openid students:write courses:read',
      staff,
    );
    expect(checkboxValues(page.body, 'scope')).toEqual(['students:write']);
    expect(needsAdminPart(page)).toBeUndefined();
    const tokens = await redeem(
      client,
      await browser.submit(page, '/confirm', { scope: ['students:write'] }),
      verifier,
    );
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid', 'students:write']);

    // The Access register names the admin beside the account for the scope the admin let in.
    const registerRows = [];
    for await (const part of accessRegister({ ...auth.running, prefix: auth.config.REDIS_KEY_PREFIX }))
      registerRows.push(...part.rows.filter((r) => r.account.id === staff.id));
    expect(registerRows.map((r) => [r.app.clientId, r.approvedBy])).toEqual([
      [client.clientId, `self; ${approved[0]!.approvedBy} (students:write)`],
    ]);

    const first = await openAccountPage(browser, '/oauth/account/apps', staff);
    expect(first.body).toContain('An admin approved your request for Gradebook Sync');
    const second = await browser.follow('/oauth/account/apps');
    expect(second.body).not.toContain('An admin approved your request');
  });
});

describe('deny and expiry', () => {
  it('a denial (school-auth approvals deny) is told to the person with its note', async () => {
    const staff = await staffMember('Dora');
    const browser = new FormBrowser(auth.issuer);
    const client = await registerClient(auth, { client_name: 'Shop Sync' });
    const { page } = await consentPage(browser, client, 'openid orders:read', staff);
    expect((await askAdmin(browser, page)).searchParams.get('error')).toBe('access_denied');
    const request = (await auth.running.approvals.pending()).find((r) => r.accountId === staff.id)!;
    const run = runSchoolAuth(auth.config, ['approvals', 'deny', request._id, '--note', 'Not for orders']);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: 'denied',
      note: 'Not for orders',
      scopes: ['orders:read'],
    });
    expect(runSchoolAuth(auth.config, ['approvals', 'approve', request._id])).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('That request is denied already.'),
    });
    const apps = await openAccountPage(browser, '/oauth/account/apps', staff);
    expect(apps.body).toContain(
      'An admin denied your request for Shop Sync (orders:read). Their note: “Not for orders”',
    );
    const events = await auth.running.audit.query({ type: 'approval_denied', accountId: staff.id });
    expect(events[0]?.details).toMatchObject({ actor: 'operator', note: 'Not for orders' });
  });

  it('a request past APPROVAL_REQUEST_DAYS is no longer pending and cannot be approved', async () => {
    const staff = await staffMember('Olly');
    const days = auth.config.APPROVAL_REQUEST_DAYS;
    const asked = new Date(Date.now() - (days + 1) * 24 * 3600 * 1000);
    const old = await auth.running.approvals.request(
      {
        accountId: staff.id,
        accountEmail: staff.email,
        clientId: 'old-app',
        clientKind: 'open',
        scopes: ['members:read'],
        duration: 'hour',
      },
      asked,
    );
    expect((await auth.running.approvals.pending()).map((r) => r._id)).not.toContain(old._id);
    const run = runSchoolAuth(auth.config, ['approvals', 'approve', old._id]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('That request is expired already.');
    expect(await auth.running.approvals.adminApprovedScopes(staff.id, 'old-app')).toEqual([]);
  });
});

describe('roles and ceilings', () => {
  const cli = (...args: string[]) => {
    const run = runSchoolAuth(auth.config, args);
    if (run.status !== 0) throw new Error(`school-auth ${args.join(' ')}: ${run.stderr}`);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };

  it('lists the seeded roles: admin any scope, staff the reads but orders and members', () => {
    const roles = cli('roles', 'list') as unknown as { role: string; ceiling: string[] }[];
    const admin = roles.find((r) => r.role === 'admin')!;
    const staff = roles.find((r) => r.role === 'staff')!;
    expect(admin.ceiling).toEqual(['*']);
    expect(staff.ceiling).toContain('courses:read');
    expect(staff.ceiling).toContain('students:read');
    expect(staff.ceiling).not.toContain('orders:read');
    expect(staff.ceiling).not.toContain('members:read');
    expect(staff.ceiling.filter((s) => !s.endsWith(':read'))).toEqual([]);
  });

  it('lowering a ceiling narrows a live grant: its access token ends, its refresh gets the rest', async () => {
    const teacher = await staffMember('Tess');
    const created = cli(
      'roles',
      'create',
      'teacher',
      '--label',
      'Teacher',
      '--scopes',
      'school:read',
      'courses:read',
    );
    expect(created.role).toBe('teacher');
    expect((created.ceiling as string[]).sort()).toEqual(['courses:read', 'school:read']);
    expect(cli('accounts', 'set-role', teacher.email, 'teacher')).toMatchObject({
      role: 'teacher',
      role_before: 'staff',
    });
    const refused = runSchoolAuth(auth.config, ['accounts', 'set-role', teacher.email, 'ghost']);
    expect([refused.status, refused.stderr.trim()]).toEqual([1, 'school-auth: There is no role ghost.']);

    const client = await registerClient(auth, { client_name: 'Course Planner' });
    const tokens = (await flow.signIn(auth, client, {
      scope: 'openid courses:read school:read',
      account: teacher,
    })) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid', 'school:read']);
    expect(await isActive(auth, tokens.access_token)).toBe(true);

    const lowered = cli('roles', 'set-ceiling', 'teacher', 'school:read');
    expect(lowered).toMatchObject({ removed: ['courses:read'], grants_narrowed: 1 });
    expect(lowered.tokens_ended).toBeGreaterThanOrEqual(1);
    await expectNarrowed(client, tokens, ['openid', 'school:read']);
    const narrowed = await auth.running.audit.query({ type: 'grant_narrowed', accountId: teacher.id });
    expect(narrowed[0]?.details).toMatchObject({ reason: 'ceiling', dropped: 'courses:read' });

    const held = runSchoolAuth(auth.config, ['roles', 'delete', 'teacher']);
    expect([held.status, held.stderr]).toEqual([
      1,
      expect.stringContaining('One account holds the role teacher'),
    ]);
    cli('accounts', 'set-role', teacher.email, 'staff');
    expect(cli('roles', 'delete', 'teacher')).toEqual({ role: 'teacher', removed: true });
    const admin = runSchoolAuth(auth.config, ['roles', 'delete', 'admin']);
    expect([admin.status, admin.stderr.trim()]).toEqual([
      1,
      'school-auth: The admin role cannot be removed.',
    ]);
  });

  it('accounts demote narrows the apps an admin allowed to the staff ceiling, as set-role does', async () => {
    const ari = await staffMember('Ari');
    expect(cli('accounts', 'promote', ari.email)).toMatchObject({ role: 'admin' });
    const client = await registerClient(auth, { client_name: 'Register Writer' });
    const tokens = (await flow.signIn(auth, client, {
      scope: 'openid courses:read students:write',
      account: ari,
      approve: ['courses:read', 'students:write'],
    })) as { access_token: string; refresh_token: string; scope: string };
    expect(tokens.scope.split(' ').sort()).toEqual(['courses:read', 'openid', 'students:write']);
    expect(await isActive(auth, tokens.access_token)).toBe(true);

    const demoted = cli('accounts', 'demote', ari.email);
    expect(demoted).toMatchObject({ role: 'staff', grants_narrowed: 1 });
    expect(demoted.tokens_ended).toBeGreaterThanOrEqual(1);
    await expectNarrowed(client, tokens, ['courses:read', 'openid']);
    const [changed] = await auth.running.audit.query({ type: 'role_changed', accountId: ari.id });
    expect(changed?.details).toMatchObject({ actor: 'operator', role: 'staff', before: 'admin' });
    const [narrowed] = await auth.running.audit.query({ type: 'grant_narrowed', accountId: ari.id });
    expect(narrowed?.details).toMatchObject({
      actor: 'operator',
      reason: 'ceiling',
      dropped: 'students:write',
    });
  });

  it('changes a ceiling on the Roles page (admins only, redirect after the POST, audited)', async () => {
    const staff = await staffMember('Pia');
    const denied = await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/roles', staff);
    expect(denied.status).toBe(403);

    const admin = new FormBrowser(auth.issuer);
    let page = await openAccountPage(admin, '/oauth/account/roles', ADMIN);
    expect(page.status).toBe(200);
    page = await admin.submit(page, '/roles/create', { name: 'office', label: 'Office' });
    expect(page.url).toMatch(/\/roles\?done=created$/);
    const card = pieceContaining(page.body, '<section class="card"', '<code>office</code>')!;
    expect(card).toContain('name="scope" value="orders:read"');
    // The office's ceiling form, posted as the page's (the first ceiling form on the page is staff's).
    const saved = await admin.request('/oauth/account/roles/ceiling', {
      form: { csrf: inputValue(page.body, 'csrf')!, role: 'office', scope: ['orders:read', 'coupons:write'] },
    });
    expect([saved.status, saved.location]).toEqual([303, `${auth.issuer}/oauth/account/roles?done=ceiling`]);
    expect((await auth.running.roles.find('office'))?.ceiling.slice().sort()).toEqual([
      'coupons:write',
      'orders:read',
    ]);
    const bad = await admin.request('/oauth/account/roles/ceiling', {
      form: { csrf: inputValue(page.body, 'csrf')!, role: 'office', scope: 'nonsense:read' },
    });
    expect(bad.status).toBe(409);
    expect(bad.body).toContain('No such scope: nonsense:read.');
    const events = await auth.running.audit.query({ type: 'role_ceiling_changed' });
    expect(
      events.some(
        (e) =>
          e.details?.role === 'office' &&
          String(e.details?.added).split(' ').sort().join(' ') === 'coupons:write orders:read',
      ),
    ).toBe(true);
  });
});
