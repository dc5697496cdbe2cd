/**
 * Errors a client developer can act on, through the edge: each mistake keeps its RFC 6749 code and
 * gets a description of its own, and nothing says whether an unusable code or refresh token ever
 * existed (a made-up one is described exactly as a used, revoked or foreign one).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  codeExchange,
  credentials,
  obtainCode,
  register,
  registerClient,
  requestTokens,
  signIn,
  tokenRequest,
  type OAuthClient,
} from '../test-support/oauth-flow.js';
import { pollUntil } from '../test-support/processes.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

let stack: Stack;
let issuer: { issuer: string };
let client: OAuthClient;
const CODE_UNUSABLE =
  /^the authorization code is invalid, expired, already used or was issued to another client/;
const REFRESH_UNUSABLE = /^the refresh token is invalid, expired or revoked, or was issued to another client/;

beforeAll(async () => {
  stack = await startStack();
  issuer = { issuer: stack.baseUrl };
  client = await registerClient(issuer);
}, 120_000);
afterAll(() => stack?.stop());

const code = () => obtainCode(issuer, client, { scope: 'openid courses:read', account: E2E_ADMIN });

describe('the token endpoint says what to fix', () => {
  it('a wrong code_verifier', async () => {
    const issued = await code();
    const res = await tokenRequest(issuer, {
      ...codeExchange(client, issued),
      code_verifier: 'w'.repeat(43),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/^PKCE verification failed/),
    });
  });

  it('a redirect_uri on another port than the authorization request', async () => {
    const issued = await code();
    const res = await tokenRequest(issuer, {
      ...codeExchange(client, issued),
      redirect_uri: issued.redirectUri.replace(/:(\d+)\//, (_m, port: string) => `:${Number(port) + 1}/`),
    });
    expect(res.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(/^redirect_uri must be exactly the one sent/),
    });
  });

  it('a code used twice, or one that never existed, alike', async () => {
    const issued = await code();
    await requestTokens(issuer, client, codeExchange(client, issued));
    const again = await tokenRequest(issuer, codeExchange(client, issued));
    const madeUp = await tokenRequest(issuer, { ...codeExchange(client, issued), code: 'x'.repeat(43) });
    expect(again.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(CODE_UNUSABLE),
    });
    expect(madeUp.body).toEqual(again.body);
  });

  it('a refresh token whose grant was revoked, or one that never existed, alike', async () => {
    const tokens = await signIn(issuer, client, { scope: 'openid courses:read', account: E2E_ADMIN });
    const revoked = await fetch(`${stack.baseUrl}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh_token!, ...credentials(client) }),
    });
    expect(revoked.status).toBe(200);
    const refresh = (token: string) =>
      tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: token, ...credentials(client) });
    const after = await refresh(tokens.refresh_token!);
    expect(after.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringMatching(REFRESH_UNUSABLE),
    });
    expect((await refresh('y'.repeat(43))).body).toEqual(after.body);
  });
});

describe('registration says what to fix', () => {
  it('no redirect_uris at all', async () => {
    const res = await register(issuer, { client_name: 'no callbacks' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris is required: list at least one loopback redirect URI',
    });
  });
});

describe('userinfo says what to fix', () => {
  it('a token bound to the API, in the body and in the challenge', async () => {
    const tokens = await signIn(issuer, client, {
      scope: 'openid courses:read',
      account: E2E_ADMIN,
      resource: stack.baseUrl,
    });
    const res = await fetch(`${stack.baseUrl}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(403);
    const body = (await res.json()) as Record<string, string>;
    expect(body.error).toBe('insufficient_scope');
    expect(body.error_description).toMatch(/^this access token is bound to the API/);
    expect(res.headers.get('www-authenticate')).toContain(`error_description="${body.error_description}"`);
  });

  it('a token without openid', async () => {
    const tokens = await signIn(issuer, client, { scope: 'courses:read', account: E2E_ADMIN });
    const res = await fetch(`${stack.baseUrl}/api/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Record<string, string>).error_description).toMatch(
      /lacks the openid scope/,
    );
  });
});

describe('every refusal is in the log, under the reference the person quotes', () => {
  /** The auth server's request line with `requestId`, once it has been written. */
  async function lineOf(requestId: string): Promise<Record<string, unknown>> {
    const find = () =>
      stack.logs['auth-server']!.join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.requestId === requestId);
    await pollUntil(() => find() !== undefined, `the log line of ${requestId}`, 5000);
    return find()!;
  }

  /** The reference an error page shows. */
  const referenceOn = (page: string) => /<code class="ref">([^<]+)<\/code>/.exec(page)?.[1] ?? '';

  const authorize = (params: Record<string, string>) =>
    fetch(
      `${stack.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', ...params }).toString()}`,
      {
        redirect: 'manual',
      },
    );

  it('an unknown client at the authorization endpoint', async () => {
    const res = await authorize({ client_id: 'no-such-client', redirect_uri: 'http://127.0.0.1/cb' });
    expect(res.status).toBe(400);
    const reference = referenceOn(await res.text());
    expect(reference).not.toBe('');
    expect(await lineOf(reference)).toMatchObject({
      status: 400,
      error: 'invalid_client',
      cause: expect.stringMatching(/client/),
    });
  });

  it('a redirect_uri the client did not register', async () => {
    const res = await authorize({ client_id: client.clientId, redirect_uri: 'http://127.0.0.1:1/elsewhere' });
    expect(res.status).toBe(400);
    const reference = referenceOn(await res.text());
    expect(await lineOf(reference)).toMatchObject({
      error: 'invalid_redirect_uri',
      cause: expect.stringMatching(/redirect_uri/),
    });
  });

  it('a refusal of the sign-in pages themselves', async () => {
    const res = await fetch(`${stack.baseUrl}/oauth/interaction/no-such-interaction`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const reference = referenceOn(await res.text());
    expect(await lineOf(reference)).toMatchObject({ status: res.status, error: 'interaction_expired' });
  });

  it('only JSON lines, oidc-provider’s own notices included', async () => {
    const res = await tokenRequest(issuer, {
      grant_type: 'refresh_token',
      refresh_token: 'made-up',
      client_id: client.clientId,
    });
    expect(res.status).toBe(400);
    const lines = stack.logs['auth-server']!.join('').split('\n').filter(Boolean);
    expect(lines.filter((l) => !l.startsWith('{'))).toEqual([]);
    expect(lines.map((l) => JSON.parse(l) as { source?: string; msg: string })).toContainEqual(
      expect.objectContaining({
        source: 'oidc-provider',
        msg: expect.stringMatching(/^already parsed request body/),
      }),
    );
  });

  it('a refusal answered in JSON', async () => {
    const res = await fetch(`${stack.baseUrl}/api/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'made-up',
        client_id: client.clientId,
      }),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = (await res.json()) as { error: string };
    expect(await lineOf(res.headers.get('x-request-id')!)).toMatchObject({ error: body.error });
  });
});
