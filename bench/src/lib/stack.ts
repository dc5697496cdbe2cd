/**
 * What a run measures, on 127.0.0.1 and free ports, from an empty .data/bench: a dedicated Redis and
 * MongoDB-protocol server (their CPU the services' alone) and Node servers in production mode.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { privateMongo, privateRedis } from '#test-support/private-servers.js';
import { freePort, httpAnswers, startProcess, waitUntil } from '#test-support/processes.js';
import type { Server } from './bench.js';

/** Empties .data/bench and creates its folders. */
export function freshDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['logs', 'keys', 'requests']) mkdirSync(join(dir, sub), { recursive: true });
}

/** The dedicated Redis (AOF fsynced every second) and MongoDB-protocol server (absent if external). */
export async function startStores(dir: string): Promise<{ redis: Server; mongo?: Server; mongoUri: string }> {
  const log = (name: string) => join(dir, 'logs', `${name}.log`);
  const r = await privateRedis({ dir: join(dir, 'redis'), log: log('redis'), fsync: 'everysec' });
  const redis = { ...r.process!, url: r.url };
  const external = process.env.BENCH_MONGODB_URI;
  if (external) return { redis, mongoUri: external };
  const m = await privateMongo({ dir: join(dir, 'mongo'), log: log('mongo'), database: 'bench' });
  return { redis, mongo: { ...m.process!, url: m.url }, mongoUri: m.url };
}

/**
 * Starts `node flags script` on a free port (or `port`), its environment `env(port, url)` plus PORT
 * (which the bench's own servers listen on), its log in DIR/logs; resolves once `health` answers 200.
 */
export async function startNode(
  dir: string,
  name: string,
  script: string,
  opts: {
    env?: (port: number, url: string) => Record<string, string>;
    port?: number;
    health?: string;
    flags?: string[];
  } = {},
): Promise<Server> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const p = startProcess(name, process.execPath, [...(opts.flags ?? []), script], {
    env: { ...process.env, ...opts.env?.(port, url), PORT: String(port) },
    log: join(dir, 'logs', `${name}.log`),
  });
  const health = `${url}${opts.health ?? '/healthz'}`;
  await waitUntil(p, () => httpAnswers(health, 200), health);
  return { ...p, url };
}

/** The auth server's environment (production mode, fresh secrets). */
export function authEnvironment(dir: string, redisUrl: string, mongoUri: string, port: number) {
  // Rate limits stay in the path (each request still counts in Redis) but so high that the load of
  // one bench client never reaches them: the bench measures capacity, not the policy.
  const limits = ['AUTHORIZATION', 'REGISTRATION', 'TOKEN', 'INTROSPECTION', 'REVOCATION', 'PER_ADDRESS'];
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
    ...Object.fromEntries(limits.map((k) => [`RATE_LIMIT_${k}`, '1000000000'])),
  };
}

/**
 * The resource API's environment: production mode, introspecting at `authUrl` as its static client,
 * the auth server's Redis (revocation feed) and MongoDB. BASE_URL is its own origin: the bench's
 * tokens carry no `aud`, and the API accepts an unbound token wherever its scopes are.
 */
export function apiEnvironment(authEnv: Record<string, string>, authUrl: string, port: number, url: string) {
  const keep = ['INTROSPECTION_CLIENT_ID', 'INTROSPECTION_CLIENT_SECRET', 'REDIS_URL', 'REDIS_KEY_PREFIX'];
  return {
    ...Object.fromEntries([...keep, 'MONGODB_URI', 'LOG_LEVEL'].map((k) => [k, authEnv[k]!])),
    NODE_ENV: 'production',
    BASE_URL: url,
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    TRUST_PROXY: 'false',
    AUTH_INTERNAL_URL: authUrl,
  };
}
