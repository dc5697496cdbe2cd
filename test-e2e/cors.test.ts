/**
 * CORS through the real edge: a browser-based client on another origin (the
 * MCP Inspector's, here) can discover, register, redeem, revoke, call userinfo and the API, reading
 * error answers and the 401 challenge too; never with credentials. The authorization endpoint, the
 * login and consent pages and introspection give such a page nothing.
 */
import { request } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { Stack } from './support/stack.js';
import { stackForFile } from './support/suite.js';

const ORIGIN = 'http://127.0.0.1:6274';

let stack: Stack;
stackForFile((s) => (stack = s));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** One request through the edge with an Origin header (node:http: fetch may not send every header). */
function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${stack.baseUrl}${path}`,
      { method, headers: { origin: ORIGIN, ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const preflight = (path: string, method: string) =>
  send('OPTIONS', path, {
    'access-control-request-method': method,
    'access-control-request-headers': 'authorization, content-type',
  });

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Endpoints a browser-based client uses: path, method, and a request that reaches the endpoint. */
const OPEN: Array<[string, string, Record<string, string>, string | undefined]> = [
  ['/.well-known/oauth-authorization-server', 'GET', {}, undefined],
  ['/.well-known/openid-configuration', 'GET', {}, undefined],
  ['/api/oauth/jwks', 'GET', {}, undefined],
  ['/api/oauth/register', 'POST', { 'content-type': 'application/json' }, '{}'],
  ['/api/oauth/token', 'POST', FORM, 'grant_type=authorization_code&code=x&client_id=nobody'],
  ['/api/oauth/revoke', 'POST', FORM, 'token=x&client_id=nobody'],
  ['/api/oauth/userinfo', 'GET', { authorization: 'Bearer not-a-token' }, undefined],
  ['/.well-known/oauth-protected-resource', 'GET', {}, undefined],
  ['/openapi.json', 'GET', {}, undefined],
  ['/auth.md', 'GET', {}, undefined],
  ['/api/v1/courses', 'GET', { authorization: 'Bearer not-a-token' }, undefined],
  [
    '/api/v1/courses',
    'POST',
    { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
    '{}',
  ],
];

describe.each(OPEN)('%s (%s), for a page on another origin', (path, method, headers, body) => {
  it('answers the preflight 204 with any origin, the method, the requested headers and no credentials', async () => {
    const res = await preflight(path, method);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-methods']).split(',')).toContain(method);
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets the page read the answer, an error answer too, and never with credentials', async () => {
    const res = await send(method, path, headers, body);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('the API’s 401 and anonymous 403, for a page on another origin', () => {
  it('exposes Link on the anonymous 403, so the page can find the protected-resource metadata', async () => {
    const res = await send('GET', '/api/v1/orders');
    expect(res.status).toBe(403);
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('link');
  });

  it('exposes WWW-Authenticate, so the page can read the resource_metadata hint', async () => {
    const res = await send('GET', '/api/v1/orders', { authorization: 'Bearer not-a-token' });
    expect(res.status).toBe(401);
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('www-authenticate');
  });
});

/** What a page on another origin must never be able to read or drive. */
const CLOSED: Array<[string, string, Record<string, string>, string | undefined]> = [
  ['/api/oauth/introspect', 'POST', FORM, 'token=x&client_id=resource-api&client_secret=x'],
  ['/oauth/authorize', 'GET', {}, undefined],
  ['/oauth/interaction/some-interaction', 'GET', {}, undefined],
  ['/oauth/interaction/some-interaction/login', 'POST', FORM, 'email=a&password=b'],
];

describe.each(CLOSED)('%s (%s), for a page on another origin', (path, method, headers, body) => {
  it('answers the preflight without any CORS permission', async () => {
    const res = await preflight(path, method);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('answers the request without any CORS permission', async () => {
    const res = await send(method, path, headers, body);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
