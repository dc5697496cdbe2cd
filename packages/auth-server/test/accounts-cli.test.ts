/**
 * `school-auth accounts …` (everything the Staff accounts page does, for operators and
 * scripts), run as a separate process on a test server's storage: list, create-staff (generated or
 * from stdin), unlock, reset-password, password-sign-in (refused for an account with no other way
 * in), passkeys (list, remove one or all), disable, enable, remove, promote, demote; each audited with
 * the actor `operator`, and each visible to the running server at once (the new
 * person signs in, the unlocked one too, the reset one's session ends).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import { FormBrowser, openAccountPage } from '../../../test-support/form-browser.js';

/** Three wrong passwords of one account from one address lock that pair (the server and the command). */
const LIMITS = { LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '3' };
const auth = authServerForFile(LIMITS);

/** Runs `school-auth accounts …` with the server's limits. */
const run = (args: string[], input?: string) =>
  runSchoolAuth(auth.config, ['accounts', ...args], { input, env: LIMITS });

/** Runs `school-auth accounts …`; returns its JSON, failing the test when it exits non-zero. */
function accounts(args: string[], input?: string): Record<string, unknown> {
  const done = run(args, input);
  if (done.status !== 0)
    throw new Error(`school-auth accounts ${args.join(' ')} exited ${done.status}: ${done.stderr}`);
  return JSON.parse(done.stdout) as Record<string, unknown>;
}

const newEmail = () => `staff-${randomBytes(4).toString('hex')}@school.test`;

/** Stores a passkey named `name` for `accountId` (a key no authenticator holds); returns its id. */
async function addPasskey(accountId: string, name: string): Promise<string> {
  const id = `cli-${randomBytes(8).toString('hex')}`;
  const key = { accountId, publicKey: 'AQID', counter: 0, transports: ['internal'], name };
  expect(await auth.running.passkeys.store.add({ _id: id, ...key })).toBe(true);
  return id;
}

/** The status of a fresh sign-in to the account pages (200: signed in; 401: refused; 429: locked). */
async function trySignIn(
  email: string,
  password: string,
  browser = new FormBrowser(auth.issuer),
): Promise<number> {
  return (await openAccountPage(browser, '/oauth/account/apps', { email, password })).status;
}

