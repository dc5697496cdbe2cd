/**
 * Brings up the stack a bench run measures, on 127.0.0.1 and free ports, with data that starts empty
 * (.data/bench is wiped): a dedicated Redis (as scripts/services runs it) and MongoDB-protocol server
 * (BENCH_MONGODB_URI, else `mongod` if on PATH, else scripts/services' FerretDB), so their CPU is the
 * services' alone; the auth server and resource API processes in production mode.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_SERVER_NODE_FLAGS } from '@school/auth-server/dist/node-flags.js';
import { privateMongo, privateRedis } from '#test-support/private-servers.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import type { Bench, Server } from './bench.js';

/** Starts the dedicated Redis (append-only file fsynced every second, as scripts/services runs it). */
export async function startRedis(dir: string): Promise<Server> {
  const redis = await privateRedis({
    dir: join(dir, 'redis'),
    log: join(dir, 'logs', 'redis.log'),
    fsync: 'everysec',
  });
  return { ...redis.process!, url: redis.url };
}

/** Starts the dedicated MongoDB-protocol server, or returns undefined with BENCH_MONGODB_URI set. */
export async function startMongo(dir: string): Promise<{ server?: Server; uri: string }> {
  if (process.env.BENCH_MONGODB_URI) return { uri: process.env.BENCH_MONGODB_URI };
  const mongo = await privateMongo({
    dir: join(dir, 'mongo'),
    log: join(dir, 'logs', 'mongo.log'),
    database: 'bench',
  });
  return { server: { ...mongo.process!, url: mongo.url }, uri: mongo.url };
}

/** The auth server's environment for a bench run (production mode, fresh secrets). */
export function authEnvironment(dir: string, redisUrl: string, mongoUri: string, port: number) {
  return {
    NODE_ENV: 'production',
    BASE_URL: `http://127.0.0.1:${port}`,
    AUTH_HOST: '127.0.0.1',
    AUTH_PORT: String(port),
    TRUST_PROXY: 'false',
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: 'oidc:',
    MONGODB_URI: mongoUri,
    COOKIE_SECRETS: randomBytes(32).toString('base64url'),
    KEYS_FILE: join(dir, 'keys', 'jwks.json'),
    INTROSPECTION_CLIENT_ID: 'resource-api',
    INTROSPECTION_CLIENT_SECRET: randomBytes(32).toString('base64url'),
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    // Rate limits stay in the path (each request still counts in Redis) but so high that the load
    // of one bench client never reaches them: the bench measures capacity, not the policy.
    RATE_LIMIT_AUTHORIZATION: '1000000000',
    RATE_LIMIT_REGISTRATION: '1000000000',
    RATE_LIMIT_TOKEN: '1000000000',
    RATE_LIMIT_INTROSPECTION: '1000000000',
    RATE_LIMIT_REVOCATION: '1000000000',
    RATE_LIMIT_PER_ADDRESS: '1000000000',
  };
}

/** Starts a Node server `script` with `env` and waits for `healthPath` to answer 200. */
export async function startNodeServer(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  dir: string,
  url: string,
  healthPath: string,
  flags: string[] = [],
): Promise<Server> {
  const p = startProcess(name, process.execPath, [...flags, script, ...args], {
    env: { ...process.env, ...env },
    log: join(dir, 'logs', `${name}.log`),
  });
  await waitUntil(p, () => httpAnswers(`${url}${healthPath}`, 200), `${url}${healthPath}`);
  return { ...p, url };
}

/** Empties .data/bench (keeping nothing from an earlier run) and creates its folders. */
export function freshDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['logs', 'keys', 'requests']) mkdirSync(join(dir, sub), { recursive: true });
}

/**
 * One more auth server process beside `bench.auth`: the same environment (issuer, keys, secrets,
 * Redis and MongoDB) and Node flags, its own port (AS2's two Redis-adapter processes).
 */
export async function startAuthInstance(bench: Bench, name: string): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...bench.authEnv, AUTH_PORT: String(port) };
  const main = join(bench.root, 'packages/auth-server/dist/main.js');
  return startNodeServer(name, main, [], env, bench.dir, url, '/healthz', [...AUTH_SERVER_NODE_FLAGS]);
}

/**
 * The resource API's environment: production mode, in front of the auth server at `authUrl`
 * (introspecting as its static client), Redis (the revocation feed, same key prefix) and MongoDB
 * (the auth server's database, as in production). BASE_URL is the instance's own origin: the bench's
 * tokens carry no `aud`, and the API accepts an unbound token everywhere its scopes are.
 */
export function apiEnvironment(
  authEnv: Record<string, string>,
  authUrl: string,
  port: number,
): Record<string, string> {
  return {
    NODE_ENV: 'production',
    BASE_URL: `http://127.0.0.1:${port}`,
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    TRUST_PROXY: 'false',
    AUTH_INTERNAL_URL: authUrl,
    INTROSPECTION_CLIENT_ID: authEnv.INTROSPECTION_CLIENT_ID!,
    INTROSPECTION_CLIENT_SECRET: authEnv.INTROSPECTION_CLIENT_SECRET!,
    REDIS_URL: authEnv.REDIS_URL!,
    REDIS_KEY_PREFIX: authEnv.REDIS_KEY_PREFIX!,
    MONGODB_URI: authEnv.MONGODB_URI!,
    LOG_LEVEL: authEnv.LOG_LEVEL!,
  };
}
