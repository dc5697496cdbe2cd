/**
 * How long access lasts, as the admin chooses it on the consent page: the grant ends then, so
 * refreshing gives `invalid_grant` and introspection says inactive, and no access token outlives it.
 * A repeat consent keeps the end unless another is chosen. Time is moved by writing the grant's `exp` in Redis, never by waiting. Real server, real Redis, the
 * real pages through the form browser.
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { FormBrowser } from '../../../test-support/form-browser.js';
import { accountGrants } from '../src/storage/account-grants.js';
import { modelKey } from '../src/storage/redis-keys.js';
import {
  openConsent,
  codeExchange,
  expectOAuthError,
  introspect,
  isActive,
  REDIRECT,
  registerClient,
  tokenRequest,
  type TestClient,
} from './oauth-http.js';

const ACCESS_TOKEN_TTL = 7200; // longer than "one hour", so the cap to the grant's end shows

const auth = authServerForFile({
  ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL),
  SCHOOL_TERM_ENDS: '2099-07-16',
  SCHOOL_TIMEZONE: 'Europe/Berlin',
});

interface Issued {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

/** Signs in, allows with `duration` (none: the page's preselected choice) and exchanges the code. */
async function authorizeFor(
  client: TestClient,
  duration?: string,
): Promise<{ tokens: Issued; page: string }> {
  const browser = new FormBrowser(auth.issuer);
  const { page, verifier } = await openConsent(auth, browser, client, 'courses:read', auth.issuer);
  const shown = page.body;
  const back = await browser.submit(page, '/confirm', duration ? { duration } : {});
  const code = new URL(back.location!).searchParams.get('code')!;
  const res = await tokenRequest(auth, {
    ...codeExchange(client, { code, verifier, redirectUri: REDIRECT }),
    resource: auth.issuer,
  });
  expect(res.status).toBe(200);
  return { tokens: res.body as unknown as Issued, page: shown };
}

/** The one grant the admin holds for `client`, as stored. */
async function storedGrant(
  client: TestClient,
  token: string,
): Promise<{ key: string; exp: number; iat: number }> {
  const sub = (await introspect(auth, token)).body?.sub as string;
  const held = (await accountGrants(auth.running.redis, auth.config.REDIS_KEY_PREFIX, sub)).filter(
    (g) => g.clientId === client.clientId,
  );
  expect(held).toHaveLength(1);
  const key = modelKey(auth.config.REDIS_KEY_PREFIX, 'Grant', held[0]!.grantId);
  const { exp, iat } = JSON.parse((await auth.running.redis.get(key))!) as { exp: number; iat: number };
  return { key, exp, iat };
}

/** The grant ends `seconds` after it was made (its end and its `iat` may be a clock second apart). */
function expectSpan(grant: { exp: number; iat: number }, seconds: number): void {
  expect(grant.exp - grant.iat).toBeGreaterThanOrEqual(seconds - 1);
  expect(grant.exp - grant.iat).toBeLessThanOrEqual(seconds);
}

const refresh = (client: TestClient, token: string) =>
  tokenRequest(auth, {
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: client.clientId,
    resource: auth.issuer,
  });