describe('school-auth accounts', () => {
  it('create-staff makes a staff account with a generated password printed once, who can sign in at once', async () => {
    const email = newEmail();
    const out = accounts(['create-staff', '--email', email, '--name', 'Sam Staff']);
    expect(out).toMatchObject({ email, role: 'staff', password_generated: true });
    expect(await trySignIn(email, out.password as string)).toBe(200);
    const [event] = await auth.running.audit.query({
      type: 'account_created',
      accountId: out.account_id as string,
    });
    expect(event?.details).toMatchObject({ actor: 'operator', email, passwordGenerated: true });
  });

  it('create-staff --password-stdin takes the password from stdin under the one password rule', async () => {
    const email = newEmail();
    const short = run(['create-staff', '--email', email, '--name', 'S', '--password-stdin'], 'short\n');
    expect(short.status).toBe(1);
    expect(short.stderr).toContain('12+ characters');
    const out = accounts(
      ['create-staff', '--email', email, '--name', 'S', '--password-stdin'],
      'a stdin password\n',
    );
    expect(out.password).toBeUndefined();
    expect(await trySignIn(email, 'a stdin password')).toBe(200);
    const again = run(['create-staff', '--email', email, '--name', 'S']);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('exists already');
  });

  it('list shows every account with its role and lock state', () => {
    const list = accounts(['list']) as unknown as Array<Record<string, unknown>>;
    expect(list.find((a) => a.email === ADMIN.email)).toMatchObject({
      role: 'admin',
      name: ADMIN.name,
      locked_from: [],
      created_at: expect.any(String),
    });
  });

  it('list needs no cookie keys: it runs outside the test suites with none set', () => {
    const noSecrets = { ...LIMITS, NODE_ENV: 'development', COOKIE_SECRETS: '' };
    const listed = runSchoolAuth(auth.config, ['accounts', 'list'], { env: noSecrets });
    expect({ status: listed.status, stderr: listed.stderr }).toEqual({ status: 0, stderr: '' });
    const list = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(list.find((a) => a.email === ADMIN.email)).toMatchObject({ role: 'admin' });
    // A command that signs or checks with the keys still refuses to start without them, saying which.
    const unlock = runSchoolAuth(auth.config, ['accounts', 'unlock', ADMIN.email], { env: noSecrets });
    expect(unlock.status).toBe(1);
    expect(unlock.stdout).toBe('');
    expect(unlock.stderr).toContain('COOKIE_SECRETS: is required unless NODE_ENV=test');
  });

  it('unlock lets a locked account sign in again at once', async () => {
    const email = newEmail();
    const password = 'the right password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Locked Out' });
    for (let i = 0; i < 3; i++) expect(await trySignIn(email, 'a wrong password')).toBe(401);
    expect(await trySignIn(email, password)).toBe(429);
    const listed = (accounts(['list']) as unknown as Array<Record<string, unknown>>).find(
      (a) => a.email === email,
    );
    expect(listed?.locked_from).toHaveLength(1);
    expect(accounts(['unlock', email])).toMatchObject({ account_id: _id, unlocked: { failures: 3 } });
    expect(await trySignIn(email, password)).toBe(200);
    const [event] = await auth.running.audit.query({ type: 'account_unlocked', accountId: _id });
    expect(event?.details).toMatchObject({ actor: 'operator' });
  });

  it('reset-password prints a new password once and ends the account’s sessions', async () => {
    const email = newEmail();
    const old = 'the old password';
    const { _id } = await auth.running.accounts.create({ email, password: old, name: 'Forgetful' });
    const theirs = new FormBrowser(auth.issuer);
    expect(await trySignIn(email, old, theirs)).toBe(200);
    const out = accounts(['reset-password', email]);
    expect(out).toMatchObject({ account_id: _id, sessions_ended: 1 });
    expect((await theirs.request('/oauth/account/apps')).status).toBe(303);
    expect(await trySignIn(email, old)).toBe(401);
    expect(await trySignIn(email, out.password as string)).toBe(200);
    const [event] = await auth.running.audit.query({ type: 'password_reset', accountId: _id });
    expect(event?.details).toEqual({ actor: 'operator', sessionsEnded: 1 });
  });

  it('says so, exiting 1, for an email without an account, and prints the usage for a missing argument', () => {
    const none = run(['unlock', 'nobody@school.test']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('There is no account with the email nobody@school.test.');
    const usage = run(['create-staff', '--email', newEmail()]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('school-auth accounts create-staff');
  });

  it('never leaves the school without an enabled admin: the last one cannot be demoted, disabled or removed', async () => {
    for (const change of ['demote', 'disable', 'remove']) {
      const refused = run([change, ADMIN.email]);
      expect({ change, status: refused.status }).toEqual({ change, status: 1 });
      expect(refused.stderr.trim()).toBe(
        `school-auth: ${ADMIN.email} is the school’s last enabled admin: make another account an admin first.`,
      );
    }
    expect(await trySignIn(ADMIN.email, ADMIN.password)).toBe(200);
    const adminId = (await auth.running.accounts.idOf(ADMIN.email))!;
    expect(await auth.running.audit.query({ type: 'role_changed', accountId: adminId })).toEqual([]);
  }, 120_000); // three runs of the command, each a process of its own

  it('password-sign-in switches an account’s password sign-in off and on, shown by list', async () => {
    const email = newEmail();
    const password = 'a staff password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Pat Passkey' });
    await addPasskey(_id, 'Laptop'); // another way in, so the password may be switched off
    const listed = () =>
      (accounts(['list']) as unknown as Array<Record<string, unknown>>).find((a) => a.email === email);

    expect(accounts(['password-sign-in', email, 'off'])).toMatchObject({ password_sign_in: 'off' });
    expect(listed()).toMatchObject({ password_sign_in: 'off' });
    expect(await trySignIn(email, password)).toBe(403);
    expect(accounts(['password-sign-in', email, 'on'])).toMatchObject({ password_sign_in: 'on' });
    expect(listed()).toMatchObject({ password_sign_in: 'on' });
    expect(await trySignIn(email, password)).toBe(200);

    const wrong = run(['password-sign-in', email, 'maybe']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('maybe');
    const events = await auth.running.audit.query({ accountId: _id, limit: 20 });
    const switched = events.filter((e) => e.type === 'password_sign_in_switched');
    expect(switched.map((e) => e.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: 'operator', password_sign_in: 'off' }),
        expect.objectContaining({ actor: 'operator', password_sign_in: 'on' }),
      ]),
    );
  }, 120_000);

  it('password-sign-in off is refused for an account with no passkey and no recovery code, which keeps signing in', async () => {
    const email = newEmail();
    const password = 'a staff password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Only Password' });
    const refused = run(['password-sign-in', email, 'off']);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `school-auth: ${email}: Password sign-in stays on: the account has no passkey and no recovery code, so it could not sign in at all. It adds a passkey first.`,
    );
    expect(await auth.running.accounts.passwordSwitchedOff(_id)).toBe(false);
    expect(await trySignIn(email, password)).toBe(200);
    const events = await auth.running.audit.query({ accountId: _id, type: 'password_sign_in_switched' });
    expect(events).toEqual([]);
  });

  it('passkeys lists an account’s passkeys and codes, and removes one or all, ending its sessions, audited', async () => {
    const email = newEmail();
    const password = 'a staff password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Kit Keys' });
    const [laptop, phone] = [await addPasskey(_id, 'Laptop'), await addPasskey(_id, 'Phone')];
    await auth.running.passkeys.recoveryCodes.generate(_id);
    const theirs = new FormBrowser(auth.issuer);
    expect(await trySignIn(email, password, theirs)).toBe(200);

    const listed = accounts(['passkeys', email, 'list']);
    expect(listed).toEqual({
      account_id: _id,
      email,
      passkeys: [
        expect.objectContaining({
          passkey_id: laptop,
          name: 'Laptop',
          added_after: 'unrecorded',
        }),
        expect.objectContaining({ passkey_id: phone, name: 'Phone' }),
      ],
      recovery_codes: 10,
    });
    // Never used: the time is left out, not printed as null.
    expect((listed as { passkeys: object[] }).passkeys[0]).not.toHaveProperty('last_used_at');

    expect(accounts(['passkeys', email, 'remove', '--passkey-id', phone])).toMatchObject({
      passkeys_removed: ['Phone'],
      recovery_codes_removed: 0,
      sessions_ended: 1,
    });
    expect((await theirs.request('/oauth/account/apps')).status).toBe(303); // signed out
    const unknown = run(['passkeys', email, 'remove', '--passkey-id', 'no-such-passkey']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain(`${email} has no passkey with the id no-such-passkey.`);

    // With password sign-in off, taking every way in away is refused until it is on again.
    expect(accounts(['password-sign-in', email, 'off'])).toMatchObject({ password_sign_in: 'off' });
    const lockOut = run(['passkeys', email, 'remove']);
    expect(lockOut.status).toBe(1);
    expect(lockOut.stderr).toContain('Password sign-in is off for this account: switch it on first');
    expect(await auth.running.passkeys.store.count(_id)).toBe(1);
    accounts(['password-sign-in', email, 'on']);
    expect(accounts(['passkeys', email, 'remove'])).toMatchObject({
      passkeys_removed: ['Laptop'],
      recovery_codes_removed: 10,
    });
    expect(accounts(['passkeys', email, 'list'])).toMatchObject({ passkeys: [], recovery_codes: 0 });

    const events = await auth.running.audit.query({ accountId: _id, limit: 20 });
    const removed = events.filter((e) => e.type === 'passkey_removed').map((e) => e.details);
    expect(removed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ actor: 'operator', name: 'Phone' }),
        expect.objectContaining({ actor: 'operator', name: 'Laptop' }),
      ]),
    );
    const codes = events.find((e) => e.type === 'recovery_codes_removed');
    expect(codes?.details).toMatchObject({ actor: 'operator', count: 10 });
  }, 180_000); // nine runs of the command, each a process of its own

  it('disable, enable, promote, demote and remove act at once on the running server, audited as the operator’s', async () => {
    const email = newEmail();
    const password = 'a staff password';
    const { _id } = await auth.running.accounts.create({ email, password, name: 'Sam Staff' });
    const theirs = new FormBrowser(auth.issuer);
    expect(await trySignIn(email, password, theirs)).toBe(200);

    expect(accounts(['disable', email])).toMatchObject({ disabled: true, sessions_ended: 1 });
    expect((await theirs.request('/oauth/account/apps')).status).toBe(303);
    expect(await trySignIn(email, password)).toBe(401);
    expect(run(['disable', email]).stderr).toContain(`${email} is disabled already.`);
    expect(accounts(['enable', email])).toMatchObject({ disabled: false });
    expect(await trySignIn(email, password)).toBe(200);

    expect(accounts(['promote', email])).toMatchObject({ role: 'admin' });
    // Another admin exists now, so the seeded one may be demoted, and promoted back.
    expect(accounts(['demote', ADMIN.email])).toMatchObject({ role: 'staff' });
    expect(accounts(['promote', ADMIN.email])).toMatchObject({ role: 'admin' });
    expect(accounts(['demote', email])).toMatchObject({ role: 'staff' });

    // A removed account's passkeys and recovery codes go with it.
    const { passkeys } = auth.running;
    const key = { accountId: _id, publicKey: 'AQID', counter: 0, transports: ['internal'], name: 'Laptop' };
    expect(await passkeys.store.add({ _id: `cli-${randomBytes(8).toString('hex')}`, ...key })).toBe(true);
    await passkeys.recoveryCodes.generate(_id);
    expect(accounts(['remove', email])).toMatchObject({ removed: true, passkeys_removed: 1 });
    expect(await auth.running.accounts.idOf(email)).toBeUndefined();
    expect(await passkeys.store.count(_id)).toBe(0);
    expect(await passkeys.recoveryCodes.unused(_id)).toBe(0);
    const events = await auth.running.audit.query({ accountId: _id, limit: 20 });
    expect(events.map((e) => e.type).reverse()).toEqual(
      expect.arrayContaining(['account_disabled', 'account_enabled', 'role_changed', 'account_removed']),
    );
    const changes = ['account_disabled', 'account_enabled', 'role_changed', 'account_removed'];
    for (const e of events.filter((x) => changes.includes(x.type)))
      expect(e.details).toMatchObject({ actor: 'operator' });
  }, 180_000); // ten runs of the command, each a process of its own
});
