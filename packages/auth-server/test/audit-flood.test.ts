/**
 * The audit log's flood bound cannot be spent to hide guesses at a real account. An attacker at one
 * address fails sign-ins with throwaway emails past the bound of events stored per type, address and
 * minute, then guesses at the admin's password from the same address: that failure is still stored
 * in MongoDB (`audit_events`) and listed by `school-auth activity`, and the throwaway failures past
 * the bound are not forgotten either: they are stored as one summary with their count.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose from 'mongoose';
import {
  ADMIN,
  runSchoolAuth,
  startTestAuthServer,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { formAction, inputValue, openSignInFrom } from '../../../test-support/form-browser.js';

const REDIRECT = 'http://127.0.0.1:40404/cb';
/** The audit log's default bound of events of one type from one address per minute. */
const BOUND = 60;
const THROWAWAY = BOUND + 15;
const ATTACKER = '127.0.0.61';
let auth: TestAuthServer;
let clientId: string;
let db: mongoose.Connection;

beforeAll(async () => {
  // The login guard must let the whole flood reach the password check.
  auth = await startTestAuthServer({ LOGIN_MAX_FAILURES_PER_ADDRESS: '500' });
  db = await mongoose.createConnection(auth.config.MONGODB_URI).asPromise();
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});
afterAll(async () => {
  await db.close();
  await auth.stop();
});

/** One failed sign-in from `from`: a fresh browser starts a flow and posts the login form. */
async function failSignIn(from: string, email: string): Promise<number> {
  const { browser, page } = await openSignInFrom(auth.issuer, { clientId, redirectUri: REDIRECT }, from);
  const answer = await browser.request(formAction(page.body, '/login')!, {
    form: { csrf: inputValue(page.body, 'csrf')!, email, password: 'a guess' },
  });
  return answer.status;
}

describe('a flood of throwaway failures from one address', () => {
  it('does not keep a failed guess at a real account out of the audit log', async () => {
    const statuses = await Promise.all(
      Array.from({ length: THROWAWAY }, (_, i) => failSignIn(ATTACKER, `nobody-${i}@example.test`)),
    );
    expect(statuses).toEqual(Array(THROWAWAY).fill(401));
    expect(await failSignIn(ATTACKER, ADMIN.email)).toBe(401);
    await auth.running.audit.flush();

    const events = db.collection('audit_events');
    const guess = await events
      .find({ type: 'login_failed', ip: ATTACKER, 'details.email': ADMIN.email })
      .toArray();
    expect(guess).toHaveLength(1);
    const admin = await auth.running.accounts.idOf(ADMIN.email);
    expect(guess[0]!.accountId).toBe(admin);

    const run = runSchoolAuth(auth.config, ['activity', '--event', 'login_failed', '--account', ADMIN.email]);
    expect(run.status).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(ADMIN.email);
    expect(lines[0]).toContain(ATTACKER);
  }, 120_000);

  it('stores the failures past the bound as a summary with their count', async () => {
    await auth.running.audit.query(); // stores what is pending, the summaries of open windows too
    const events = db.collection('audit_events');
    const stored = await events.countDocuments({
      type: 'login_failed',
      ip: ATTACKER,
      accountId: { $exists: false },
    });
    expect(stored).toBe(BOUND);
    const summaries = await events.find({ type: 'audit_summary', ip: ATTACKER }).toArray();
    const counted = summaries
      .map((s) => s.details as { type?: string; count?: number } | undefined)
      .filter((d) => d?.type === 'login_failed')
      .reduce((n, d) => n + d!.count!, 0);
    expect(counted).toBe(THROWAWAY - BOUND);

    const run = runSchoolAuth(auth.config, ['activity', '--event', 'audit_summary']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(ATTACKER);
    expect(run.stdout).toContain(`login_failed ×${THROWAWAY - BOUND}`);
  });
});
