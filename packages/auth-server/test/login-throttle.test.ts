/**
 * Login brute force without a lockout. An attacker who knows the admin's email
 * keeps failing from one or several addresses (real source addresses in 127.0.0.0/8, which the
 * in-process server sees as `ctx.ip`): the attacker's addresses are slowed and then refused, the
 * account itself only ever gets a small bounded delay, the owner signing in from another address with
 * the right password gets in within seconds, and the audit log names the attack and its addresses.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import {
  formAction,
  FormBrowser,
  inputValue,
  openAccountPage,
  openSignInFrom,
  type Page,
} from '../../../test-support/form-browser.js';

const REDIRECT = 'http://127.0.0.1:40404/cb';
const PER_PAIR = 5;
const PER_ADDRESS = 12;
const ACCOUNT_DELAY_AFTER = 6;
const ACCOUNT_DELAY_MS = 1000;
let clientId: string;

const auth = authServerForFile({
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: String(PER_PAIR),
  LOGIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  LOGIN_ACCOUNT_DELAY_AFTER: String(ACCOUNT_DELAY_AFTER),
  LOGIN_ACCOUNT_DELAY_MS: String(ACCOUNT_DELAY_MS),
});
beforeAll(async () => {
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});

/** A fresh browser at `from` on the sign-in page of a new flow. */
const openSignIn = (from: string) => openSignInFrom(auth.issuer, { clientId, redirectUri: REDIRECT }, from);

/** Posts the sign-in form of `page`. */
function postSignIn(
  { browser, page }: { browser: FormBrowser; page: Page },
  email: string,
  password: string,
) {
  return browser.request(formAction(page.body, '/login')!, {
    form: { csrf: inputValue(page.body, 'csrf')!, email, password },
  });
}

/** One sign-in attempt from `from`: a fresh browser starts a flow and posts the login form. */
async function attempt(from: string, email: string, password: string): Promise<Page & { ms: number }> {
  const flow = await openSignIn(from);
  const started = Date.now();
  const answer = await postSignIn(flow, email, password);
  return { ...answer, ms: Date.now() - started };
}

/** Fails `times` times for `email` from `from`, one after the other; returns the statuses. */
async function failRepeatedly(from: string, email: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await attempt(from, email, `wrong-${i}`)).status);
  return statuses;
}

/** Signed in: the form answers with the redirect that resumes the authorization. */
const signedIn = (page: Page) => page.status === 303 && /\/oauth\/authorize\//.test(page.location ?? '');

describe('an attack on the admin’s email', () => {
  const attackers = ['127.0.0.21', '127.0.0.22', '127.0.0.23'];

  it('lets the owner sign in from another address within seconds while the attack runs', async () => {
    // The attack: each address fails until it is refused, then keeps hammering during the owner's
    // sign-in.
    const first = await Promise.all(attackers.map((a) => failRepeatedly(a, ADMIN.email, PER_PAIR)));
    const ongoing = Promise.all(attackers.map((a) => failRepeatedly(a, ADMIN.email, 3)));
    const owner = await attempt('127.0.0.30', ADMIN.email, ADMIN.password);
    expect({ status: owner.status, signedIn: signedIn(owner) }).toEqual({ status: 303, signedIn: true });
    expect(owner.ms).toBeLessThan(5000); // the account-wide delay (1 s) at most, never a refusal
    // Meanwhile each attacking address failed until its limit, and was refused from then on.
    for (const statuses of first) expect(statuses).toEqual(Array(PER_PAIR).fill(401));
    for (const statuses of await ongoing) expect(statuses).toEqual([429, 429, 429]);
  }, 60_000);

  it('records the attack once in the audit log, with the addresses the failures came from', async () => {
    const events = await auth.running.audit.query({ type: 'login_attack_suspected' });
    const mine = events.filter((e) => e.details?.email === ADMIN.email);
    expect(mine).toHaveLength(1);
    const details = mine[0]!.details as {
      failures: number;
      windowSeconds: number;
      addresses: Array<{ address: string; failures: number }>;
    };
    expect(details.failures).toBe(ACCOUNT_DELAY_AFTER);
    expect(details.windowSeconds).toBe(900);
    const seen = details.addresses.map((a) => a.address);
    expect(seen.length).toBeGreaterThan(0);
    for (const a of seen) expect(attackers).toContain(a);
    expect(details.addresses.reduce((n, a) => n + a.failures, 0)).toBeGreaterThanOrEqual(ACCOUNT_DELAY_AFTER);
    // Every failure and every refusal is there too, each with the address the server saw.
    const failed = await auth.running.audit.query({ type: 'login_failed', limit: 1000 });
    const from = new Set(failed.filter((e) => e.details?.email === ADMIN.email).map((e) => e.ip));
    expect([...from].sort()).toEqual(attackers);
    const refused = await auth.running.audit.query({ type: 'login_locked', limit: 1000 });
    expect(refused.filter((e) => e.details?.email === ADMIN.email).length).toBeGreaterThanOrEqual(9);
  });
});

