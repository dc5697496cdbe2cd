/**
 * BASE_URL is https and a TLS-terminating proxy sits in front of the edge (simulated by sending what
 * such a proxy sends: `X-Forwarded-Proto: https`). Discovery, the protected-resource metadata and the
 * redirects all show BASE_URL, cookies are `Secure`, and HSTS is sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({}, 'https');
}, 90_000);
afterAll(() => stack?.stop());

const viaProxy = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.edgeUrl}${path}`, {
    redirect: 'manual',
    ...init,
    headers: { 'x-forwarded-proto': 'https', ...(init.headers ?? {}) },
  });

describe('behind a TLS-terminating proxy', () => {
  it('publishes https URLs of BASE_URL in both discovery documents and the PRM', async () => {
    expect(stack.baseUrl).toMatch(/^https:/);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const meta = (await (await viaProxy(path)).json()) as Record<string, unknown>;
      expect(meta.issuer).toBe(stack.baseUrl);
      for (const key of [
        'authorization_endpoint',
        'token_endpoint',
        'registration_endpoint',
        'jwks_uri',
        'userinfo_endpoint',
        'introspection_endpoint',
        'revocation_endpoint',
      ]) {
        expect(String(meta[key])).toMatch(new RegExp(`^${stack.baseUrl}/`));
      }
    }
    const prm = (await (await viaProxy('/.well-known/oauth-protected-resource')).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toMatchObject({ resource: stack.baseUrl, authorization_servers: [stack.baseUrl] });
  });

  it('redirects to BASE_URL pages, sets Secure cookies and sends HSTS', async () => {
    const reg = await viaProxy('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:4999/cb'] }),
    });
    expect(reg.status).toBe(201);
    expect(reg.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
    const { client_id } = (await reg.json()) as { client_id: string };
    const q = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: 'http://127.0.0.1:4999/cb',
      scope: 'openid',
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const res = await viaProxy(`/oauth/authorize?${q.toString()}`);
    expect(res.status).toBe(303);
    // A relative Location resolves against the https origin the browser is on.
    expect(new URL(res.headers.get('location')!, stack.baseUrl).href).toMatch(
      new RegExp(`^${stack.baseUrl}/oauth/interaction/`),
    );
    const cookies = res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c).toMatch(/; secure/i);
      expect(c).toMatch(/; httponly/i);
      expect(c).toMatch(/; samesite=lax/i);
    }
    const api = await viaProxy('/api/v1/courses');
    expect(api.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
  });
});
