/**
 * A service that cannot start stops with one message naming every problem and where it is (the
 * variable, the URL with its password redacted, the file), exit code 1 and no stack trace; and
 * neither service starts outside the test suites on a secret published in the repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PUBLISHED_SECRETS } from '@school/shared';
import { freePort } from '../test-support/processes.js';

const ROOT = resolve(import.meta.dirname, '..');
const SERVICES = ['auth-server', 'resource-api'] as const;

/** Runs a built service with `env` over this process's environment; its exit code and stderr. */
function start(service: (typeof SERVICES)[number], env: Record<string, string>) {
  const run = spawnSync(process.execPath, [`packages/${service}/dist/main.js`], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stderr: run.stderr };
}

describe('the runtime', () => {
  it('is Node.js 22 LTS or later, so oidc-provider starts without its unsupported-runtime warning', () => {
    const version = spawnSync(process.execPath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(Number(version.stdout.split('.')[0])).toBeGreaterThanOrEqual(22);
    // oidc-provider is loaded before the configuration is read, so even a refused start would warn.
    const run = start('auth-server', { NODE_ENV: 'production', LOG_LEVEL: 'nonsense' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('LOG_LEVEL');
    expect(run.stderr).not.toMatch(/Unsupported runtime|oidc-provider WARNING/);
  });
});

const OWN_SECRETS = { COOKIE_SECRETS: 'c'.repeat(64), INTROSPECTION_CLIENT_SECRET: 'i'.repeat(64) };

describe.each(SERVICES)('%s with a bad environment', (service) => {
  it('exits 1 naming every bad variable, without a stack trace', () => {
    const run = start(service, {
      BASE_URL: 'http://school.example/',
      REDIS_URL: 'not a url',
      LOG_LEVEL: 'loud',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${service}: invalid configuration`);
    for (const name of ['BASE_URL', 'REDIS_URL', 'LOG_LEVEL']) expect(run.stderr).toContain(name);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('names BASE_URL (and the other problems) when BASE_URL is not a URL at all', () => {
    const run = start(service, { NODE_ENV: 'test', BASE_URL: 'notaurl', REDIS_URL: 'nope' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/BASE_URL: must be an absolute http\(s\) URL/);
    expect(run.stderr).toMatch(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
  });

  it.each(['development', 'production'])(
    'refuses to start under NODE_ENV=%s without secrets, naming each variable and how to make one',
    (NODE_ENV) => {
      const run = start(service, { NODE_ENV, COOKIE_SECRETS: '', INTROSPECTION_CLIENT_SECRET: '' });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(
        /INTROSPECTION_CLIENT_SECRET: is required unless NODE_ENV=test; generate one/,
      );
      if (service === 'auth-server') expect(run.stderr).toMatch(/COOKIE_SECRETS: is required/);
    },
  );

  it.each(['development', 'production'])(
    'refuses to start under NODE_ENV=%s on the secrets published in the repository',
    (NODE_ENV) => {
      for (const published of PUBLISHED_SECRETS) {
        const run = start(service, {
          NODE_ENV,
          COOKIE_SECRETS: published,
          INTROSPECTION_CLIENT_SECRET: published,
        });
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/INTROSPECTION_CLIENT_SECRET: is a value published in the source code/);
        if (service === 'auth-server')
          expect(run.stderr).toMatch(/COOKIE_SECRETS: is a value published in the source code/);
      }
    },
  );

  it('names each unreachable store with its URL, password redacted, all at once', async () => {
    const [redisPort, mongoPort] = [await freePort(), await freePort()];
    const keys = join(mkdtempSync(join(tmpdir(), 'startup-keys-')), 'jwks.json');
    writeFileSync(keys, '{"keys": [');
    const run = start(service, {
      NODE_ENV: 'production',
      ...OWN_SECRETS,
      REDIS_URL: `redis://:redis-password@127.0.0.1:${redisPort}`,
      MONGODB_URI: `mongodb://school:mongo-password@127.0.0.1:${mongoPort}/school`,
      KEYS_FILE: keys,
      AUTH_PORT: '0',
      API_PORT: '0',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${service}: failed to start:`);
    expect(run.stderr).toContain(`REDIS_URL: cannot`);
    expect(run.stderr).toContain(`redis://:***@127.0.0.1:${redisPort}`);
    expect(run.stderr).toMatch(/ECONNREFUSED/);
    expect(run.stderr).toContain(
      `MONGODB_URI: cannot use mongodb://school:***@127.0.0.1:${mongoPort}/school`,
    );
    if (service === 'auth-server') expect(run.stderr).toContain(`KEYS_FILE: ${keys}: not a JSON key set`);
    expect(run.stderr).not.toMatch(/password@|Connection is closed/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 40_000);
});
