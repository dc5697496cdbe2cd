/**
 * The lifecycle of self-registered clients on the real server and real Redis,
 * with periods of seconds instead of a day and 90 days: the sweep inside the server removes a client
 * that never completed an authorization and one whose tokens went unused, each with its grants and
 * tokens; it keeps a client in use and never touches operator clients; `school-auth clients sweep`
 * does the same by hand; and the sweep finishes what a client deleted behind the server left behind.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  isolatedAuthEnv,
  startTestAuthServer,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { createIntegration, createIntrospector } from '../src/provider/operator-clients.js';
import { sweepClients } from '../src/provider/client-sweep.js';
import { modelKey } from '../src/storage/redis-keys.js';
import { introspect, registerClient, signIn, tokenRequest, credentials } from './oauth-http.js';

const servers: TestAuthServer[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6390');
});
afterAll(async () => {
  await redis.quit();
  await Promise.all(servers.map((s) => s.stop()));
});

async function server(env: Record<string, string>): Promise<TestAuthServer> {
  const auth = await startTestAuthServer(env);
  servers.push(auth);
  return auth;
}

const clientKey = (auth: TestAuthServer, id: string) => `${auth.config.REDIS_KEY_PREFIX}Client:${id}`;
const stored = async (auth: TestAuthServer, id: string) => (await redis.exists(clientKey(auth, id))) === 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, timeoutMs: number, whileWaiting = async () => {}) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms`);
    await whileWaiting();
    await sleep(250);
  }
}

describe('the client lifecycle sweep inside the server', () => {
  it('removes an unused and an idle self-registered client with their tokens, keeps a used one, never an operator client', async () => {
    const auth = await server({ CLIENT_UNUSED_TTL: '4', CLIENT_IDLE_TTL: '3', CLIENT_SWEEP_INTERVAL: '1' });
    const unused = await registerClient(auth);
    const idle = await registerClient(auth);
    const busy = await registerClient(auth);
    const idleTokens = await signIn(auth, idle, { scope: 'openid courses:read' });
    const busyTokens = await signIn(auth, busy, { scope: 'openid courses:read' });
    const integration = await createIntegration(auth.running.provider, 'Partner', [
      'https://partner.example/cb',
    ]);
    const service = await createIntrospector(auth.running.provider, 'Reports');
    // Nobody ever uses the operator clients: they stay regardless.
    const integrationClient = { clientId: integration.client_id, clientSecret: integration.client_secret };

    // Keep `busy` in use (a resource server introspecting its token) until the other two are gone.
    await until(
      async () => !(await stored(auth, unused.clientId)) && !(await stored(auth, idle.clientId)),
      30_000,
      async () => {
        expect((await introspect(auth, busyTokens.access_token)).body).toMatchObject({ active: true });
      },
    );

    expect(await stored(auth, busy.clientId)).toBe(true);
    expect(await stored(auth, integration.client_id)).toBe(true);
    expect(await stored(auth, service.client_id)).toBe(true);
    expect((await introspect(auth, busyTokens.access_token)).body).toMatchObject({ active: true });
    for (const token of [idleTokens.access_token, idleTokens.refresh_token]) {
      expect((await introspect(auth, token)).body).toEqual({ active: false });
      expect(await redis.keys(`${auth.config.REDIS_KEY_PREFIX}*${token}`)).toEqual([]);
    }
    const refresh = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: busyTokens.refresh_token,
      ...credentials(busy),
    });
    expect(refresh.status).toBe(200);
    // The operator clients still authenticate (an unknown client would be invalid_client).
    const probe = await introspect(auth, 'x'.repeat(43), credentials(integrationClient));
    expect({ status: probe.status, body: probe.body }).toEqual({ status: 200, body: { active: false } });

    const events = await auth.running.audit.query({ type: 'client_deleted' });
    const reasons = Object.fromEntries(
      events.map((e) => [e.clientId ?? '', (e.details as { reason?: string } | undefined)?.reason] as const),
    );
    expect(reasons).toEqual({ [unused.clientId]: 'unused', [idle.clientId]: 'idle' });
  }, 60_000);
});

describe('school-auth clients sweep', () => {
  it('removes what is due at once and prints what it removed', async () => {
    const env = await isolatedAuthEnv({ CLIENT_UNUSED_TTL: '1', CLIENT_SWEEP_INTERVAL: '0' });
    const auth = await server(env);
    const unused = await registerClient(auth);
    const used = await registerClient(auth);
    await signIn(auth, used, { scope: 'openid' });
    await sleep(2500);

    const run = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, '../dist/cli/main.js'), 'clients', 'sweep'],
      {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      },
    );
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 0 });
    const printed = JSON.parse(run.stdout) as {
      skipped: boolean;
      removed: { client_id: string; reason: string }[];
    };
    expect(printed.skipped).toBe(false);
    expect(printed.removed.map((r) => [r.client_id, r.reason])).toEqual([[unused.clientId, 'unused']]);
    expect(await stored(auth, unused.clientId)).toBe(false);
    expect(await stored(auth, used.clientId)).toBe(true);
  }, 30_000);
});

describe('sweepClients', () => {
  it('ends the grants and tokens of a client deleted straight from Redis, and clears its last-use time', async () => {
    const auth = await server({ CLIENT_SWEEP_INTERVAL: '0' });
    const client = await registerClient(auth);
    const tokens = await signIn(auth, client, { scope: 'openid' });
    await redis.del(clientKey(auth, client.clientId));
    const policy = { unusedSeconds: 3600, idleSeconds: 3600 };

    const result = await sweepClients(auth.running.clients, policy);
    expect(result.removed).toEqual([
      expect.objectContaining({ clientId: client.clientId, reason: 'orphaned', existed: false, grants: 1 }),
    ]);
    const prefix = auth.config.REDIS_KEY_PREFIX;
    expect(await redis.exists(modelKey(prefix, 'AccessToken', tokens.access_token))).toBe(0);
    expect(await redis.exists(modelKey(prefix, 'RefreshToken', tokens.refresh_token))).toBe(0);
    expect(await redis.keys(`${prefix}clientGrants:*`)).toEqual([]);
    expect(await redis.hexists(`${prefix}clientUsedAt`, client.clientId)).toBe(0);
    expect((await sweepClients(auth.running.clients, policy)).removed).toEqual([]);
  });

  it('does nothing while another instance holds the sweep lock', async () => {
    const auth = await server({ CLIENT_UNUSED_TTL: '1', CLIENT_SWEEP_INTERVAL: '0' });
    const client = await registerClient(auth);
    const lock = `${auth.config.REDIS_KEY_PREFIX}clientSweepLock`;
    await redis.set(lock, 'another instance', 'PX', 60_000);
    const policy = { unusedSeconds: 1, idleSeconds: 1 };
    const later = Date.now() + 10_000;
    expect(await sweepClients(auth.running.clients, policy, later)).toEqual({ skipped: true, removed: [] });
    expect(await stored(auth, client.clientId)).toBe(true);
    await redis.del(lock);
    const swept = await sweepClients(auth.running.clients, policy, later);
    expect(swept.removed.map((r) => r.clientId)).toEqual([client.clientId]);
  });
});
