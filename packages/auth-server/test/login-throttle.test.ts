/**
 * Login brute force without a lockout. An attacker who knows the admin's email
 * keeps failing from one or several addresses (real source addresses in 127.0.0.0/8, which the
 * in-process server sees as `ctx.ip`): the attacker's addresses are slowed and then refused, the
 * account itself only ever gets a small bounded delay, the owner signing in from another address with
 * the right password gets in within seconds, and the audit log names the attack and its addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { ADMIN, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { FormBrowser, formAction, inputValue, type Page } from '../../../test-support/form-browser.js';

const REDIRECT = 'http://127.0.0.1:40404/cb';
const PER_PAIR = 5;
const PER_ADDRESS = 12;
const ACCOUNT_DELAY_AFTER = 6;
const ACCOUNT_DELAY_MS = 1000;
let auth: TestAuthServer;
let clientId: string;

beforeAll(async () => {
  auth = await startTestAuthServer({
    LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: String(PER_PAIR),
    LOGIN_MAX_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
    LOGIN_ACCOUNT_DELAY_AFTER: String(ACCOUNT_DELAY_AFTER),
    LOGIN_ACCOUNT_DELAY_MS: String(ACCOUNT_DELAY_MS),
  });
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});
afterAll(() => auth.stop());

/** One sign-in attempt from `from`: a fresh browser starts a flow and posts the login form. */
async function attempt(from: string, email: string, password: string): Promise<Page & { ms: number }> {
  const browser = new FormBrowser(auth.issuer, { localAddress: from });
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const page = await browser.follow(`${auth.issuer}/oauth/authorize?${q}`);
  const started = Date.now();
  const answer = await browser.request(formAction(page.body, '/login')!, {
    form: { csrf: inputValue(page.body, 'csrf')!, email, password },
  });
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
