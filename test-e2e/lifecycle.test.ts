/**
 * the contract's lifecycle through the edge only, as outside clients run it, with the admin in a real
 * browser: once with openid-client (discover → register → authorize → exchange → API → userinfo →
 * refresh → revoke → refused), once with the MCP TypeScript SDK's `auth()` starting from a protected
 * API URL (PRM → AS metadata → registration → `resource` → a bound token for the PRM's baseline scopes,
 * and a 403 naming the scope an operation needs beyond them). Also checks that no token
 * reached any service's logs.
 */
import { describe, expect, it } from '@jest/globals';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { approveInBrowser, loopbackListener, type LoopbackListener } from './support/browser.js';
import { SdkAgent } from './support/mcp-agent.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { stackAndBrowserForFile } from './support/suite.js';

const insecure = { execute: [oidc.allowInsecureRequests] };
let stack: Stack;
let browser: Browser;
const secretsSeen: string[] = [];

stackAndBrowserForFile((s, b) => {
  stack = s;
  browser = b;
});

/** The admin approves in Chromium; resolves with the URL the loopback listener received. */
const approve = async (url: string, listener: LoopbackListener) =>
  (await approveInBrowser(browser, url, listener)).callback;

const api = (path: string, token?: string, init: RequestInit = {}) =>
  fetch(`${stack.baseUrl}${path}`, {
    ...init,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) },
  });

