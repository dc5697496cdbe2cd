/**
 * scripts/start's per-installation secrets (scripts/lib.sh `ensure_secrets`):
 * generated on first run into a file only the owner can read, reused on later runs, never a value
 * published in the repository, and accepted by both services outside NODE_ENV=test.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PUBLISHED_SECRETS } from '@school/shared';
import { loadConfig as loadAuthConfig } from '../packages/auth-server/src/config.js';
import { loadConfig as loadApiConfig } from '../packages/resource-api/src/config.js';

const ROOT = resolve(import.meta.dirname, '..');
const NAMES = ['COOKIE_SECRETS', 'INTROSPECTION_CLIENT_SECRET', 'SEED_ADMIN_PASSWORD'] as const;

/** Sources scripts/lib.sh, runs `ensure_secrets FILE` and returns the variables it exported. */
function ensureSecrets(file: string, env: Record<string, string> = {}): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !(NAMES as readonly string[]).includes(k)),
  );
  const run = spawnSync(
    'bash',
    ['-c', `set -euo pipefail; source scripts/lib.sh; ensure_secrets "$1"; env`, 'ensure', file],
    { cwd: ROOT, env: { ...base, ...env }, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  const exported = new Map(
    run.stdout.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return Object.fromEntries(NAMES.map((n) => [n, exported.get(n) ?? '']));
}

describe('ensure_secrets', () => {
  it('creates the file with mode 0600 and random secrets on first run, and reuses them after', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), '.data', 'secrets.env');
    const first = ensureSecrets(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const name of NAMES) {
      expect(first[name]).toMatch(/^[0-9a-f]{64}$/);
      expect(PUBLISHED_SECRETS.has(first[name]!)).toBe(false);
      expect(readFileSync(file, 'utf8')).toContain(`${name}=${first[name]}\n`);
    }
    expect(new Set(Object.values(first)).size).toBe(NAMES.length);

    expect(ensureSecrets(file)).toEqual(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Another installation gets other secrets.
    const other = ensureSecrets(join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.env'));
    for (const name of NAMES) expect(other[name]).not.toBe(first[name]);
  });

  it('keeps a variable set in the environment, and adds a secret missing from an older file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.env');
    writeFileSync(file, `COOKIE_SECRETS=${'a'.repeat(64)}\n`, { mode: 0o644 });
    const got = ensureSecrets(file, { SEED_ADMIN_PASSWORD: 'chosen by the operator' });
    expect(got.COOKIE_SECRETS).toBe('a'.repeat(64));
    expect(got.SEED_ADMIN_PASSWORD).toBe('chosen by the operator');
    expect(got.INTROSPECTION_CLIENT_SECRET).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^INTROSPECTION_CLIENT_SECRET=[0-9a-f]{64}$/m);
  });

  it('gives both services secrets they accept in development and production', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'secrets-')), 'secrets.env');
    const secrets = ensureSecrets(file);
    for (const NODE_ENV of ['development', 'production']) {
      expect(loadAuthConfig({ NODE_ENV, ...secrets }).COOKIE_SECRETS).toEqual([secrets.COOKIE_SECRETS]);
      expect(loadApiConfig({ NODE_ENV, ...secrets }).INTROSPECTION_CLIENT_SECRET).toBe(
        secrets.INTROSPECTION_CLIENT_SECRET,
      );
    }
  });
});

describe('scripts/auth, the operator command on the installation scripts/start made', () => {
  /** An installation directory: the repository's code, and a `.data/` of its own holding `files`. */
  function installation(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'installation-'));
    for (const part of ['scripts', 'packages', 'node_modules', 'package.json', 'package-lock.json'])
      symlinkSync(join(ROOT, part), join(dir, part));
    mkdirSync(join(dir, '.data'));
    for (const [name, text] of Object.entries(files))
      writeFileSync(join(dir, '.data', name), text, { mode: 0o600 });
    return dir;
  }

  /** Runs `scripts/auth ...args` of `dir` with no service settings nor secrets in the environment. */
  function auth(dir: string, ...args: string[]) {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !['REDIS_URL', 'MONGODB_URI', 'NODE_ENV', ...NAMES].includes(k) && !k.startsWith('JEST'),
      ),
    );
    env.PATH = `${dirname(process.execPath)}:${env.PATH ?? ''}`;
    return spawnSync(join(dir, 'scripts/auth'), args, { cwd: tmpdir(), env, encoding: 'utf8' });
  }

  it('reads the installation secrets and services, so `accounts list` needs nothing sourced by hand', () => {
    const database = `start_secrets_${process.pid}_${Date.now()}`;
    const mongo = new URL(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27027/school');
    mongo.pathname = `/${database}`;
    const dir = installation({
      'secrets.env': `COOKIE_SECRETS=${'c'.repeat(64)}\nINTROSPECTION_CLIENT_SECRET=${'i'.repeat(64)}\n`,
      'services.env': `export REDIS_URL=${process.env.REDIS_URL ?? 'redis://127.0.0.1:6390'}\nexport MONGODB_URI=${mongo.href}\n`,
    });
    const run = auth(dir, 'accounts', 'list');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([]);
  });

  it('says what is missing when the installation has no secrets and the command needs them', () => {
    // Listing accounts reads storage alone; unlocking one runs the full start-up, keys and all.
    const run = auth(installation({}), 'accounts', 'unlock', 'sam@school.example');
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^school-auth: the configuration is not usable: COOKIE_SECRETS: is required/);
  });
});
