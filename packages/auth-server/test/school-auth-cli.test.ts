/**
 * `school-auth` as an operator meets it, run as a real process on a test server's storage: `--help`
 * at every level with a line per option, an error as one sentence in plain words with a non-zero
 * exit (never a zod issue list or a Mongoose cast error), `apps revoke` of an app never allowed
 * refused without an audit event, `npm run auth` from the repository root, and `keys` generating a
 * key set and rotating KEYS_FILE step by step, the file read back by the server's own key loader.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import {
  ADMIN,
  authServerForFile,
  operatorCommandEnv,
  runSchoolAuth,
} from '../../../test-support/auth-server.js';
import { signIn as flowSignIn } from '../../../test-support/oauth-flow.js';
import { buildProgram } from '../src/cli/program.js';
import { loadOrCreateKeys } from '../src/provider/keys.js';
import { registerClient } from './oauth-http.js';

const auth = authServerForFile();

const run = (...args: string[]) => runSchoolAuth(auth.config, args);

/** Every command and subcommand, as typed. */
const COMMANDS = [
  [],
  ['seed-admin'],
  ['clients'],
  ...[
    'create-integration',
    'create-native',
    'create-introspector',
    'list',
    'delete',
    'sweep',
    'allow-cimd',
    'disallow-cimd',
    'set-egress',
    'clear-egress',
    'egress',
    'cimd',
  ].map((s) => ['clients', s]),
  ['apps'],
  ['apps', 'list'],
  ['apps', 'revoke'],
  ...['allow', 'block', 'unreview', 'reviews'].map((s) => ['apps', s]),
  ['accounts'],
  ...[
    'list',
    'create-staff',
    'unlock',
    'reset-password',
    'disable',
    'enable',
    'remove',
    'promote',
    'demote',
  ].map((s) => ['accounts', s]),
  ['keys'],
  ...['generate', 'list', 'rotate', 'activate', 'retire'].map((s) => ['keys', s]),
  ['audit'],
  ['activity'],
];

/** The one line a failed command wrote, checked to be a sentence in plain words. */
function oneSentence(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^school-auth: \S.*[.!]$/);
  expect(lines[0]).not.toMatch(/[[{]\s*$|"code":|Cast to|ZodError|\n\s+at /);
  return lines[0]!;
}

/** `--help` of `command`, as the program answers it (in process: the same definitions, no spawn). */
async function helpOf(command: string[]): Promise<{ out: string; exit: string | undefined }> {
  let out = '';
  const program = buildProgram({ writeOut: (t) => (out += t), writeErr: (t) => (out += t) });
  let exit: string | undefined;
  try {
    await program.parseAsync([...command, '--help'], { from: 'user' });
  } catch (err) {
    exit = (err as { code?: string }).code;
  }
  return { out, exit };
}

describe('school-auth --help', () => {
  it('answers every command and subcommand with its usage and a line per option', async () => {
    for (const command of COMMANDS) {
      const { out, exit } = await helpOf(command);
      expect({ command, exit }).toEqual({ command, exit: 'commander.helpDisplayed' });
      expect(out).toContain(`Usage: school-auth ${command.join(' ')}`.trimEnd());
      expect(out).toMatch(/-h, --help\s+display help for command/);
      // Every option listed has words after it.
      for (const line of out.split('\n').filter((l) => /^\s+--?\w/.test(l)))
        expect({ command, line: line.trim() }).toEqual({
          command,
          line: expect.stringMatching(/^-.*\s{2,}\S/),
        });
    }
  });

  it('is the real process’s answer too, exit 0', () => {
    const done = run('accounts', 'disable', '--help');
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('Usage: school-auth accounts disable [options] <email>');
  });

  it('lists every command on the program’s help', () => {
    const { stdout } = run('--help');
    for (const name of ['seed-admin', 'clients', 'apps', 'accounts', 'keys', 'audit', 'activity'])
      expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('describes each option of a subcommand', () => {
    const { stdout } = run('accounts', 'create-staff', '--help');
    expect(stdout).toMatch(/--email <email>\s+the person’s email/);
    expect(stdout).toMatch(/--name <name>\s+the person’s name/);
    expect(stdout).toMatch(/--password-stdin\s+read the password from standard input/);
  });

  it('is also `npm run auth` from the repository root', () => {
    const root = resolve(import.meta.dirname, '../../..');
    const done = spawnSync('npm', ['run', '--silent', 'auth', '--', 'keys', '--help'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, ...operatorCommandEnv(auth.config) },
    });
    expect(done.status).toBe(0);
    expect(done.stdout).toContain('Usage: school-auth keys');
  });
});

describe('school-auth errors', () => {
  it('says a malformed email in words, not as a zod issue list', () => {
    const done = run('accounts', 'create-staff', '--email', 'not-an-email', '--name', 'Sam');
    expect(done.status).toBe(1);
    expect(oneSentence(done.stderr)).toContain('not-an-email is not an email address.');
  });

  it('says a date that does not read in words, before touching the database', () => {
    const done = run('audit', '--since', 'last tuesday');
    expect(done.status).toBe(2);
    expect(done.stderr).toContain("argument 'last tuesday' is invalid. Give a date such as 2026-11-01.");
    expect(done.stderr).not.toMatch(/Cast to date/);
  });

  it('says an unknown command, option or missing value is a usage error, exit 2, pointing to the help', () => {
    for (const args of [['nonsense'], ['accounts', 'list', '--bogus'], ['accounts', 'disable'], []]) {
      const done = run(...args);
      expect(done.status).toBe(2);
      expect(done.stderr).toMatch(/error: |Usage: school-auth/);
    }
    expect(run('accounts', 'disable').stderr).toContain(
      '(school-auth accounts disable --help lists what it takes)',
    );
  });

  it('names a configuration problem in one line', () => {
    const done = runSchoolAuth(auth.config, ['accounts', 'list'], { env: { REDIS_URL: 'http://nope' } });
    expect(done.status).toBe(1);
    expect(oneSentence(done.stderr)).toContain('REDIS_URL');
  });

  it('refuses to revoke an app the account never allowed: exit 1, nothing audited', async () => {
    const client = await registerClient(auth, { client_name: 'Never Allowed' });
    const done = run('apps', 'revoke', ADMIN.email, client.clientId);
    expect(done.status).toBe(1);
    expect(oneSentence(done.stderr)).toContain(`has not allowed the app ${client.clientId}`);
    expect(await auth.running.audit.query({ type: 'grant_revoked', clientId: client.clientId })).toEqual([]);
  });

  it('revokes an app the account allowed, audited', async () => {
    const client = await registerClient(auth, { client_name: 'Allowed Once' });
    await flowSignIn(auth, client, { account: ADMIN, scope: 'openid courses:read' });
    const done = run('apps', 'revoke', ADMIN.email, client.clientId);
    expect(done.status).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ revoked: client.clientId, grants: 1 });
    const [event] = await auth.running.audit.query({ type: 'grant_revoked', clientId: client.clientId });
    expect(event?.details).toMatchObject({ by: 'operator', grants: 1 });
  });
});

