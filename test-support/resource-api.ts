/**
 * Boots the real resource API in-process next to a test auth server: the API's BASE_URL is the auth
 * server's issuer (so bound tokens name it), it introspects at the auth server directly with the
 * static introspection client, shares the auth server's MongoDB database (the `account` area reads
 * its accounts) and listens for revocations on the auth server's Redis prefix (and Redis Cluster). Any setting can be
 * overridden, e.g. a different BASE_URL to see a foreign-audience token refused.
 */
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll } from '@jest/globals';
import { loadConfig, type ApiConfig } from '../packages/resource-api/src/config.js';
import { createLogger, type Logger } from '../packages/resource-api/src/logger.js';
import { SCOPE_USE_HEADER } from '../packages/resource-api/src/auth/introspection-client.js';
import {
  startResourceApi,
  type RunningResourceApi,
  type StartOptions,
} from '../packages/resource-api/src/server.js';
import { INTROSPECTOR, startTestAuthServer, type TestAuthServer } from './auth-server.js';

/** A test's resource API. */
export interface TestResourceApi {
  url: string;
  config: ApiConfig;
  running: RunningResourceApi;
  stop(): Promise<void>;
}

/** Starts a resource API for `auth` on a free port (`options.logger`: e.g. one that captures its lines). */
export async function startTestResourceApi(
  auth: Pick<TestAuthServer, 'issuer' | 'config'>,
  env: Record<string, string> = {},
  options: StartOptions & { logger?: Logger } = {},
): Promise<TestResourceApi> {
  const config = loadConfig({
    NODE_ENV: 'test',
    BASE_URL: auth.issuer,
    API_HOST: '127.0.0.1',
    API_PORT: '0',
    AUTH_INTERNAL_URL: auth.issuer,
    INTROSPECTION_CLIENT_ID: INTROSPECTOR.clientId,
    INTROSPECTION_CLIENT_SECRET: INTROSPECTOR.clientSecret,
    MONGODB_URI: auth.config.MONGODB_URI,
    REDIS_URL: auth.config.REDIS_URL,
    ...(auth.config.REDIS_CLUSTER_NODES && {
      REDIS_CLUSTER_NODES: auth.config.REDIS_CLUSTER_NODES.map((n) => `${n.host}:${n.port}`).join(','),
    }),
    REDIS_KEY_PREFIX: auth.config.REDIS_KEY_PREFIX,
    LOG_LEVEL: 'silent',
    ...env,
  });
  const running = await startResourceApi(config, options.logger ?? createLogger(config.LOG_LEVEL), options);
  return { url: running.url, config, running, stop: () => running.close() };
}

/** A resource API for `auth` started with `env` for the duration of `use`, then stopped. */
export async function withResourceApi(
  auth: Pick<TestAuthServer, 'issuer' | 'config'>,
  env: Record<string, string>,
  use: (api: TestResourceApi) => Promise<void>,
): Promise<void> {
  const api = await startTestResourceApi(auth, env);
  try {
    await use(api);
  } finally {
    await api.stop();
  }
}

/**
 * The auth server (started with `env.auth`) and the resource API in front of it (with `env.api`) a
 * file's tests share: both started before the file's tests (a `beforeAll` declared after this call
 * sees them started); after the tests the API is stopped, then the auth server. The objects returned
 * are filled in when they have started.
 */
export function authAndApiForFile(
  env: { auth?: Record<string, string>; api?: Record<string, string> } = {},
): { auth: TestAuthServer; api: TestResourceApi } {
  const auth = {} as TestAuthServer;
  const api = {} as TestResourceApi;
  beforeAll(async () => {
    Object.assign(auth, await startTestAuthServer(env.auth));
    Object.assign(api, await startTestResourceApi(auth, env.api));
  });
  afterAll(async () => {
    await api.stop?.();
    await auth.stop?.();
  });
  return { auth, api };
}

/**
 * Counts the introspection requests the auth server receives, by watching its HTTP server's requests
 * (no mock: the real calls, counted where they arrive). Call `attach()` again after a restart.
 */
export function introspectionCounter(auth: TestAuthServer) {
  const counter = {
    count: 0,
    attach() {
      auth.running.server.on('request', (req: IncomingMessage) => {
        // Token checks only: the API's reports of a scope's use (auth/scope-use.ts) are marked.
        if (
          req.method === 'POST' &&
          req.url?.startsWith('/api/oauth/introspect') &&
          !req.headers[SCOPE_USE_HEADER]
        )
          counter.count++;
      });
    },
  };
  counter.attach();
  return counter;
}

/** One HTTP answer, read fully. */
export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Calls the API: `token` goes into the Authorization header; `json` is sent as the body. */
export async function call(
  base: string,
  path: string,
  init: {
    method?: string;
    token?: string;
    authorization?: string;
    json?: unknown;
    headers?: Record<string, string>;
    body?: string | Buffer;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.authorization) headers.authorization = init.authorization;
  let body: string | Buffer | undefined = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(`${base}${path}`, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}
