/**
 * `school-auth` as an operator meets it, run as a real process on a test server's storage: `--help`
 * at every level with a line per option, an error as one sentence in plain words with a non-zero
 * exit (never a zod issue list or a Mongoose cast error), `apps revoke` of an app never allowed
 * refused without an audit event, `npm run auth` from the repository root, and `keys` generating a
 * key set and rotating KEYS_FILE step by step, the file read back by the server's own key loader;
 * and every command's JSON in the one style (snake_case keys, ISO 8601 UTC times under `_at` keys).
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
      expect(done.stderr).toMatch(args.length ? /^school-auth: [^\n]+\.\n/ : /Usage: school-auth/);
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
    expect(JSON.parse(done.stdout)).toMatchObject({
      client_id: client.clientId,
      revoked: true,
      grants_ended: 1,
    });
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
      Array<{ key_id: string; alg: string; role: string }>;
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
    const added = json(keys(file, 'rotate')) as unknown as { added: { key_id: string; role: string } };
    expect(added.added).toMatchObject({ alg: 'ES256', role: 'verification' });
    const afterAdd = await loadOrCreateKeys(file);
    expect(afterAdd.map((k) => k.kid)).toEqual([...first.map((k) => k.kid), added.added.key_id]);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const listed = json(keys(file, 'activate', added.added.key_id));
    expect(listed[0]).toEqual({ key_id: added.added.key_id, alg: 'ES256', role: 'signing' });
    expect(listed.find((k) => k.key_id === first[0]!.kid)).toMatchObject({ role: 'verification' });
    expect((await loadOrCreateKeys(file))[0]!.kid).toBe(added.added.key_id);

    const signing = keys(file, 'retire', added.added.key_id);
    expect(signing.status).toBe(1);
    expect(oneSentence(signing.stderr)).toContain('signs ES256 tokens now');
    const left = json(keys(file, 'retire', first[0]!.kid));
    expect(left.map((k) => k.key_id)).toEqual([added.added.key_id, first[1]!.kid]);
  });

  it('says so when there is no key file or no such key', () => {
    const missing = keys(join(tmpdir(), 'no-such-dir-for-keys', 'jwks.json'), 'list');
    expect(missing.status).toBe(1);
    expect(oneSentence(missing.stderr)).toContain('there is no key file at');
  });
});

/** ISO 8601 in UTC, as every command writes a time: `2026-11-29T07:40:00.000Z`. */
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * What in `value` breaks the commands' style (docs/operators.md, "Every command writes in one style"):
 * a key not in snake_case, a bare `id`, a time's key not ending in `_at`, a key ending in `_at` whose
 * value is not an ISO 8601 UTC time (null included: a time there is none of is left out), or a time
 * under another key.
 */
function styleProblems(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => styleProblems(v, `${path}[${i}]`));
  if (typeof value === 'string')
    return /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !path.endsWith('_at')
      ? [`${path}: a time under a key not ending in _at`]
      : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const at = `${path}.${key}`;
    const problems: string[] = [];
    if (!SNAKE_CASE.test(key)) problems.push(`${at}: not snake_case`);
    if (key === 'id') problems.push(`${at}: an id is <thing>_id`);
    if (/^(at|created|expires|updated|last_used)$|_until$/.test(key))
      problems.push(`${at}: a time's key ends in _at`);
    if (key.endsWith('_at') && !(typeof v === 'string' && ISO_UTC.test(v)))
      problems.push(`${at}: ${JSON.stringify(v)} is not an ISO 8601 UTC time`);
    return [...problems, ...styleProblems(v, at)];
  });
}

describe('every command writes in one style', () => {
  it('prints snake_case keys and ISO 8601 UTC times under keys ending in _at', async () => {
    const ok = (args: string[], env: Record<string, string> = {}) => {
      const done = runSchoolAuth(auth.config, args, { env });
      expect({ args, status: done.status, stderr: done.stderr }).toEqual({ args, status: 0, stderr: '' });
      return done.stdout;
    };
    const json = (...args: string[]) => JSON.parse(ok(args)) as unknown;
    const lines = (...args: string[]) =>
      ok(args)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown);

    // Something for each command to show: an app allowed and used, reviewed, a request for approval.
    const client = await registerClient(auth, { client_name: 'Style Check' });
    await flowSignIn(auth, client, { account: ADMIN, scope: 'openid courses:read' });
    const staff = await auth.running.accounts.upsert({
      email: 'style-check@school.example',
      name: 'Style Check',
      role: 'staff',
      password: 'a long enough password for style',
    });
    await auth.running.approvals.request({
      accountId: staff,
      accountEmail: 'style-check@school.example',
      clientId: client.clientId,
      clientKind: 'open',
      scopes: ['orders:read'],
      duration: 'hour',
    });
    const integration = json(
      'clients',
      'create-integration',
      '--name',
      'Style Integration',
      '--redirect-uri',
      'https://style.example/cb',
    ) as { client_id: string };
    const keysFile = join(mkdtempSync(join(tmpdir(), 'keys-style-')), 'jwks.json');
    await loadOrCreateKeys(keysFile);

    const printed: Record<string, unknown> = {
      'clients create-integration': integration,
      'clients set-egress': json('clients', 'set-egress', integration.client_id, '127.0.0.2/31'),
      'clients egress': json('clients', 'egress'),
      'clients list --json': lines('clients', 'list', '--json'),
      'clients cimd': json('clients', 'cimd'),
      'clients sweep': json('clients', 'sweep'),
      'apps list': json('apps', 'list', ADMIN.email),
      'apps allow': json('apps', 'allow', client.clientId),
      'apps reviews': json('apps', 'reviews'),
      'accounts list': json('accounts', 'list'),
      'accounts passkeys list': json('accounts', 'passkeys', ADMIN.email, 'list'),
      'roles list': json('roles', 'list'),
      'approvals list --all': json('approvals', 'list', '--all'),
      audit: lines('audit', '--limit', '200'),
      'activity --json': lines('activity', '--json', '--limit', '200'),
      'grants export --format json': json('grants', 'export', '--format', 'json'),
      'keys list': JSON.parse(ok(['keys', 'list'], { KEYS_FILE: keysFile })) as unknown,
    };
    expect(Object.entries(printed).flatMap(([command, value]) => styleProblems(value, command))).toEqual([]);

    // The times were there to be checked, each as ISO 8601 in UTC.
    const [app] = printed['apps list'] as Record<string, unknown>[];
    expect(app).toMatchObject({ first_allowed_at: expect.stringMatching(ISO_UTC) });
    const [event] = printed.audit as Record<string, unknown>[];
    expect(Object.keys(event!).slice(0, 3)).toEqual(['event_id', 'type', 'recorded_at']);
    const [request] = printed['approvals list --all'] as Record<string, unknown>[];
    expect(request).toMatchObject({
      requested_at: expect.stringMatching(ISO_UTC),
      expires_at: expect.stringMatching(ISO_UTC),
    });
    // The table's header names its columns as the JSON does.
    expect(ok(['clients', 'list']).split('\n')[0]).toBe(
      'client_id\tkind\tcreated_at\tlast_used_at\taccounts\tclient_name',
    );
  }, 300_000); // seventeen runs of the command, each opening Redis and MongoDB
});