describe('school-auth keys', () => {
  const keysFile = () => join(mkdtempSync(join(tmpdir(), 'keys-cli-')), 'jwks.json');
  const keys = (file: string, ...args: string[]) =>
    runSchoolAuth(auth.config, ['keys', ...args], { env: { KEYS_FILE: file } });
  const json = (done: { status: number | null; stdout: string; stderr: string }) => {
    expect({ status: done.status, stderr: done.stderr }).toEqual({ status: 0, stderr: '' });
    return JSON.parse(done.stdout) as Record<string, unknown> &
      Array<{ kid: string; alg: string; role: string }>;
  };

  it('generate prints a new key set that the server loads', async () => {
    const printed = json(keys(keysFile(), 'generate')) as unknown as { keys: Array<Record<string, string>> };
    expect(printed.keys.map((k) => k.alg)).toEqual(['ES256', 'RS256']);
    for (const k of printed.keys)
      expect(k).toMatchObject({ use: 'sig', kid: expect.any(String), d: expect.any(String) });
    const file = keysFile();
    writeFileSync(file, JSON.stringify(printed));
    expect((await loadOrCreateKeys(file)).map((k) => k.kid)).toEqual(printed.keys.map((k) => k.kid));
  });

  it('rotate adds a key that verifies only; activate makes it sign; retire deletes the old one', async () => {
    const file = keysFile();
    const first = await loadOrCreateKeys(file);
    const added = json(keys(file, 'rotate')) as unknown as { added: { kid: string; role: string } };
    expect(added.added).toMatchObject({ alg: 'ES256', role: 'verification' });
    const afterAdd = await loadOrCreateKeys(file);
    expect(afterAdd.map((k) => k.kid)).toEqual([...first.map((k) => k.kid), added.added.kid]);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const listed = json(keys(file, 'activate', added.added.kid));
    expect(listed[0]).toEqual({ kid: added.added.kid, alg: 'ES256', role: 'signing' });
    expect(listed.find((k) => k.kid === first[0]!.kid)).toMatchObject({ role: 'verification' });
    expect((await loadOrCreateKeys(file))[0]!.kid).toBe(added.added.kid);

    const signing = keys(file, 'retire', added.added.kid);
    expect(signing.status).toBe(1);
    expect(oneSentence(signing.stderr)).toContain('signs ES256 tokens now');
    const left = json(keys(file, 'retire', first[0]!.kid));
    expect(left.map((k) => k.kid)).toEqual([added.added.kid, first[1]!.kid]);
  });

  it('says so when there is no key file or no such key', () => {
    const missing = keys(join(tmpdir(), 'no-such-dir-for-keys', 'jwks.json'), 'list');
    expect(missing.status).toBe(1);
    expect(oneSentence(missing.stderr)).toContain('there is no key file at');
  });
});
