/**
 * Brings up the stack a bench run measures, all on 127.0.0.1 and on free ports:
 * - a dedicated Redis (same settings as scripts/services: append-only file, fsync every second), so
 *   its CPU is the auth server's alone and nothing else running on the machine shares it;
 * - a dedicated MongoDB-protocol server (BENCH_MONGODB_URI if set, else `mongod` if on PATH, else the
 *   FerretDB binary scripts/services built), for the same reason;
 * - the auth server as a real process, `node packages/auth-server/dist/main.js`, production mode;
 * - the bare reference server.
 * Data starts empty on every run (.data/bench is wiped), so runs are comparable.
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

/**
 * Node flags for the servers under test: BENCH_PROFILE=1 writes a CPU profile of each server when it
 * exits, into .data/bench-profiles/ (kept across runs; .data/bench is wiped at every start).
 * BENCH_NODE_FLAGS adds flags for experiments (e.g. "--max-semi-space-size=32").
 */
export function nodeFlags(dir: string): string[] {
  const extra = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  return process.env.BENCH_PROFILE === '1'
    ? [...extra, '--cpu-prof', `--cpu-prof-dir=${join(dir, '..', 'bench-profiles')}`]
    : extra;
}

/** Starts a Node server `script` with `env` (run by `node`, default this process's) and waits for `healthPath`. */
export async function startNodeServer(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  dir: string,
  url: string,
  healthPath: string,
  flags: string[] = [],
  node = process.execPath,
): Promise<Server> {
  const p = startProcess(name, node, [...nodeFlags(dir), ...flags, script, ...args], {
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
 * The auth server's own Node flags (its src/node-flags.ts) for a server run by `node`: all of them on
 * this Node, none on another (P1–P3's Node 20, which has no async context frames and would refuse the
 * flag).
 */
export function authServerFlags(node = process.execPath): string[] {
  return node === process.execPath ? [...AUTH_SERVER_NODE_FLAGS] : [];
}

/**
 * One more auth server process beside `bench.auth`: the same environment (issuer, keys, secrets,
 * Redis and MongoDB), its own port, run by `node` (SCALE's second process; P1–P3's Node 20 run).
 */
export async function startAuthInstance(
  bench: Bench,
  name: string,
  node = process.execPath,
  extraEnv: Record<string, string> = {},
  script = join(bench.root, 'packages/auth-server/dist/main.js'),
): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...bench.authEnv, AUTH_PORT: String(port), ...extraEnv };
  return startNodeServer(name, script, [], env, bench.dir, url, '/healthz', authServerFlags(node), node);
}