describe('how long access lasts', () => {
  it('offers one hour, today, this week (but on Sunday), this term and until revoked, the last preselected', async () => {
    const client = await registerClient(auth, { client_name: 'Duration agent' });
    const { page } = await authorizeFor(client);
    const radios = [...page.matchAll(/<input[^>]*type="radio"[^>]*>/g)].map(([input]) => ({
      value: /value="([^"]+)"/.exec(input)![1],
      checked: / checked\b/.test(input),
    }));
    // On the school's Sunday, today and this week end at the same midnight: one choice for both.
    const sunday =
      new Intl.DateTimeFormat('en', { weekday: 'short', timeZone: 'Europe/Berlin' }).format(new Date()) ===
      'Sun';
    expect(radios.map((r) => r.value)).toEqual(
      sunday ? ['hour', 'today', 'term', 'revoked'] : ['hour', 'today', 'week', 'term', 'revoked'],
    );
    expect(radios.filter((r) => r.checked).map((r) => r.value)).toEqual(['revoked']);
    expect(page).toContain('16 Jul 2099, 23:59');
    expect(page).toContain('Europe/Berlin');
  });

  it('until revoked: the grant lasts the configured grant lifetime', async () => {
    const client = await registerClient(auth, { client_name: 'Long agent' });
    const { tokens } = await authorizeFor(client);
    const grant = await storedGrant(client, tokens.access_token);
    expectSpan(grant, auth.config.GRANT_TTL);
    expect(tokens.expires_in).toBe(ACCESS_TOKEN_TTL);
  });

  it('one hour: the grant ends then, and the access token ends with it, not after', async () => {
    const client = await registerClient(auth, { client_name: 'Brief agent' });
    const { tokens } = await authorizeFor(client, 'hour');
    const grant = await storedGrant(client, tokens.access_token);
    expectSpan(grant, 3600);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    // Before the end: refreshing works, and the new access token is cut to the grant's end too.
    const before = await refresh(client, tokens.refresh_token);
    expect(before.status).toBe(200);
    const renewed = before.body as unknown as Issued;
    expect(renewed.expires_in).toBeLessThanOrEqual(3600);
    expect(await isActive(auth, renewed.access_token)).toBe(true);

    // Past the end (the grant's exp moved into the past): refresh is invalid_grant, the token inactive.
    const stored = JSON.parse((await auth.running.redis.get(grant.key))!) as Record<string, unknown>;
    await auth.running.redis.set(
      grant.key,
      JSON.stringify({ ...stored, exp: Math.floor(Date.now() / 1000) - 1 }),
      'KEEPTTL',
    );
    expect(await isActive(auth, renewed.access_token)).toBe(false);
    expectOAuthError(await refresh(client, renewed.refresh_token), 400, 'invalid_grant');
  });

  it('reads a duration that is not on offer as the shortest, never as more', async () => {
    const client = await registerClient(auth, { client_name: 'Forging duration agent' });
    const { tokens } = await authorizeFor(client, 'forever');
    const grant = await storedGrant(client, tokens.access_token);
    expectSpan(grant, 3600);
  });

  it('keeps the end on a repeat consent, kept on the page or not sent at all, and moves it only when chosen', async () => {
    const client = await registerClient(auth, { client_name: 'Repeat agent' });
    const browser = new FormBrowser(auth.issuer); // one session: each consent adds to the same grant
    const consent = async (scope: string, fields: Record<string, string | string[]>) => {
      const { page, verifier } = await openConsent(auth, browser, client, scope, auth.issuer);
      const back = await browser.submit(page, '/confirm', fields);
      const code = new URL(back.location!).searchParams.get('code')!;
      const res = await tokenRequest(auth, {
        ...codeExchange(client, { code, verifier, redirectUri: REDIRECT }),
        resource: auth.issuer,
      });
      expect(res.status).toBe(200);
      const tokens = res.body as unknown as Issued;
      return { page: page.body, tokens, grant: await storedGrant(client, tokens.access_token) };
    };
    const first = await consent('courses:read', { duration: 'hour' });
    expectSpan(first.grant, 3600);
    // Step-up, the page's preselected choice sent: the hour stands.
    const kept = await consent('courses:read school:read', {});
    expect(kept.page).toContain('Access currently ends');
    expect(kept.grant.exp).toBe(first.grant.exp);
    expect(kept.tokens.expires_in).toBeLessThanOrEqual(3600);
    // No duration in the form at all: still the hour, never "until revoked".
    const unsent = await consent('courses:read school:read events:read', { duration: [] });
    expect(unsent.grant.exp).toBe(first.grant.exp);
    // Chosen: the end moves, for the whole grant.
    const longer = await consent('courses:read school:read events:read posts:read', { duration: 'revoked' });
    expect(longer.grant.exp - longer.grant.iat).toBeGreaterThanOrEqual(auth.config.GRANT_TTL - 1);
  });
});
