/**
 * What `school-auth` prints cannot drive the operator's terminal. A signed-in person cannot put a
 * made-up client id (newlines, ESC and OSC sequences, bidi controls) into the audit log through the
 * Connected apps Revoke form, and a Revoke of an app they never allowed does nothing and says so.
 * Whatever the stored events hold (events stored before that rule, an address or id from elsewhere),
 * the real `school-auth` process prints every field escaped, one line per event, in every output:
 * `activity`, `activity --json`, `audit`, and its error messages.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import { FormBrowser, inputValue, openAccountPage } from '../../../test-support/form-browser.js';
import { registerClient, signIn } from './oauth-http.js';

/** A forged activity line, a screen clear, an OSC window title, a bidi override, a C1 CSI, tags. */
const HOSTILE = [
  'x\n2026-01-01T00:00:00.000Z\tSigned in\t-\tadmin@school.test\t127.0.0.1',
  '\u001b[2J\u001b]0;pwned\u0007',
  '\u202egnp.exe',
  '\u009b31m',
  'a\u200bb\u{e0041}\u2028',
];

/** Characters a terminal acts on or hides, other than the tab and newline that separate output. */
const UNPRINTABLE = /(?![\t\n])[\p{Cc}\p{Cf}\p{Co}\p{Cs}\u2028\u2029]/u;

const auth = authServerForFile();

describe('the Connected apps Revoke form', () => {
  it('refuses a client id with control characters, and an app the person never allowed, without an audit event', async () => {
    // The admin has allowed one app; the CSRF token is every account page's.
    await signIn(auth, await registerClient(auth, { client_name: 'Lesson Planner' }), { scope: 'openid' });
    const browser = new FormBrowser(auth.issuer);
    const page = await openAccountPage(browser, '/oauth/account/account', ADMIN); // a page with the CSRF token
    expect(page.status).toBe(200);
    const csrf = inputValue(page.body, 'csrf')!;
    for (const client_id of [...HOSTILE, 'never-allowed-app']) {
      const answer = await browser.request('/oauth/account/apps/revoke', { form: { csrf, client_id } });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.body).toContain('nothing was revoked');
    }
    const admin = await auth.running.accounts.idOf(ADMIN.email);
    expect(await auth.running.audit.query({ type: 'grant_revoked', accountId: admin })).toEqual([]);
  });
});

describe('school-auth output', () => {
  const tag = randomBytes(4).toString('hex');

  beforeAll(async () => {
    for (const text of HOSTILE)
      await auth.running.audit.record('grant_revoked', {
        clientId: `${tag}${text}`,
        accountId: `${tag}${text}`,
        ip: `${tag}${text}`,
        details: { by: 'account', grants: 1, tokens: 0 },
      });
    await auth.running.audit.flush();
  });

  /** Runs `school-auth`, expecting it to succeed. */
  function run(...args: string[]): { stdout: string; stderr: string } {
    const done = runSchoolAuth(auth.config, args);
    expect(done.status).toBe(0);
    return done;
  }

  it('activity prints every field escaped, one line per event', () => {
    const { stdout } = run('activity', '--event', 'grant_revoked');
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(HOSTILE.length);
    expect(stdout).not.toMatch(UNPRINTABLE);
    for (const line of lines) expect(line.split('\t')).toHaveLength(5);
    expect(stdout).toContain(`${tag}\\x1b[2J\\x1b]0;pwned\\x07`);
    expect(stdout).toContain(`${tag}\\u202egnp.exe`);
    expect(stdout).toContain(`${tag}\\x9b31m`);
    expect(stdout).toContain(`${tag}a\\u200bb\\u{e0041}\\u2028`);
    expect(stdout).toContain(`${tag}x\\x0a2026-01-01T00:00:00.000Z\\x09Signed in`);
  });

  it('activity --json and audit print JSON that reads back as the stored text', () => {
    for (const args of [
      ['activity', '--event', 'grant_revoked', '--json'],
      ['audit', '--type', 'grant_revoked'],
    ]) {
      const { stdout } = run(...args);
      expect(stdout).not.toMatch(UNPRINTABLE);
      const events = stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { client_id: string });
      expect(events.map((e) => e.client_id).sort()).toEqual(HOSTILE.map((t) => `${tag}${t}`).sort());
    }
  });

  it('prints its indented JSON as JSON', () => {
    const { stdout } = run('accounts', 'list');
    expect(stdout).not.toMatch(UNPRINTABLE);
    expect(JSON.parse(stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ email: ADMIN.email })]),
    );
  });

  it('escapes what it repeats in an error message', () => {
    const done = runSchoolAuth(auth.config, ['clients', 'delete', '\u001b]0;pwned\u0007\n\u202e']);
    expect(done.status).toBe(1);
    expect(done.stderr).not.toMatch(UNPRINTABLE);
    expect(done.stderr.split('\n')).toContain(
      'school-auth: There is no stored client \\x1b]0;pwned\\x07\\x0a\\u202e.',
    );
  });
});