describe('the limits', () => {
  it('refuses one address for one email after its failures, also with the right password, with Retry-After', async () => {
    const email = 'pair@school.test';
    expect(await failRepeatedly('127.0.0.41', email, PER_PAIR)).toEqual(Array(PER_PAIR).fill(401));
    const refused = await attempt('127.0.0.41', email, 'anything');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many failed sign-ins');
    // The same email from another address is still asked for its password.
    expect((await attempt('127.0.0.42', email, 'nope')).status).toBe(401);
  }, 60_000);

  it('refuses the admin from the attacking address even with the right password', async () => {
    expect(await failRepeatedly('127.0.0.43', ADMIN.email, PER_PAIR)).toEqual(Array(PER_PAIR).fill(401));
    expect((await attempt('127.0.0.43', ADMIN.email, ADMIN.password)).status).toBe(429);
  }, 60_000);

  it('refuses an address that fails for many emails, whichever email it tries next', async () => {
    const from = '127.0.0.51';
    for (let i = 0; i < PER_ADDRESS; i++)
      expect((await attempt(from, `spray-${i}@school.test`, 'Winter2026!')).status).toBe(401);
    const refused = await attempt(from, 'spray-new@school.test', 'Winter2026!');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt('127.0.0.52', 'spray-new@school.test', 'Winter2026!')).status).toBe(401);
  }, 60_000);

  it('only delays an attacked account (bounded), never refuses it, and treats unknown emails alike', async () => {
    for (const email of ['delayed@school.test', ADMIN.email.replace('admin', 'ghost')]) {
      for (let i = 0; i < ACCOUNT_DELAY_AFTER; i++)
        expect((await attempt(`127.0.0.${60 + i}`, email, 'nope')).status).toBe(401);
      const next = await attempt('127.0.0.70', email, 'nope');
      expect(next.status).toBe(401);
      expect(next.body).toContain('The email or password is not right.');
      expect(next.ms).toBeGreaterThanOrEqual(ACCOUNT_DELAY_MS - 50);
      expect(next.ms).toBeLessThan(ACCOUNT_DELAY_MS + 4000);
    }
  }, 60_000);
});

