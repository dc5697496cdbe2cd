/**
 * `school-auth seed-admin` as an operator runs it (the built command, a real database): no published
 * password is accepted, in production or not, the example environment file seeds as it is, and a
 * generated password is shown once on stdout and written nowhere else.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose, { type Connection } from 'mongoose';
import { PUBLISHED_ADMIN_PASSWORDS } from '@school/shared';
import { AccountStore } from '../packages/auth-server/src/accounts/account-store.js';
import { loadConfig } from '../packages/auth-server/src/config.js';
import { dropAuthStorage, isolatedAuthEnv } from '../test-support/auth-server.js';

const ROOT = resolve(import.meta.dirname, '..');
let env: Record<string, string>;
let mongo: Connection;
let accounts: AccountStore;

beforeAll(async () => {
  env = await isolatedAuthEnv({
    COOKIE_SECRETS: 'c'.repeat(64),
    INTROSPECTION_CLIENT_SECRET: 'i'.repeat(64),
    LOG_LEVEL: 'debug',
  });
  mongo = await mongoose.createConnection(env.MONGODB_URI!).asPromise();
  accounts = new AccountStore(mongo);
});
afterAll(async () => {
  await mongo?.close();
  if (env) await dropAuthStorage(loadConfig(env)).catch(() => undefined);
});

/** Runs seed-admin with `extra` over the isolated environment (SEED_* unset unless given). */
function seed(extra: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SEED_')));
  const run = spawnSync(process.execPath, ['packages/auth-server/dist/cli/main.js', 'seed-admin'], {
    cwd: ROOT,
    env: { ...base, ...env, ...extra },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every document of every collection of the test database, as one string. */
async function everythingStored(): Promise<string> {
  const collections = await mongo.db!.listCollections().toArray();
  const docs = await Promise.all(collections.map((c) => mongo.db!.collection(c.name).find().toArray()));
  return JSON.stringify(docs);
}

/** seed-admin in `nodeEnv` with the published `password` for `email`: refused, saying so, creating nobody. */
async function expectPublishedPasswordRefused(nodeEnv: string, email: string, password: string) {
  const run = seed({ NODE_ENV: nodeEnv, SEED_ADMIN_EMAIL: email, SEED_ADMIN_PASSWORD: password });
  expect(run.status).toBe(1);
  expect(run.stderr).toMatch(/SEED_ADMIN_PASSWORD: is a password published in the source code/);
  expect(await accounts.idOf(email)).toBeUndefined();
}

describe('seed-admin in production', () => {
  it('refuses to run without SEED_ADMIN_PASSWORD, saying so, and creates nobody', async () => {
    const run = seed({ NODE_ENV: 'production', SEED_ADMIN_EMAIL: 'prod-admin@school.test' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/SEED_ADMIN_PASSWORD: is required in production/);
    expect(await accounts.idOf('prod-admin@school.test')).toBeUndefined();
  });

  it.each([...PUBLISHED_ADMIN_PASSWORDS])('refuses the published password %j', async (password) => {
    await expectPublishedPasswordRefused('production', 'prod-admin@school.test', password);
  });

  it('creates the admin with a password of the operator’s own', async () => {
    const run = seed({
      NODE_ENV: 'production',
      SEED_ADMIN_EMAIL: 'prod-admin@school.test',
      SEED_ADMIN_PASSWORD: 'an operator chosen password',
    });
    expect(run.status).toBe(0);
    const id = await accounts.authenticate('prod-admin@school.test', 'an operator chosen password');
    expect(id).toBeDefined();
  });
});

describe('seed-admin outside production', () => {
  it.each(
    [...PUBLISHED_ADMIN_PASSWORDS].flatMap((p) => [
      ['development', p],
      ['test', p],
    ]),
  )('refuses in %s the published password %j, creating nobody', async (NODE_ENV, password) => {
    await expectPublishedPasswordRefused(NODE_ENV, 'dev-published@school.test', password);
  });

  it('seeds with the example environment file as it is, generating the password', () => {
    const example = readFileSync(resolve(ROOT, 'config/auth-server.env.example'), 'utf8');
    const seedLines = example.split('\n').filter((l) => l.startsWith('SEED_ADMIN_'));
    const fromExample = Object.fromEntries(
      seedLines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const run = seed({
      ...fromExample,
      NODE_ENV: 'development',
      SEED_ADMIN_EMAIL: 'example-admin@school.test',
    });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      email: 'example-admin@school.test',
      password_generated: true,
    });
  });
});

describe('seed-admin outside production without a password', () => {
  it('generates one for a new admin, shows it once on stdout, and never logs or stores it', async () => {
    const run = seed({ NODE_ENV: 'development', SEED_ADMIN_EMAIL: 'dev-admin@school.test' });
    expect(run.status).toBe(0);
    const shown = JSON.parse(run.stdout) as { email: string; password: string; password_generated: true };
    expect(shown).toMatchObject({ email: 'dev-admin@school.test', password_generated: true });
    expect(shown.password).toMatch(/^[2-9a-zA-Z]{5}(-[2-9a-zA-Z]{5}){4}$/); // no look-alike characters
    expect(PUBLISHED_ADMIN_PASSWORDS.has(shown.password)).toBe(false);
    expect(await accounts.authenticate('dev-admin@school.test', shown.password)).toBeDefined();
    // Shown in the printed result only: not in a log line (stderr, debug level), not in any collection.
    expect(run.stdout.split(shown.password)).toHaveLength(2);
    expect(run.stderr).not.toContain(shown.password);
    expect(await everythingStored()).not.toContain(shown.password);

    const again = seed({ NODE_ENV: 'development', SEED_ADMIN_EMAIL: 'dev-admin@school.test' });
    expect(again.status).toBe(0);
    const second = JSON.parse(again.stdout) as { password?: string; note: string };
    expect(second.password).toBeUndefined();
    expect(second.note).toMatch(/keeps its password/);
    expect(await accounts.authenticate('dev-admin@school.test', shown.password)).toBeDefined();
  });

  it('generates a different password for each new admin', () => {
    const shown = (email: string) =>
      JSON.parse(seed({ NODE_ENV: 'development', SEED_ADMIN_EMAIL: email }).stdout) as { password: string };
    expect(shown('a@school.test').password).not.toBe(shown('b@school.test').password);
  });
});
