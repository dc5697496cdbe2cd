/**
 * The refresh-token reuse window (REFRESH_REUSE_GRACE, provider/refresh-extension/), through two
 * auth-server instances on one Redis: within the window, a rotated refresh token presented again by
 * the same client from the address of the grant's last refresh gets the grant's current refresh token
 * and a fresh access token (separate agent processes racing with one token, and a token two rotations
 * old, included), audited and shown on Connected apps; a rotated token never introspects active.
 * Anything else (another address, another client, outside the window) revokes the whole grant on
 * every instance and is audited. The DPoP-bound cases are in dpop.test.ts.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { twoInstancesForFile, isolatedAuthEnv } from '../../../test-support/auth-server.js';
import { postFormFrom } from '../../../test-support/from-address.js';
import { connectedApps } from '../src/account-pages/connected-apps.js';
import type { AuditEventType } from '../src/audit/audit-log.js';
import { loadConfig } from '../src/config.js';
import {
  credentials,
  auditedEvents,
  expectOAuthError,
  introspect,
  isActive,
  registerClient,
  revoke,
  signIn,
  tokenRequest,
  type HttpResult,
  type TestClient,
} from './oauth-http.js';

let client: TestClient;
const WINDOW_SECONDS = 3;

const { auth, second } = twoInstancesForFile({ REFRESH_REUSE_GRACE: String(WINDOW_SECONDS) });
beforeAll(async () => {
  client = await registerClient(auth);
});

interface Refreshed {
  access_token: string;
  refresh_token: string;
}

const refreshAt = (issuer: string, refreshToken: string, as: TestClient = client) =>
  tokenRequest({ issuer }, { grant_type: 'refresh_token', refresh_token: refreshToken, ...credentials(as) });

/** A refresh sent from another loopback address than the test's own (127.0.0.1). */
const refreshFrom = (localAddress: string, issuer: string, refreshToken: string) =>
  postFormFrom(issuer, localAddress, '/api/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...credentials(client),
  });

const tokensOf = (res: HttpResult): Refreshed => {
  expect(res.status).toBe(200);
  return res.body as unknown as Refreshed;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Audit events of `type` for the test client whose details say `details` (written in batches). */
const audited = (type: AuditEventType, details: RegExp) =>
  auditedEvents(auth, type, client.clientId, details);

/**
 * One agent process: a separate Node process that refreshes `refreshToken` once at `issuer`, as an
 * agent's CLI or desktop session does with the token file it shares with its siblings.
 */
const AGENT = `
const [issuer, refreshToken, clientId] = process.argv.slice(-3);
const res = await fetch(issuer + '/api/oauth/token', {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
});
process.stdout.write(JSON.stringify({ status: res.status, body: await res.json() }));
`;
async function agentProcess(
  issuer: string,
  refreshToken: string,
): Promise<{ status: number; body: Refreshed }> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--input-type=module',
    '-e',
    AGENT,
    issuer,
    refreshToken,
    client.clientId,
  ]);
  return JSON.parse(stdout) as { status: number; body: Refreshed };
}

it('is ten minutes unless configured', async () => {
  expect(loadConfig(await isolatedAuthEnv()).REFRESH_REUSE_GRACE).toBe(600);
});

