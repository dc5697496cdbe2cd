/**
 * Boots the real auth server in-process for a test file, isolated from every other test file: its
 * own Redis key prefix, its own MongoDB database, its own signing-key file, its own port. Redis and
 * the MongoDB-protocol server are the real ones `scripts/services` started (REDIS_URL, MONGODB_URI).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { closeRedis, createRedisClient, scanKeys, type RedisSettings } from '@school/shared';
import { afterAll, beforeAll } from '@jest/globals';
import mongoose from 'mongoose';
import { loadConfig, type AuthConfig } from '../packages/auth-server/src/config.js';
import { createLogger } from '../packages/auth-server/src/logger.js';
import { startAuthServer, type RunningAuthServer } from '../packages/auth-server/src/server.js';
import { sharedForFile } from './for-file.js';
import { startWithDocuments, type DocumentServer } from './https-documents.js';
import { freePort } from './processes.js';

/** The services `scripts/services` runs (overridable through the environment). */
export const SERVICES = {
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6390',
  mongoBase: (process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27027/school').replace(/\/[^/?]*(\?.*)?$/, ''),
};

/**
 * The admin every test auth server is seeded with. The password is made for each test file's run:
 * `seed-admin` refuses every password written in this repository.
 */
export const ADMIN = {
  email: 'admin@school.test',
  password: `test admin ${randomBytes(9).toString('base64url')}`,
  name: 'Ada Admin',
};

/** The static introspection client every test auth server has. */
export const INTROSPECTOR = {
  clientId: 'resource-api',
  clientSecret: 'test-introspection-secret-0123456789abcdef',
};

/** A test's auth server, restartable on the same port, Redis prefix, database and keys. */
export interface TestAuthServer {
  /** The issuer and origin, e.g. `http://127.0.0.1:41234`. */
  issuer: string;
  config: AuthConfig;
  running: RunningAuthServer;
  /** Stops the server process state entirely and starts a new one on the same storage. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** An isolated environment for one auth server: its own port, Redis prefix, database and keys. */
export async function isolatedAuthEnv(env: Record<string, string> = {}): Promise<Record<string, string>> {
  const port = await freePort();
  const id = randomBytes(6).toString('hex');
  return {
    NODE_ENV: 'test',
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_PORT: String(port),
    REDIS_URL: SERVICES.redisUrl,
    REDIS_KEY_PREFIX: `test:${id}:`,
    MONGODB_URI: `${SERVICES.mongoBase}/authtest_${id}`,
    KEYS_FILE: join(mkdtempSync(join(tmpdir(), 'auth-keys-')), 'jwks.json'),
    INTROSPECTION_CLIENT_ID: INTROSPECTOR.clientId,
    INTROSPECTION_CLIENT_SECRET: INTROSPECTOR.clientSecret,
    LOG_LEVEL: 'silent',
    ...env,
  };
}

/** The environment the `school-auth` command needs to work on the storage of the server of `config`. */
export function operatorCommandEnv(config: AuthConfig): Record<string, string> {
  return {
    NODE_ENV: 'test',
    BASE_URL: config.BASE_URL,
    REDIS_URL: config.REDIS_URL,
    ...(config.REDIS_CLUSTER_NODES
      ? { REDIS_CLUSTER_NODES: config.REDIS_CLUSTER_NODES.map((n) => `${n.host}:${n.port}`).join(',') }
      : {}),
    REDIS_KEY_PREFIX: config.REDIS_KEY_PREFIX,
    MONGODB_URI: config.MONGODB_URI,
    KEYS_FILE: config.KEYS_FILE,
    INTROSPECTION_CLIENT_SECRET: config.INTROSPECTION_CLIENT_SECRET,
    LOG_LEVEL: 'silent',
  };
}

/** What one run of `school-auth` did: its exit status, and its output (JSON when it succeeded). */
export interface OperatorRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built `school-auth` (packages/auth-server/dist: build first) on the storage of the server
 * of `config`, with `input` on its stdin and `env` added to its environment (settings the server was
 * started with that the command must share, e.g. the login limits).
 */
export function runSchoolAuth(
  config: AuthConfig,
  args: string[],
  { input, env = {} }: { input?: string; env?: Record<string, string> } = {},
): OperatorRun {
  const main = resolve(import.meta.dirname, '../packages/auth-server/dist/cli/main.js');
  const run = spawnSync(process.execPath, [main, ...args], {
    env: { ...process.env, ...operatorCommandEnv(config), ...env },
    encoding: 'utf8',
    input,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Deletes what an auth server stored under `config` (its Redis keys and its database). */
export async function dropAuthStorage(
  config: RedisSettings & Pick<AuthConfig, 'REDIS_KEY_PREFIX' | 'MONGODB_URI'>,
): Promise<void> {
  const redis = createRedisClient(config, 'commands');
  await redis.connect();
  for await (const keys of scanKeys(redis, config.REDIS_KEY_PREFIX)) {
    await Promise.all(keys.map((k) => redis.del(k))); // one by one: a cluster's DEL cannot span slots
  }
  await closeRedis(redis);
  const conn = await mongoose.createConnection(config.MONGODB_URI).asPromise();
  await conn.dropDatabase();
  await conn.close();
}

/** Starts an isolated auth server with the seeded {@link ADMIN}. `env` overrides any setting. */
export async function startTestAuthServer(env: Record<string, string> = {}): Promise<TestAuthServer> {
  const config = loadConfig(await isolatedAuthEnv(env));
  const logger = createLogger(config.LOG_LEVEL);
  const handle: TestAuthServer = {
    issuer: config.BASE_URL,
    config,
    running: await startAuthServer(config, logger),
    // `this`, not `handle`: sharedForFile hands out a copy of this object.
    async restart(this: TestAuthServer) {
      await this.running.close();
      this.running = await startAuthServer(config, logger);
    },
    async stop(this: TestAuthServer) {
      await this.running.close();
      await dropAuthStorage(config).catch(() => undefined);
    },
  };
  await handle.running.accounts.upsert({ ...ADMIN, role: 'admin' });
  return handle;
}

/**
 * A second instance of `auth`'s deployment on a free port: the same issuer, Redis prefix, database and
 * keys; `settings` it runs with otherwise (e.g. a feature switched off). Close it before `auth` stops.
 */
export async function startSecondInstance(
  auth: TestAuthServer,
  settings: Partial<AuthConfig> = {},
): Promise<RunningAuthServer> {
  return startAuthServer({ ...auth.config, ...settings, port: await freePort() }, createLogger('silent'));
}

/**
 * The auth server a file's tests share: {@link startTestAuthServer} with `env` before the file's tests
 * (a `beforeAll` declared after this call sees it started), stopped after them ({@link sharedForFile}).
 */
export function authServerForFile(env: Record<string, string> = {}): TestAuthServer {
  return sharedForFile(() => startTestAuthServer(env));
}

/**
 * Two instances of one deployment a file's tests share: `auth` ({@link authServerForFile} with `env`)
 * and `second` ({@link startSecondInstance} with `settings`), which is closed before `auth` stops.
 * Both objects are filled in when the instances have started.
 */
export function twoInstancesForFile(
  env: Record<string, string> = {},
  settings: Partial<AuthConfig> = {},
): { auth: TestAuthServer; second: RunningAuthServer } {
  const second = {} as RunningAuthServer;
  afterAll(() => second.close?.()); // declared first: runs before the hook that stops `auth`
  const auth = authServerForFile(env);
  beforeAll(async () => {
    Object.assign(second, await startSecondInstance(auth, settings));
  });
  return { auth, second };
}

/**
 * A local HTTPS document server (https-documents.ts) and a test auth server that fetches metadata
 * documents from it and trusts its CA; `env` overrides any setting. Stop both after the tests.
 */
export async function startAuthWithDocuments(
  env: Record<string, string> = {},
): Promise<{ docs: DocumentServer; auth: TestAuthServer }> {
  const { docs, server } = await startWithDocuments((trust) => startTestAuthServer({ ...trust, ...env }));
  return { docs, auth: server };
}
