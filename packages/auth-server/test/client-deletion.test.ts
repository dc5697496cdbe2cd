/**
 * Deleting a client ends everything issued to it, on the real server and real
 * Redis: its access and refresh tokens, its unredeemed codes and its grants are gone before the client
 * is, resource servers are told (the revocation feed), and a token whose client vanished some other
 * way (deleted straight from Redis) is simply inactive everywhere: never a 500.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  operatorCommandEnv,
  startTestAuthServer,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { deleteClient } from '../src/provider/operator-clients.js';
import { clientGrantsKey, modelKey } from '../src/storage/redis-keys.js';
import { revocationChannel, tokenHash } from '@school/shared';
import {
  codeExchange,
  credentials,
  expectOAuthError,
  introspect,
  obtainCode,
  postForm,
  registerClient,
  revoke,
  signIn,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

let auth: TestAuthServer;
let redis: Redis;
/** A confidential client that outlives every test: it tries the deleted clients' tokens. */
let bystander: TestClient;

beforeAll(async () => {
  auth = await startTestAuthServer();
  redis = new Redis(auth.config.REDIS_URL);
  bystander = await registerClient(auth, { token_endpoint_auth_method: 'client_secret_post' });
});
afterAll(async () => {
  await redis.quit();
  await auth.stop();
});

/** A refresh of `refreshToken` by `client`, with its credentials. */
const refreshBy = (client: TestClient, refreshToken: string) =>
  tokenRequest(auth, { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials(client) });

