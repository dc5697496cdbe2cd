/**
 * The Access register over real HTTP and the real `school-auth`: grants made through real
 * authorizations by several accounts, the export (`grants export`, CSV and JSON) holding exactly those
 * and agreeing with each account's Connected apps page, the CSV as a spreadsheet must get it (RFC 4180
 * quoting, formula cells neutralised, BOM, CRLF), the admins-only page and its download, and the term
 * review's Shorten, End and Keep with their refusals.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, INTROSPECTOR, runSchoolAuth } from '../../../test-support/auth-server.js';
import { registerPage } from '../src/account-pages/access-register.js';
import { accountGrants } from '../src/storage/account-grants.js';
import { shortenGrantTokens } from '../src/storage/grant-shortening.js';
import { grantListKey } from '../src/storage/redis-keys.js';
import {
  forgedPostStatuses,
  FormBrowser,
  inputValue,
  openAccountPage,
  type Page,
} from '../../../test-support/form-browser.js';
import { signIn as flowSignIn, type Account } from '../../../test-support/oauth-flow.js';
import {
  introspect,
  isActive,
  registerClient,
  refreshAs,
  type TestClient,
  type Tokens,
} from './oauth-http.js';

/** The term ends ten days from now (a day in UTC, the default SCHOOL_TIMEZONE). */
const TERM_ENDS = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
/** When access "this term" ends: the first second after the term's last day. */
const TERM_END_SECONDS = Date.parse(`${TERM_ENDS}T23:59:59Z`) / 1000 + 1;

const auth = authServerForFile({ SCHOOL_TERM_ENDS: TERM_ENDS });

const TEACHER: Account = { email: 'teacher@school.test', password: 'a long teacher password 1' };
const OFFICE: Account = { email: 'office@school.test', password: 'a long office password 22' };

/** A name a stranger could register: a spreadsheet formula, with a comma and a quote. */
const FORMULA_NAME = '=HYPERLINK("http://evil.example/?x",  "Click, here")';

/** One row of the JSON export, as far as these tests read it. */
interface ExportRow {
  app: { client_name: string | null; client_id: string; kind: string; domain: string | null };
  account: { account_id: string; email: string; role: string };
  approved_by: string;
  scopes: { category: string; title: string; scopes: string[] }[];
  granted_at: string;
  ends_at?: string;
  last_used_at?: string;
  scope_uses: { scope: string; last_used_at?: string }[];
}

