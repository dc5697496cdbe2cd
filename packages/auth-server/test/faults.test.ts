/**
 * Faults, with real processes stopped and started: Redis going away under load (503
 * temporarily_unavailable, recovery without a restart, nothing issued before the outage lost),
 * MongoDB going away (a clear sign-in page, 503 at userinfo), and an auth server killed with SIGKILL
 * mid-flow (a code stays single-use and a rotated refresh token stays dead).
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { signInAsAdmin } from '../../../test-support/openid-client.js';
import {
  ADMIN,
  dropAuthStorage,
  INTROSPECTOR,
  isolatedAuthEnv,
  startTestAuthServer,
} from '../../../test-support/auth-server.js';
import { loadConfig } from '../src/config.js';
import { AUTH_SERVER_NODE_FLAGS } from '../src/node-flags.js';
import { FormBrowser, formAction, inputValue } from '../../../test-support/form-browser.js';
import { privateMongo, privateRedis, type ServerProcess } from '../../../test-support/private-servers.js';
import { httpAnswers, startProcess, waitUntil } from '../../../test-support/processes.js';

const REDIRECT = 'http://127.0.0.1:47000/cb';
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const signIn = (issuer: string, scope = 'openid profile courses:read') =>
  signInAsAdmin(issuer, REDIRECT, scope);

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body),
});

async function introspect(issuer: string, token: string): Promise<Response> {
  return fetch(
    `${issuer}/api/oauth/introspect`,
    form({ token, client_id: INTROSPECTOR.clientId, client_secret: INTROSPECTOR.clientSecret }),
  );
}

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

describe('Redis stopped while the auth server is under load', () => {
  it('answers 503 temporarily_unavailable during the outage, recovers on its own, and loses nothing issued before', async () => {
    const redis: ServerProcess = await privateRedis();
    cleanups.push(() => redis.stop('SIGKILL'));
    const auth = await startTestAuthServer({ REDIS_URL: redis.url });
    cleanups.push(() => auth.running.close());
    const { config, tokens } = await signIn(auth.issuer);

    // Load in the background for the whole test: registrations, introspections, token requests.
    let running = true;
    const statuses: number[] = [];
    const load = (async () => {
      while (running) {
        const res = await Promise.all([
          fetch(`${auth.issuer}/api/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ redirect_uris: [REDIRECT] }),
          }),
          introspect(auth.issuer, tokens.access_token),
        ]).catch(() => []);
        for (const r of res) statuses.push(r.status);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // Stopped here too when an assertion below fails first: a loop left running keeps jest alive.
    cleanups.push(async () => {
      running = false;
      await load;
    });

    await new Promise((r) => setTimeout(r, 300));
    await redis.stop('SIGTERM');

    const register = await fetch(`${auth.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT] }),
    });
    const token = await fetch(
      `${auth.issuer}/api/oauth/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: 'whatever',
        client_id: config.clientMetadata().client_id,
      }),
    );
    const info = await introspect(auth.issuer, tokens.access_token);
    for (const res of [register, token, info]) {
      expect(res.status).toBe(503);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body.error).toBe('temporarily_unavailable');
      expect(typeof body.error_description).toBe('string');
    }

    await redis.start();
    await until(async () => (await introspect(auth.issuer, tokens.access_token)).status === 200);
    running = false;
    await load;

    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
    expect(await (await introspect(auth.issuer, tokens.access_token)).json()).toMatchObject({ active: true });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));
  });
});

describe('MongoDB stopped', () => {
  it('shows a clear sign-in page and answers 503 at userinfo, then recovers', async () => {
    const mongo = await privateMongo();
    cleanups.push(() => mongo.stop('SIGKILL'));
    const auth = await startTestAuthServer({ MONGODB_URI: mongo.url });
    cleanups.push(() => auth.running.close());
    const { tokens, config } = await signIn(auth.issuer);

    const browser = new FormBrowser(auth.issuer);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const login = await browser.follow(url.href);
    await mongo.stop('SIGTERM');

    const page = await browser.request(formAction(login.body, '/login')!, {
      form: { csrf: inputValue(login.body, 'csrf')!, email: ADMIN.email, password: ADMIN.password },
    });
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain('Sign-in is briefly unavailable');
    const me = await fetch(`${auth.issuer}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(503);
    expect(await me.json()).toMatchObject({ error: 'temporarily_unavailable' });

    await mongo.start();
    await until(
      async () =>
        (
          await fetch(`${auth.issuer}/api/oauth/userinfo`, {
            headers: { authorization: `Bearer ${tokens.access_token}` },
          })
        ).status === 200,
      20_000,
    );
  }, 45_000);
});

describe('the auth server killed with SIGKILL mid-flow', () => {
  it('keeps a code single-use and a rotated refresh token dead after the restart', async () => {
    // A real auth-server process, so it can really be killed.
    const env = await isolatedAuthEnv();
    const config = loadConfig(env);
    cleanups.push(() => dropAuthStorage(config));
    const issuer = config.BASE_URL;
    const main = resolve(import.meta.dirname, '../dist/main.js');
    const launch = async () => {
      const server = startProcess('auth server', process.execPath, [...AUTH_SERVER_NODE_FLAGS, main], {
        env: { ...process.env, ...env },
      });
      await waitUntil(server, () => httpAnswers(`${issuer}/healthz`, 200), 'its /healthz', 15_000);
      return server;
    };
    const seeded = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, '../dist/cli/main.js'), 'seed-admin'],
      {
        env: {
          ...process.env,
          ...env,
          SEED_ADMIN_EMAIL: ADMIN.email,
          SEED_ADMIN_PASSWORD: ADMIN.password,
          SEED_ADMIN_NAME: ADMIN.name,
        },
      },
    );
    expect(seeded.status).toBe(0);
    let child = await launch();
    cleanups.push(() => child.stop('SIGKILL'));

    const first = await signIn(issuer);
    const rotated = await oidc.refreshTokenGrant(first.config, first.tokens.refresh_token!);

    await child.stop('SIGKILL');
    child = await launch();

    const replay = await fetch(
      `${issuer}/api/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: first.callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: first.config.clientMetadata().client_id,
        code_verifier: first.verifier,
      }),
    );
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });

    const reuse = await fetch(
      `${issuer}/api/oauth/token`,
      form({
        grant_type: 'refresh_token',
        refresh_token: first.tokens.refresh_token!,
        client_id: first.config.clientMetadata().client_id,
      }),
    );
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    // Reuse revoked the grant: the rotated token died with it.
    expect(await (await introspect(issuer, rotated.access_token)).json()).toEqual({ active: false });
  }, 45_000);
});