const userinfo = (token: string) =>
  fetch(`${auth.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });

/** The keys stored under this server's prefix whose name contains `part`. */
const keysWith = async (part: string) =>
  (await redis.keys(`${auth.config.REDIS_KEY_PREFIX}*`)).filter((k) => k.includes(part));

/** Every way a token of a client that is no longer there can be presented; each must refuse cleanly. */
async function expectEveryUseRefused(tokens: { access: string; refresh: string }) {
  for (const token of [tokens.access, tokens.refresh]) {
    const res = await introspect(auth, token);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { active: false } });
  }

  const info = await userinfo(tokens.access);
  expect(info.status).toBe(401);
  expect(info.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);

  // Another client presenting the refresh token: the grant it names is over.
  expectOAuthError(await refreshBy(bystander, tokens.refresh), 400, 'invalid_grant');

  for (const token of [tokens.access, tokens.refresh]) {
    const res = await revoke(auth, { token, ...credentials(bystander) });
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: '' });
  }
}

describe('deleting a client (school-auth clients delete)', () => {
  it('ends its access and refresh tokens, unredeemed codes and grants, then the client', async () => {
    const client = await registerClient(auth);
    const first = await signIn(auth, client, { scope: 'openid profile courses:read' });
    const second = await signIn(auth, client, { scope: 'openid students:read', resource: auth.issuer });
    const pending = await obtainCode(auth, client, { scope: 'openid' });
    const published: string[] = [];
    const subscriber = new Redis(auth.config.REDIS_URL);
    await subscriber.subscribe(revocationChannel(auth.config.REDIS_KEY_PREFIX));
    subscriber.on('message', (_channel, message: string) =>
      published.push(...(JSON.parse(message) as { tokens: string[] }).tokens),
    );
    try {
      expect(await deleteClient(auth.running.clients, client.clientId)).toBe(true);
      // Resource servers caching introspection answers are told at once.
      const expected = [first.access_token, second.access_token].map(tokenHash).sort();
      await waitFor(() => expected.every((h) => published.includes(h)));
      expect(published.filter((h) => expected.includes(h)).sort()).toEqual(expected);
    } finally {
      await subscriber.quit();
    }

    await expectEveryUseRefused({ access: first.access_token, refresh: first.refresh_token });
    await expectEveryUseRefused({ access: second.access_token, refresh: second.refresh_token });
    // The client itself is unknown now: its own requests fail client authentication.
    expectOAuthError(await refreshBy(client, first.refresh_token), 401, 'invalid_client');
    expectOAuthError(await tokenRequest(auth, codeExchange(client, pending)), 401, 'invalid_client');

    // Nothing of it is left in storage: no token, code, grant, grant list or index names it.
    for (const token of [first.access_token, first.refresh_token, second.access_token, pending.code]) {
      expect(await keysWith(token)).toEqual([]);
    }
    const keys = await redis.keys(`${auth.config.REDIS_KEY_PREFIX}*`);
    const values = await Promise.all(
      keys.map((k) => redis.type(k).then((t) => (t === 'string' ? redis.get(k) : null))),
    );
    const naming = values.filter((v): v is string => v?.includes(client.clientId) ?? false);
    // Only login sessions still name it (not rewritten: they expire by themselves), and the grants they
    // name for it are gone, so oidc-provider treats them as none.
    const sessions = naming.map(
      (v) => JSON.parse(v) as { kind: string; authorizations: Record<string, { grantId: string }> },
    );
    expect(sessions.every((v) => v.kind === 'Session')).toBe(true);
    for (const session of sessions) {
      expect(
        await redis.exists(
          modelKey(auth.config.REDIS_KEY_PREFIX, 'Grant', session.authorizations[client.clientId]!.grantId),
        ),
      ).toBe(0);
    }
    // Rate-limit counters aside (they expire within their minute), no key names it either.
    expect((await keysWith(client.clientId)).filter((k) => !k.includes(':rl:'))).toEqual([]);
    expect(await deleteClient(auth.running.clients, client.clientId)).toBe(false);
  });

  it('ends every grant of a client with more grants than one removal step takes', async () => {
    const { clientId } = await registerClient(auth);
    const { provider } = auth.running;
    const client = (await provider.Client.find(clientId))!;
    const accessTokens: string[] = [];
    for (let i = 0; i < 230; i++) {
      const grant = new provider.Grant({ clientId, accountId: `account-${i}` });
      grant.addOIDCScope('openid');
      const grantId = await grant.save();
      const token = new provider.AccessToken({
        accountId: `account-${i}`,
        client,
        grantId,
        gty: 'authorization_code',
        scope: 'openid',
      });
      accessTokens.push(await token.save());
    }
    expect(await isActiveToken(accessTokens[229]!)).toBe(true);
    expect(await redis.scard(clientGrantsKey(auth.config.REDIS_KEY_PREFIX, clientId))).toBe(230);

    expect(await deleteClient(auth.running.clients, clientId)).toBe(true);
    expect(await keysWith(clientId)).toEqual([]);
    expect(
      await redis.exists(
        ...accessTokens.map((t) => modelKey(auth.config.REDIS_KEY_PREFIX, 'AccessToken', t)),
      ),
    ).toBe(0);
    expect((await auth.running.audit.query({ type: 'client_deleted', clientId }))[0]?.details).toEqual({
      reason: 'operator',
      client_name: 'test client',
      grants: 230,
      tokens: 230,
    });
  });

  it('leaves the grants and tokens of other clients alone', async () => {
    const doomed = await registerClient(auth);
    const survivor = await registerClient(auth);
    await signIn(auth, doomed, { scope: 'openid' });
    const kept = await signIn(auth, survivor, { scope: 'openid' });
    expect(await deleteClient(auth.running.clients, doomed.clientId)).toBe(true);
    expect((await introspect(auth, kept.access_token)).body).toMatchObject({ active: true });
    const refreshed = await refreshBy(survivor, kept.refresh_token);
    expect(refreshed.status).toBe(200);
  });
});

describe('school-auth clients delete (another process)', () => {
  it('ends the tokens at once for this running server, and records who removed the client', async () => {
    const client = await registerClient(auth);
    const tokens = await signIn(auth, client, { scope: 'openid profile' });
    const run = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, '../dist/cli/main.js'), 'clients', 'delete', client.clientId],
      { env: { ...process.env, ...operatorCommandEnv(auth.config) }, encoding: 'utf8' },
    );
    if (run.status !== 0) throw new Error(`school-auth clients delete exited ${run.status}: ${run.stderr}`);
    expect(JSON.parse(run.stdout)).toEqual({ client_id: client.clientId, deleted: true });

    await expectEveryUseRefused({ access: tokens.access_token, refresh: tokens.refresh_token });
    // This server may still hold the client in its few-second cache: then the refresh token is
    // unknown (invalid_grant); once it does not, the client is (invalid_client). Never a success.
    const own = await refreshBy(client, tokens.refresh_token);
    expect([
      [400, 'invalid_grant'],
      [401, 'invalid_client'],
    ]).toContainEqual([own.status, own.body?.error]);

    const events = await auth.running.audit.query({ type: 'client_deleted', clientId: client.clientId });
    expect(events.map((e) => e.details)).toEqual([
      { reason: 'operator', client_name: 'test client', grants: 1, tokens: 3 },
    ]);

    const again = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, '../dist/cli/main.js'), 'clients', 'delete', client.clientId],
      { env: { ...process.env, ...operatorCommandEnv(auth.config) }, encoding: 'utf8' },
    );
    expect({ status: again.status, stderr: again.stderr }).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(`There is no stored client ${client.clientId}.`),
    });
  }, 30_000);
});

describe('a token whose client vanished from storage behind the server', () => {
  it('introspects as {active:false} (not a 500), fails userinfo with 401 invalid_token, refuses refresh with invalid_grant and revokes with 200', async () => {
    const client = await registerClient(auth);
    const tokens = await signIn(auth, client, { scope: 'openid profile' });
    await redis.del(`${auth.config.REDIS_KEY_PREFIX}Client:${client.clientId}`);
    // A fresh process: nothing of the client is cached in memory any more.
    await auth.restart();
    await expectEveryUseRefused({ access: tokens.access_token, refresh: tokens.refresh_token });
    const raw = await postForm(`${auth.issuer}/api/oauth/introspect`, {
      token: tokens.access_token,
      token_type_hint: 'access_token',
      client_id: 'resource-api',
      client_secret: auth.config.INTROSPECTION_CLIENT_SECRET,
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({ active: false });
  });
});

async function isActiveToken(token: string): Promise<boolean> {
  return (await introspect(auth, token)).body?.active === true;
}

/** The environment of this suite's server, for the operator command. */
async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