const exportJson = (): ExportRow[] => {
  const run = runSchoolAuth(auth.config, ['grants', 'export', '--format', 'json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as ExportRow[];
};

/** The CSV's records, each a list of cells (RFC 4180: quoted cells, doubled quotes, CRLF records). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let [cells, cell, quoted] = [[] as string[], '', false];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') cell += c;
      else if (text[i + 1] === '"') [cell, i] = [`${cell}"`, i + 1];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') [cells, cell] = [[...cells, cell], ''];
    else if (c === '\r' && text[i + 1] === '\n') {
      records.push([...cells, cell]);
      [cells, cell, i] = [[], '', i + 1];
    } else cell += c;
  }
  return records;
}

/** Each app on `account`'s own Connected apps page: client id → its scopes, sorted. */
async function connectedAppsOf(account: Account): Promise<Map<string, string[]>> {
  const page = await openAccountPage(new FormBrowser(auth.issuer), '/oauth/account/apps', account);
  expect(page.status).toBe(200);
  const apps = new Map<string, string[]>();
  for (const card of page.body.split('<section class="card"').slice(1)) {
    const clientId = /<dd class="ids">\s*<code><bdi>([^<]+)<\/bdi><\/code>/.exec(card)![1]!;
    const scopes = [...card.matchAll(/<td data-label="Scope"><code>([^<]+)<\/code><\/td>/g)].map(
      (m) => m[1]!,
    );
    apps.set(clientId, scopes.sort());
  }
  return apps;
}

/** The register's rows of `email`: client id → scopes, sorted. */
const rowsOf = (rows: ExportRow[], email: string) =>
  new Map(
    rows
      .filter((r) => r.account.email === email)
      .map((r) => [r.app.client_id, r.scopes.flatMap((g) => g.scopes).sort()]),
  );

let planner: TestClient;
let lure: TestClient;
let plannerRefresh: string;
let officeToken: string;
let officeRefresh: string;

beforeAll(async () => {
  // The school office may let an app read orders and write coupons: a role the school added.
  await auth.running.roles.create('office', 'School office', ['orders:read', 'coupons:write']);
  // A teacher reads the members' list of their classes.
  await auth.running.roles.create('teacher', 'Teacher', ['courses:read', 'members:read']);
  await auth.running.accounts.create({ ...TEACHER, name: 'Terry Teacher', role: 'teacher' });
  await auth.running.accounts.create({ ...OFFICE, name: 'Olive Office', role: 'office' });
  planner = await registerClient(auth, { client_name: 'Lesson Planner' });
  lure = await registerClient(auth, { client_name: FORMULA_NAME });
  const signIn = (client: TestClient, account: Account, scope: string) =>
    flowSignIn(auth, client, { account, scope }) as Promise<Tokens>;
  plannerRefresh = (await signIn(planner, ADMIN, 'openid courses:read students:write')).refresh_token;
  const used = await signIn(lure, ADMIN, 'openid orders:read');
  await signIn(planner, TEACHER, 'openid members:read');
  const office = await signIn(lure, OFFICE, 'openid email orders:read coupons:write');
  [officeToken, officeRefresh] = [office.access_token, office.refresh_token];
  // A use the API reports for a scope: the register says when it was last used.
  const report = await introspect(auth, used.access_token, {
    client_id: INTROSPECTOR.clientId,
    client_secret: INTROSPECTOR.clientSecret,
    used_scope: 'orders:read',
  });
  expect(report.status).toBe(200);
});

describe('school-auth grants export', () => {
  it('holds exactly the grants made, one row per account and app, agreeing with each account’s Connected apps', async () => {
    const rows = exportJson();
    expect(rows.map((r) => [r.account.email, r.app.client_id]).sort()).toEqual(
      [
        [ADMIN.email, planner.clientId],
        [ADMIN.email, lure.clientId],
        [TEACHER.email, planner.clientId],
        [OFFICE.email, lure.clientId],
      ].sort(),
    );
    for (const account of [ADMIN, TEACHER, OFFICE])
      expect(rowsOf(rows, account.email)).toEqual(await connectedAppsOf(account));
  });

  it('pages through whole accounts, the pages together holding the export', async () => {
    const deps = { ...auth.running, prefix: auth.config.REDIS_KEY_PREFIX };
    const seen: string[][] = [];
    let after: string | undefined;
    do {
      const page = await registerPage(deps, { after, pageSize: 1 });
      seen.push(page.rows.map((r) => `${r.account.email} ${r.app.clientId}`));
      after = page.next;
    } while (after);
    // Three accounts hold access: a page each, the admin's two apps on one page.
    expect(seen.map((rows) => rows.length)).toEqual([2, 1, 1]);
    expect(seen.flat().sort()).toEqual(
      exportJson()
        .map((r) => `${r.account.email} ${r.app.client_id}`)
        .sort(),
    );
  });

  it('names the app, its kind, the account and role, who approved, the scopes by category and the dates', () => {
    const row = exportJson().find((r) => r.account.email === OFFICE.email)!;
    expect(row.app).toEqual({
      client_id: lure.clientId,
      client_name: FORMULA_NAME,
      kind: 'self-declared',
      domain: null,
    });
    expect(row.account).toMatchObject({ email: OFFICE.email, role: 'office' });
    expect(row.approved_by).toBe('self');
    expect(row.scopes).toEqual([
      { category: 'payments', title: 'Orders and payments', scopes: ['orders:read', 'coupons:write'] },
      { category: 'account', title: 'Sign-in and own account', scopes: ['openid', 'email'] },
    ]);
    // Never used: each scope without a time.
    expect(row.scope_uses).toEqual([{ scope: 'orders:read' }, { scope: 'coupons:write' }]);
    // The admin's grant of the same app: its use of orders:read was reported.
    const used = exportJson().find(
      (r) => r.account.email === ADMIN.email && r.app.client_id === lure.clientId,
    )!;
    const ordersUsed = used.scope_uses.find((u) => u.scope === 'orders:read')!.last_used_at!;
    expect(ordersUsed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(ordersUsed) - Date.now())).toBeLessThan(600_000);
    expect(row.granted_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const granted = Date.parse(row.granted_at);
    expect(Math.abs(granted - Date.now())).toBeLessThan(600_000);
    // Allowed "until I take it back": the grant's lifetime, a year.
    expect(Date.parse(row.ends_at!) - granted).toBeGreaterThan(360 * 86_400_000);
  });

  it('writes a CSV a spreadsheet opens as it is: BOM, header, CRLF, quoting, and no formula from an app’s name', () => {
    const run = runSchoolAuth(auth.config, ['grants', 'export', '--format', 'csv']);
    expect(run.status).toBe(0);
    expect(run.stdout.startsWith('\uFEFFApp,Client ID,Kind,Domain,Account,Role,Approved by,')).toBe(true);
    expect(run.stdout.endsWith('\r\n')).toBe(true);
    const [header, ...records] = parseCsv(run.stdout.slice(1));
    // The headings, between bars (one of them holds a comma).
    const columns = `App | Client ID | Kind | Domain | Account | Role | Approved by
      | Students’ records | Members, staff and visitors | Orders and payments | School content
      | Sign-in and own account | Granted at (UTC) | Ends (UTC) | Last used (UTC) | Last used per scope (UTC)`;
    expect(header).toEqual(columns.split('|').map((c) => c.trim()));
    expect(records).toHaveLength(4);
    for (const record of records) expect(record).toHaveLength(header!.length);
    const office = records.find((r) => r[4] === OFFICE.email)!;
    // The name, whole, behind a quote mark that makes a spreadsheet show it as text.
    expect(office[0]).toBe(`'${FORMULA_NAME}`);
    expect(office.slice(1, 7)).toEqual([lure.clientId, 'self-declared', '', OFFICE.email, 'office', 'self']);
    expect(office[9]).toBe('orders:read coupons:write');
    expect(office[11]).toBe('openid email');
    expect(office[12]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(office[15]).toBe('orders:read never; coupons:write never');
    const teacher = records.find((r) => r[4] === TEACHER.email)!;
    expect([teacher[0], teacher[8]]).toEqual(['Lesson Planner', 'members:read']);
    // No cell of any record starts as a formula would.
    for (const cell of records.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });
});

describe('the Access register page', () => {
  it('is for admins only', async () => {
    for (const path of ['/oauth/account/register', '/oauth/account/register/export?format=csv']) {
      const page = await openAccountPage(new FormBrowser(auth.issuer), path, TEACHER);
      expect(page.status).toBe(403);
    }
  });

  it('lists every row of the export, and downloads the very file the command writes', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/register', ADMIN);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1>Access register</h1>');
    for (const row of exportJson()) {
      const cell = page.body
        .split('<tr>')
        .find(
          (r) => r.includes(`Client id <bdi>${row.app.client_id}</bdi>`) && r.includes(row.account.email),
        );
      expect(cell).toBeDefined();
      for (const group of row.scopes) expect(cell).toContain(`<p class="group">${group.title}</p>`);
    }
    const csv = await browser.request('/oauth/account/register/export?format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(csv.headers.get('content-disposition')).toContain('access-register.csv');
    const cli = runSchoolAuth(auth.config, ['grants', 'export', '--format', 'csv']).stdout;
    // fetch drops a leading BOM when it decodes; the bytes after it are the command's.
    expect(csv.body).toBe(cli.slice(1));
  });
});

describe('the term review', () => {
  const REVIEW = '/oauth/account/term-review';
  const valueOf = (email: string, clientId: string, rows = exportJson()) =>
    `${rows.find((r) => r.account.email === email && r.app.client_id === clientId)!.account.account_id} ${clientId}`;
  const apply = (browser: FormBrowser, page: Page, action: string, grants: string[]) =>
    browser.request(REVIEW, {
      form: [
        ['csrf', inputValue(page.body, 'csrf')!],
        ['action', action],
        ...grants.map((g): [string, string] => ['grant', g]),
      ],
    });

  it('lists the access that outlives the term, and refuses a forged or empty form', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, REVIEW, ADMIN);
    expect(page.status).toBe(200);
    expect(page.body.match(/<input\s+type="checkbox"/g)).toHaveLength(4);
    const grant = valueOf(TEACHER.email, planner.clientId);
    expect(
      await forgedPostStatuses(browser, REVIEW, { action: 'end', grant }, inputValue(page.body, 'csrf')!),
    ).toEqual([403, 403]);
    const empty = await apply(browser, page, 'end', []);
    expect(empty.status).toBe(400);
    expect(empty.body).toContain('Select at least one');
    expect(rowsOf(exportJson(), TEACHER.email).size).toBe(1);
  });

  it('shortens the selected access to the term’s end: the grant, its refresh token, and the tokens refreshed from it', async () => {
    const before = await introspect(auth, plannerRefresh);
    expect(before.body?.exp as number).toBeGreaterThan(TERM_END_SECONDS);
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, REVIEW, ADMIN);
    const done = await apply(browser, page, 'shorten', [valueOf(ADMIN.email, planner.clientId)]);
    expect(done.status).toBe(303);
    const after = await browser.follow(done.location!);
    expect(after.body).toContain('Shortened: 1 app’s access.');

    const row = exportJson().find(
      (r) => r.account.email === ADMIN.email && r.app.client_id === planner.clientId,
    )!;
    expect(Date.parse(row.ends_at!) / 1000).toBe(TERM_END_SECONDS);
    expect((await introspect(auth, plannerRefresh)).body?.exp).toBe(TERM_END_SECONDS);
    const refreshed = await refreshAs(auth, planner.clientId, plannerRefresh);
    expect(refreshed.status).toBe(200);
    const next = refreshed.body as { refresh_token: string };
    expect((await introspect(auth, next.refresh_token)).body?.exp as number).toBeLessThanOrEqual(
      TERM_END_SECONDS,
    );
    // It no longer outlives the term; the others are still listed.
    expect(after.body.match(/<input\s+type="checkbox"/g)).toHaveLength(3);
    const [event] = await auth.running.audit.query({ type: 'grant_shortened', clientId: planner.clientId });
    expect(event?.details).toMatchObject({ grants: 1, refreshTokens: 1 });
  });

  it('ends the selected access at once, and keeps the rest, recording the decision', async () => {
    const browser = new FormBrowser(auth.issuer);
    let page = await openAccountPage(browser, REVIEW, ADMIN);
    const ended = await apply(browser, page, 'end', [valueOf(OFFICE.email, lure.clientId)]);
    expect(ended.status).toBe(303);
    await expect(isActive(auth, officeToken)).resolves.toBe(false);
    const refresh = await refreshAs(auth, lure.clientId, officeRefresh);
    expect(refresh.status).toBe(400);
    expect(await connectedAppsOf(OFFICE)).toEqual(new Map());
    const [revoked] = await auth.running.audit.query({ type: 'grant_revoked', clientId: lure.clientId });
    expect(revoked?.details).toMatchObject({ by: 'admin', review: 'term', grants: 1 });

    page = await browser.follow(ended.location!);
    expect(page.body).toContain('Ended: 1 app’s access.');
    const teacher = valueOf(TEACHER.email, planner.clientId);
    const before = exportJson().find((r) => r.account.email === TEACHER.email)!;
    const kept = await apply(browser, page, 'keep', [teacher]);
    expect(kept.status).toBe(303);
    expect(exportJson().find((r) => r.account.email === TEACHER.email)).toEqual(before);
    const [event] = await auth.running.audit.query({ type: 'grant_kept', clientId: planner.clientId });
    expect(Date.parse(event?.details?.ends as string)).toBe(Date.parse(before.ends_at!));
  });

  it('announces only what this session did, never what a link says', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, `${REVIEW}?done=end:99&proof=forged`, ADMIN);
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('Ended');
  });
});