describe('within the window, from the same installation', () => {
  it('answers separate agent processes refreshing one token through two instances with one token family', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        agentProcess(i % 2 ? second.url : auth.issuer, first.refresh_token),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    // One live refresh token for all of them: the grant's current one.
    const refreshTokens = new Set(answers.map((a) => a.body.refresh_token));
    expect(refreshTokens.size).toBe(1);
    const [current] = refreshTokens;
    expect(current).not.toBe(first.refresh_token);
    for (const { body } of answers) expect(await isActive(auth, body.access_token)).toBe(true);
    expect(await isActive(auth, first.refresh_token)).toBe(false);
    // The grant lives on: the next rotation works, from either instance.
    const next = tokensOf(await refreshAt(second.url, current!));
    expect(await isActive(auth, next.access_token)).toBe(true);
  });

  it("answers a token two rotations old with the grant's current refresh token and a fresh access token", async () => {
    const a = await signIn(auth, client, { scope: 'openid courses:read' });
    const b = tokensOf(await refreshAt(auth.issuer, a.refresh_token));
    const c = tokensOf(await refreshAt(second.url, b.refresh_token));
    await sleep(1100);
    const again = tokensOf(await refreshAt(second.url, a.refresh_token));
    expect(again.refresh_token).toBe(c.refresh_token);
    expect([a.access_token, b.access_token, c.access_token]).not.toContain(again.access_token);
    expect(await isActive(auth, again.access_token)).toBe(true);
    // The answer did not rotate anything: the current token works on, and rotates as usual.
    const d = tokensOf(await refreshAt(auth.issuer, c.refresh_token));
    expect(d.refresh_token).not.toBe(c.refresh_token);
    expect(await audited('refresh_token_reuse_allowed', /"same_installation_by":"address"/)).not.toEqual([]);
  });

  it('never introspects a rotated refresh token as active', async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    const rotated = tokensOf(await refreshAt(auth.issuer, first.refresh_token));
    expect((await introspect(auth, first.refresh_token)).body).toEqual({ active: false });
    expect((await introspect({ issuer: second.url }, first.refresh_token)).body).toEqual({ active: false });
    expect(await isActive(auth, rotated.refresh_token)).toBe(true);
  });

  it('shows the reuse on Connected apps', async () => {
    const other = await registerClient(auth, { client_name: 'several places' });
    const first = await signIn(auth, other, { scope: 'openid' });
    await refreshAt(auth.issuer, first.refresh_token, other);
    expect((await refreshAt(second.url, first.refresh_token, other)).status).toBe(200);
    const sub = String((await introspect(auth, first.access_token)).body?.sub);
    const apps = await connectedApps(
      {
        provider: auth.running.provider,
        redis: auth.running.redis,
        prefix: auth.config.REDIS_KEY_PREFIX,
        audit: auth.running.audit,
      },
      sub,
    );
    expect(apps.find((app) => app.clientId === other.clientId)?.reuse?.count).toBe(1);
  });

  it('does not bring back a grant revoked meanwhile', async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    const rotated = tokensOf(await refreshAt(auth.issuer, first.refresh_token));
    expect((await revoke(auth, { token: rotated.refresh_token, ...credentials(client) })).status).toBe(200);
    expectOAuthError(await refreshAt(auth.issuer, first.refresh_token), 400, 'invalid_grant');
    expect(await isActive(auth, rotated.access_token)).toBe(false);
  });
});

describe('as theft: the whole grant ends on every instance, audited', () => {
  /** Every token of `tokens` refused by both instances. */
  const everyTokenRefused = async (tokens: string[]) => {
    for (const issuer of [auth.issuer, second.url])
      for (const token of tokens) expect(await isActive({ issuer }, token)).toBe(false);
  };

  it('from another address than the last refresh, within the window', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const rotated = tokensOf(await refreshAt(auth.issuer, first.refresh_token));
    const stolen = await refreshFrom('127.0.0.2', second.url, first.refresh_token);
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    await everyTokenRefused([rotated.access_token, rotated.refresh_token, first.access_token]);
    expectOAuthError(await refreshAt(auth.issuer, rotated.refresh_token), 400, 'invalid_grant');
    expect(await audited('refresh_token_reuse', /another address/)).not.toEqual([]);
  });

  it("from the address of the token's own issue, when another address refreshed last", async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    // The real installation moved (or the thief refreshed first): the last refresh is 127.0.0.3's.
    const rotated = await refreshFrom('127.0.0.3', auth.issuer, first.refresh_token);
    expect(rotated.status).toBe(200);
    expectOAuthError(await refreshAt(second.url, first.refresh_token), 400, 'invalid_grant');
    await everyTokenRefused([rotated.body.access_token!, rotated.body.refresh_token!]);
  });

  it('presented by another client', async () => {
    const first = await signIn(auth, client, { scope: 'openid' });
    const rotated = tokensOf(await refreshAt(auth.issuer, first.refresh_token));
    const other = await registerClient(auth);
    expectOAuthError(await refreshAt(auth.issuer, first.refresh_token, other), 400, 'invalid_grant');
    await everyTokenRefused([rotated.access_token, rotated.refresh_token]);
  });

  it('outside the window, from the same address', async () => {
    const first = await signIn(auth, client, { scope: 'openid courses:read' });
    const rotated = tokensOf(await refreshAt(auth.issuer, first.refresh_token));
    await sleep(WINDOW_SECONDS * 1000 + 1200);
    expectOAuthError(await refreshAt(second.url, first.refresh_token), 400, 'invalid_grant');
    await everyTokenRefused([rotated.access_token, rotated.refresh_token]);
    expect(await audited('refresh_token_reuse', /outside the reuse window/)).not.toEqual([]);
  }, 20_000);
});
