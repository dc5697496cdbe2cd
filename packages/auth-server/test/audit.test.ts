/**
 * The security audit log: the events of a whole session end up in MongoDB with the request id, are
 * queryable by type, client and time, and never contain a token, code or password.
 */
import { describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { authorizationRequest, insecure } from '../../../test-support/openid-client.js';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';
import type { AuditEvent } from '../src/audit/audit-log.js';

const REDIRECT = 'http://127.0.0.1:50505/cb';

// No refresh grace period, so the reuse below is a replay at once (refresh-grace.test.ts covers the window).
const auth = authServerForFile({ RATE_LIMIT_REGISTRATION: '5', REFRESH_REUSE_GRACE: '0' });

async function eventually(check: () => Promise<AuditEvent[]>, count: number): Promise<AuditEvent[]> {
  for (let i = 0; i < 50; i++) {
    const found = await check();
    if (found.length >= count) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('the audit log', () => {
  it('records a session’s security events with request ids, and no secrets', async () => {
    const issuer = new URL(auth.issuer);
    const config = await oidc.dynamicClientRegistration(
      issuer,
      { client_name: 'Audited', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
    const clientId = config.clientMetadata().client_id;

    const { url, verifier } = await authorizationRequest(config, {
      redirect_uri: REDIRECT,
      scope: 'openid courses:read',
    });
    const browser = new FormBrowser(auth.issuer);
    const login = await browser.follow(url.href);
    await browser.submit(login, '/login', { email: ADMIN.email, password: 'wrong' });
    const callback = await authorizeInBrowser(browser, url.href, ADMIN);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    await oidc.tokenRevocation(config, rotated.access_token);
    for (let i = 0; i < 5; i++) {
      await fetch(`${auth.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"redirect_uris":["http://127.0.0.1/cb"]}',
      });
    }

    const audit = auth.running.audit;
    const all = await eventually(() => audit.query({ limit: 1000 }), 10);
    const types = new Set(all.map((e) => e.type));
    for (const t of [
      'client_registered',
      'login_failed',
      'login_succeeded',
      'consent_granted',
      'tokens_issued',
      'refresh_token_reuse',
      'grant_revoked',
      'rate_limited',
    ] as const) {
      expect({ type: t, recorded: types.has(t) }).toEqual({ type: t, recorded: true });
    }
    const mine = await audit.query({ clientId, type: 'tokens_issued' });
    expect(mine).toHaveLength(2);
    expect(mine.every((e) => typeof e.requestId === 'string' && e.requestId.length > 0)).toBe(true);
    expect((await audit.query({ since: new Date(Date.now() + 60_000) })).length).toBe(0);

    const stored = JSON.stringify(all);
    for (const secret of [
      tokens.access_token,
      tokens.refresh_token!,
      rotated.access_token,
      callback.searchParams.get('code')!,
      ADMIN.password,
      'wrong"',
    ]) {
      expect(stored.includes(secret)).toBe(false);
    }
  });
});

describe('an address flooding the audit log', () => {
  it('has at most 60 events of one type stored per minute, while the metrics count every one', async () => {
    const audit = auth.running.audit;
    const counted: string[] = [];
    audit.observe((type) => counted.push(type));
    const flood = '198.51.100.66';
    const records: Promise<void>[] = [];
    for (let i = 0; i < 150; i++) records.push(audit.record('rate_limited', { ip: flood, details: { i } }));
    for (let i = 0; i < 3; i++) records.push(audit.record('rate_limited', { ip: '198.51.100.67' }));
    records.push(audit.record('client_deleted', { details: { by: 'operator' } })); // no address: never held
    await Promise.all(records);
    const stored = await audit.query({ type: 'rate_limited', limit: 1000 });
    expect(stored.filter((e) => e.ip === flood)).toHaveLength(60);
    expect(stored.filter((e) => e.ip === '198.51.100.67')).toHaveLength(3);
    expect(counted.filter((t) => t === 'rate_limited')).toHaveLength(153);
    // Another type from the same address has its own bound.
    await audit.record('login_failed', { ip: flood });
    expect(await audit.query({ type: 'login_failed', limit: 1000 })).toEqual(
      expect.arrayContaining([expect.objectContaining({ ip: flood })]),
    );
  });
});
