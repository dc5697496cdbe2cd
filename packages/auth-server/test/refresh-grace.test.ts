/**
 * Refresh tokens that survive concurrent clients: within REFRESH_REUSE_GRACE of a rotation,
 * the same refresh token from the same client gets the very tokens the first refresh issued, whichever
 * of two auth-server instances (one Redis) answers and however the requests interleave; after the
 * window, reuse revokes the whole grant and is audited; a grant revoked meanwhile is not brought back.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { freePort } from '../../../test-support/processes.js';
import { createLogger } from '../src/logger.js';
import { startAuthServer, type RunningAuthServer } from '../src/server.js';
import {
  credentials,
  expectOAuthError,
  isActive,
  registerClient,
  revoke,
  signIn,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

let auth: TestAuthServer;
let second: RunningAuthServer;
let client: TestClient;
const GRACE_SECONDS = 2;

beforeAll(async () => {
  auth = await startTestAuthServer({ REFRESH_REUSE_GRACE: String(GRACE_SECONDS) });
  // A second instance of the same deployment: same issuer, Redis prefix, database and keys.
  second = await startAuthServer({ ...auth.config, port: await freePort() }, createLogger('silent'));
  client = await registerClient(auth);
});
afterAll(async () => {
  await second?.close();
  await auth?.stop();
});

const refreshAt = (issuer: string, refreshToken: string) =>
  tokenRequest(
    { issuer },
    { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials(client) },
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('within the grace period', () => {
  it('answers parallel refreshes with one token through two instances with the same new tokens', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => refreshAt(i % 2 ? second.url : auth.issuer, first.refresh_token)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const refreshTokens = new Set(answers.map((a) => a.body?.refresh_token));
    const accessTokens = new Set(answers.map((a) => a.body?.access_token));
    expect([refreshTokens.size, accessTokens.size]).toEqual([1, 1]);
    const [successor] = answers.map((a) => a.body as { access_token: string; refresh_token: string });
    expect(successor!.refresh_token).not.toBe(first.refresh_token);
    // The grant lives on: the shared new tokens work, and the next rotation too.
    expect(await isActive(auth, successor!.access_token)).toBe(true);
    expect((await refreshAt(auth.issuer, successor!.refresh_token)).status).toBe(200);
  });

  it('answers a later presentation of the rotated token, still within the window, the same way', async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    const rotated = await refreshAt(auth.issuer, first.refresh_token);
    await sleep(300);
    const again = await refreshAt(second.url, first.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body?.refresh_token).toBe(rotated.body?.refresh_token);
    expect(again.body?.access_token).toBe(rotated.body?.access_token);
  });

  it('does not bring back a grant revoked meanwhile', async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    const rotated = await refreshAt(auth.issuer, first.refresh_token);
    const successor = String(rotated.body?.refresh_token);
    expect((await revoke(auth, { token: successor, ...credentials(client) })).status).toBe(200);
    expectOAuthError(await refreshAt(auth.issuer, first.refresh_token), 400, 'invalid_grant');
    expect(await isActive(auth, String(rotated.body?.access_token))).toBe(false);
  });

  it("refuses another client's presentation of the token, as always", async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    await refreshAt(auth.issuer, first.refresh_token);
    const other = await registerClient(auth);
    const res = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      ...credentials(other),
    });
    expectOAuthError(res, 400, 'invalid_grant');
  });
});

describe('after the grace period', () => {
  it('revokes the whole grant on reuse of the rotated token and audits it', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const rotated = await refreshAt(auth.issuer, first.refresh_token);
    const successor = rotated.body as { access_token: string; refresh_token: string };
    await sleep(GRACE_SECONDS * 1000 + 1200);
    expectOAuthError(await refreshAt(second.url, first.refresh_token), 400, 'invalid_grant');
    expect([
      await isActive(auth, successor.access_token),
      await isActive(auth, successor.refresh_token),
    ]).toEqual([false, false]);
    // Audit events are written in batches: look for up to five seconds.
    let events: unknown[] = [];
    for (let tries = 0; tries < 50 && events.length === 0; tries++) {
      events = await auth.running.audit.query({ clientId: client.clientId, type: 'refresh_token_reuse' });
      if (events.length === 0) await sleep(100);
    }
    expect(events.length).toBeGreaterThan(0);
  }, 20_000);
});
