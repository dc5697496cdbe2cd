/**
 * An account's name follows the same display rule as a client's (`@school/shared` display-text.ts),
 * whichever way the account is made: the Staff accounts page (a 400 page with the rule's words),
 * `school-auth accounts create-staff` and `school-auth seed-admin` (a non-zero exit with the rule's
 * words). Nothing is created when the name is refused; names in any script are accepted.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import { FormBrowser, openAccountPage } from '../../../test-support/form-browser.js';

/**
 * One name per class the rule refuses. (A lone surrogate cannot travel in a form or an argument, both
 * UTF-8: registration.test.ts sends one in JSON.)
 */
const REFUSED: Array<[string, string]> = [
  ['a zero-width space', 'Ada\u200bAdmin'],
  ['a zero-width joiner', 'Ada\u200dAdmin'],
  ['a word joiner', 'Ada\u2060Admin'],
  ['a byte-order mark', 'Ada\ufeffAdmin'],
  ['a soft hyphen', 'Ada Ad\u00admin'],
  ['a tag character', 'Ada Admin\u{e0041}'],
  ['a run of combining marks', `Ada A${'\u0301'.repeat(4)}dmin`],
  ['a private-use character', 'Ada \ue000Admin'],
  ['an unassigned code point', 'Ada \u0378Admin'],
  ['a right-to-left override', 'Ada \u202enimdA'],
  ['an escape sequence', '\u001b[31mAda'],
  ['a C1 control', 'Ada\u0085Admin'],
  ['a line break', 'Ada\nAdmin'],
];
const ACCEPTED = 'Zoë Ngô Việt हिन्दी Cafe\u0301';

const auth = authServerForFile();

const newEmail = () => `named-${randomBytes(4).toString('hex')}@school.test`;

describe('Staff accounts', () => {
  it.each(REFUSED)('refuses a name with %s, creating nothing', async (_what, name) => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/staff', ADMIN);
    expect(page.status).toBe(200);
    const email = newEmail();
    const answer = await browser.submit(page, '/staff/create', { email, name, password: '' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.body).toContain('The name must not contain');
    expect(await auth.running.accounts.idOf(email)).toBeUndefined();
  });

  it('accepts a name in any script', async () => {
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/staff', ADMIN);
    const email = newEmail();
    const answer = await browser.submit(page, '/staff/create', { email, name: ACCEPTED, password: '' });
    expect(answer.status).toBe(200);
    expect((await auth.running.accounts.profileByEmail(email))?.name).toBe(ACCEPTED);
  });
});

describe('school-auth', () => {
  it.each(REFUSED)('accounts create-staff refuses a name with %s, creating nothing', async (_what, name) => {
    const email = newEmail();
    const run = runSchoolAuth(auth.config, ['accounts', 'create-staff', '--email', email, '--name', name]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('The name must not contain');
    expect(await auth.running.accounts.idOf(email)).toBeUndefined();
  });

  it.each(REFUSED.slice(0, 4))('seed-admin refuses a name with %s, creating nothing', async (_what, name) => {
    const email = newEmail();
    const run = runSchoolAuth(auth.config, ['seed-admin'], {
      env: {
        SEED_ADMIN_EMAIL: email,
        SEED_ADMIN_NAME: name,
        SEED_ADMIN_PASSWORD: `seed ${randomBytes(8).toString('hex')}`,
      },
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('SEED_ADMIN_NAME');
    expect(await auth.running.accounts.idOf(email)).toBeUndefined();
  });

  it('accounts create-staff accepts a name in any script', async () => {
    const email = newEmail();
    const run = runSchoolAuth(auth.config, [
      'accounts',
      'create-staff',
      '--email',
      email,
      '--name',
      ACCEPTED,
    ]);
    expect(run.status).toBe(0);
    expect((await auth.running.accounts.profileByEmail(email))?.name).toBe(ACCEPTED);
  });
});