describe('the lifecycle with openid-client, through the edge', () => {
  it('discovers, registers, authorizes, exchanges, uses the API, refreshes, revokes, and is refused after', async () => {
    const listener = await loopbackListener();
    try {
      const issuer = new URL(stack.baseUrl);
      const config = await oidc.dynamicClientRegistration(
        issuer,
        {
          client_name: 'e2e openid-client CLI',
          redirect_uris: [listener.redirectUri],
          token_endpoint_auth_method: 'none',
        },
        oidc.None(),
        insecure,
      );
      expect(config.serverMetadata().issuer).toBe(stack.baseUrl);
      expect(config.serverMetadata().token_endpoint).toBe(`${stack.baseUrl}/api/oauth/token`);

      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: listener.redirectUri,
        scope: 'openid profile email courses:read coupons:read',
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const callback = await approve(url.href, listener);
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      secretsSeen.push(tokens.access_token, tokens.refresh_token!, callback.searchParams.get('code')!);

      const courses = await api('/api/v1/courses', tokens.access_token);
      expect(courses.status).toBe(200);
      expect(((await courses.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

      const write = await api('/api/v1/coupons', tokens.access_token, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'E2E10', percentOff: 10 }),
      });
      expect(write.status).toBe(403);
      expect(write.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_scope", scope="coupons:write", resource_metadata="[^"]+\/.well-known\/oauth-protected-resource"/,
      );
      expect(await write.json()).toMatchObject({ error: 'insufficient_scope' });

      const me = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      expect(me.email).toBe(E2E_ADMIN.email);

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      secretsSeen.push(refreshed.access_token, refreshed.refresh_token!);
      expect((await api('/api/v1/courses', refreshed.access_token)).status).toBe(200);

      await oidc.tokenRevocation(config, refreshed.refresh_token!);
      const refused = await api('/api/v1/courses', refreshed.access_token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      expect(refused.headers.get('www-authenticate')).toContain(
        `resource_metadata="${stack.baseUrl}/.well-known/oauth-protected-resource"`,
      );
      expect(await refused.json()).toMatchObject({ error: 'invalid_token' });
    } finally {
      await listener.close();
    }
  }, 60_000);
});

describe('the lifecycle with the MCP TypeScript SDK, unmodified, through the edge', () => {
  it('starts from a protected API URL and ends with a bound token the API accepts and userinfo refuses', async () => {
    const listener = await loopbackListener();
    try {
      const provider = new SdkAgent('e2e MCP agent', listener);
      const serverUrl = `${stack.baseUrl}/api/v1/courses`;

      expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
      const authorizationUrl = provider.authorizationUrl!;
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${stack.baseUrl}/oauth/authorize`);
      expect(authorizationUrl.searchParams.get('resource')).toMatch(new RegExp(`^${stack.baseUrl}/?$`));
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      // With no challenge yet it asks for the protected-resource metadata's baseline, nothing more.
      expect(authorizationUrl.searchParams.get('scope')).toBe('school:read account:read');
      expect(provider.clientInformation()?.client_id).toEqual(expect.any(String));

      const callback = await approve(authorizationUrl.href, listener);
      expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
      expect(await auth(provider, { serverUrl, authorizationCode: callback.searchParams.get('code')! })).toBe(
        'AUTHORIZED',
      );
      const tokens = provider.tokens()!;
      secretsSeen.push(tokens.access_token);

      expect((await api('/api/v1/school', tokens.access_token)).status).toBe(200);
      expect((await api('/api/v1/account', tokens.access_token)).status).toBe(200);
      const students = await api('/api/v1/students', tokens.access_token);
      expect(students.status).toBe(403);
      expect(students.headers.get('www-authenticate')).toMatch(
        /^Bearer error="insufficient_scope", scope="students:read", /,
      );

      const introspected = await fetch(`${stack.baseUrl}/api/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: tokens.access_token,
          client_id: 'resource-api',
          client_secret: stack.env.INTROSPECTION_CLIENT_SECRET!,
        }),
      });
      expect(await introspected.json()).toMatchObject({ active: true, aud: stack.baseUrl });
      // The same question through the edge with what a caller controls turned hostile: from a page
      // on another origin (even holding the secret), with a secret one character short, with the
      // token percent-encoded. The direct introspection path leaves each to oidc-provider, which
      // answers as it always has.
      const ask = (form: string, headers: Record<string, string> = {}) =>
        fetch(`${stack.baseUrl}/api/oauth/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: form,
        });
      const secret = stack.env.INTROSPECTION_CLIENT_SECRET!;
      const plain = `token=${tokens.access_token}&client_id=resource-api&client_secret=${secret}`;
      const fromPage = await ask(plain, { origin: 'https://elsewhere.example' });
      expect(fromPage.status).toBe(400);
      expect(fromPage.headers.get('access-control-allow-origin')).toBeNull();
      expect(await fromPage.json()).toMatchObject({ error: 'invalid_request' });
      const short = await ask(plain.slice(0, -1));
      expect(short.status).toBe(401);
      expect(await short.json()).toMatchObject({ error: 'invalid_client' });
      const encoded = `token=%${tokens.access_token.charCodeAt(0).toString(16)}${tokens.access_token.slice(1)}`;
      const decoded = await ask(`${encoded}&client_id=resource-api&client_secret=${secret}`);
      expect(await decoded.json()).toMatchObject({ active: true, aud: stack.baseUrl });

      const me = await api('/api/oauth/userinfo', tokens.access_token);
      expect([401, 403]).toContain(me.status);
      expect(me.headers.get('www-authenticate')).toMatch(/^Bearer /);
    } finally {
      await listener.close();
    }
  }, 60_000);
});

describe('the services’ logs', () => {
  it('carry the edge’s request id and never a token or code', () => {
    const all = Object.values(stack.logs).flat().join('');
    expect(secretsSeen.length).toBeGreaterThan(4);
    const leaked = secretsSeen.filter((secret) => all.includes(secret));
    expect(leaked).toEqual([]);
    const requestLines = ['auth-server', 'resource-api']
      .flatMap((name) => stack.logs[name]!.join('').split('\n'))
      .filter((l) => l.includes('"msg":"request"'));
    // The API's own introspection calls go straight to the auth server, under the edge's id of the
    // request that caused them.
    expect(requestLines.some((l) => l.includes('"path":"/api/oauth/introspect"'))).toBe(true);
    expect(requestLines.some((l) => l.includes('"name":"resource-api"'))).toBe(true);
    expect(requestLines.length).toBeGreaterThan(0);
    const withoutEdgeId = requestLines.filter((l) => !/"requestId":"[0-9a-f]{32}"/.test(l)); // nginx's $request_id
    expect(withoutEdgeId).toEqual([]);
  });
});