/** How many of `pages` have each status. */
function tally(pages: Page[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of pages) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The login_failed events stored for address `ip`. */
async function failuresFrom(ip: string) {
  const failed = await auth.running.audit.query({ type: 'login_failed', limit: 1000 });
  return failed.filter((e) => e.ip === ip);
}

describe('concurrent attempts', () => {
  // Every sign-in page is opened first; then all the forms are posted at once, so the throttle
  // sees them together. Only as many as the limit may reach the password check (401); the rest are
  // refused before it (429).
  it('lets only the pair’s limit of simultaneous wrong passwords for one email from one address be checked', async () => {
    const from = '127.0.0.81';
    const email = 'together@school.test';
    const flows = await Promise.all(Array.from({ length: 30 }, () => openSignIn(from)));
    const answers = await Promise.all(flows.map((f, i) => postSignIn(f, email, `wrong-${i}`)));
    expect(tally(answers)).toEqual({ 401: PER_PAIR, 429: 30 - PER_PAIR });
    expect(await failuresFrom(from)).toHaveLength(PER_PAIR);
  }, 60_000);

  it('lets only the address’s limit of simultaneous wrong passwords for many emails be checked', async () => {
    const from = '127.0.0.82';
    const flows = await Promise.all(Array.from({ length: 40 }, () => openSignIn(from)));
    const answers = await Promise.all(
      flows.map((f, i) => postSignIn(f, `many-${i}@school.test`, 'Spring2026!')),
    );
    expect(tally(answers)).toEqual({ 401: PER_ADDRESS, 429: 40 - PER_ADDRESS });
    expect(await failuresFrom(from)).toHaveLength(PER_ADDRESS);
  }, 60_000);

  it('lets only the pair’s limit of simultaneous wrong current passwords on Change password be checked', async () => {
    const from = '127.0.0.83';
    const person = { email: 'changer@school.test', password: 'changer password 0123' };
    const { _id } = await auth.running.accounts.create({ ...person, name: 'Cam Changer' });
    const browser = new FormBrowser(auth.issuer, { localAddress: from });
    const page = await openAccountPage(browser, '/oauth/account/account', person);
    expect(page.status).toBe(200);
    const action = formAction(page.body, '/account/password')!;
    const csrf = inputValue(page.body, 'csrf')!;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        browser.request(action, {
          form: {
            csrf,
            current: `wrong current ${i}`,
            password: 'a new password 4567',
            confirm: 'a new password 4567',
          },
        }),
      ),
    );
    expect(tally(answers)).toEqual({ 401: PER_PAIR, 429: 20 - PER_PAIR });
    const failed = await auth.running.audit.query({ type: 'login_failed', accountId: _id, limit: 1000 });
    expect(failed).toHaveLength(PER_PAIR);
    // The right password from that address is refused too until the window ends.
    const right = await browser.request(action, {
      form: {
        csrf,
        current: person.password,
        password: 'a new password 4567',
        confirm: 'a new password 4567',
      },
    });
    expect(right.status).toBe(429);
  }, 60_000);

  it('reports an attack of simultaneous failures from many addresses once, and delays the account after it', async () => {
    const email = 'crowd@school.test';
    const flows = await Promise.all(
      Array.from({ length: 2 * ACCOUNT_DELAY_AFTER }, (_, i) => openSignIn(`127.0.0.${100 + i}`)),
    );
    const answers = await Promise.all(flows.map((f, i) => postSignIn(f, email, `wrong-${i}`)));
    expect(tally(answers)).toEqual({ 401: 2 * ACCOUNT_DELAY_AFTER });
    const reports = await auth.running.audit.query({ type: 'login_attack_suspected', limit: 1000 });
    expect(reports.filter((e) => e.details?.email === email)).toHaveLength(1);
    const next = await attempt('127.0.0.130', email, 'nope');
    expect(next.status).toBe(401);
    expect(next.ms).toBeGreaterThanOrEqual(ACCOUNT_DELAY_MS - 50);
  }, 60_000);

  it('gives the address its attempt back when the password is right', async () => {
    const from = '127.0.0.84';
    const person = { email: 'regular@school.test', password: 'regular password 0123' };
    await auth.running.accounts.create({ ...person, name: 'Reg Ular' });
    // More right passwords than the address's limit, one after the other: none is counted.
    for (let i = 0; i < PER_ADDRESS + 2; i++)
      expect(signedIn(await attempt(from, person.email, person.password))).toBe(true);
    // So the address still has all its failures to spend.
    const flows = await Promise.all(Array.from({ length: PER_ADDRESS + 4 }, () => openSignIn(from)));
    const answers = await Promise.all(flows.map((f, i) => postSignIn(f, `other-${i}@school.test`, 'nope')));
    expect(tally(answers)).toEqual({ 401: PER_ADDRESS, 429: 4 });
  }, 60_000);
});