describe('shortening a grant’s tokens (storage/grant-shortening.ts)', () => {
  it('gives its access and refresh tokens that outlive the new end that end, in Redis and to introspection', async () => {
    const client = await registerClient(auth, { client_name: 'Short Lived' });
    const tokens = (await flowSignIn(auth, client, {
      account: TEACHER,
      scope: 'openid courses:read',
    })) as Tokens;
    const { redis } = auth.running;
    const prefix = auth.config.REDIS_KEY_PREFIX;
    const teacherId = (await auth.running.accounts.idOf(TEACHER.email))!;
    const [held] = (await accountGrants(redis, prefix, teacherId)).filter(
      (g) => g.clientId === client.clientId,
    );
    const endsAt = Math.floor(Date.now() / 1000) + 120; // sooner than the access token's hour
    expect(await shortenGrantTokens(redis, prefix, held!.grantId, endsAt)).toEqual({
      accessTokens: 1,
      refreshTokens: 1,
    });
    for (const token of [tokens.access_token, tokens.refresh_token])
      expect((await introspect(auth, token)).body).toMatchObject({ active: true, exp: endsAt });
    // Redis forgets them then (with the adapter's 15 s of clock tolerance).
    const keys = await redis.lrange(grantListKey(prefix, held!.grantId), 0, -1);
    const ttls = await Promise.all(keys.map((k) => redis.ttl(k)));
    for (const ttl of ttls.filter((t) => t > 0)) expect(ttl).toBeLessThanOrEqual(135);
  });
});
