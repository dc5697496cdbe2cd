/**
 * Prometheus metrics ("Seeing a fleet"): each service serves `/metrics` on its own port and
 * the edge does not route it; after a flow the counters an operator watches have moved; label values
 * stay bounded however many different paths clients send.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  obtainCode,
  postForm,
  register,
  REDIRECT,
  registerClient,
  signIn,
} from '../test-support/oauth-flow.js';
import { scrape, total, type Sample } from '../test-support/metrics-scrape.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ RATE_LIMIT_REGISTRATION: '4' });
}, 90_000);
afterAll(() => stack?.stop());

const api = (path: string, token: string) =>
  fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

describe('the metrics endpoints', () => {
  it('serve the exposition format on each service’s own port, and the edge answers 404 there', async () => {
    for (const url of [stack.authUrl, stack.apiUrl]) {
      const res = await fetch(`${url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toContain('nodejs_eventloop_lag_seconds');
      expect(text).toMatch(/_dependency_up\{dependency="redis"\} 1/);
      expect(text).toMatch(/_dependency_up\{dependency="mongodb"\} 1/);
    }
    for (const method of ['GET', 'POST']) {
      const viaEdge = await fetch(`${stack.edgeUrl}/metrics`, { method });
      expect(viaEdge.status).toBe(404);
      expect(await viaEdge.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it('count a flow: requests by route, tokens by grant type, login failures, rate limits, cache hits, introspections, revocations', async () => {
    const [authBefore, apiBefore] = [await scrape(stack.authUrl), await scrape(stack.apiUrl)];
    const issuer = { issuer: stack.baseUrl };
    const client = await registerClient(issuer);
    await expect(
      obtainCode(issuer, client, {
        scope: 'openid',
        account: { ...E2E_ADMIN, password: 'wrong password 1234' },
      }),
    ).rejects.toThrow();
    const tokens = await signIn(issuer, client, { scope: 'openid courses:read', account: E2E_ADMIN });
    for (let i = 0; i < 3; i++) expect((await api('/api/v1/courses', tokens.access_token)).status).toBe(200);
    const refreshed = await postForm(`${stack.baseUrl}/api/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
    });
    expect(refreshed.status).toBe(200);
    const access = (refreshed.body as { access_token: string }).access_token;
    expect((await api('/api/v1/courses', access)).status).toBe(200);
    const revoked = await postForm(`${stack.baseUrl}/api/oauth/revoke`, {
      token: access,
      client_id: client.clientId,
    });
    expect(revoked.status).toBe(200);
    let limited = 0;
    for (let i = 0; i < 6; i++) {
      if ((await register(issuer, { client_name: 'many', redirect_uris: [REDIRECT] })).status === 429)
        limited++;
    }
    expect(limited).toBeGreaterThan(0);

    const moved = (after: Sample[], before: Sample[], name: string, labels: Record<string, string> = {}) =>
      total(after, name, labels) - total(before, name, labels);
    await eventually(
      async () => moved(await scrape(stack.apiUrl), apiBefore, 'api_revocations_received_total') > 0,
      'the API counts the revocation it received',
    );
    const [authAfter, apiAfter] = [await scrape(stack.authUrl), await scrape(stack.apiUrl)];
    const authMoved = (name: string, labels?: Record<string, string>) =>
      moved(authAfter, authBefore, name, labels);
    const apiMoved = (name: string, labels?: Record<string, string>) =>
      moved(apiAfter, apiBefore, name, labels);

    expect(authMoved('auth_tokens_issued_total', { grant_type: 'authorization_code' })).toBe(1);
    expect(authMoved('auth_tokens_issued_total', { grant_type: 'refresh_token' })).toBe(1);
    expect(authMoved('auth_security_events_total', { event: 'login_failed' })).toBe(1);
    expect(authMoved('auth_security_events_total', { event: 'login_succeeded' })).toBe(1);
    expect(authMoved('auth_security_events_total', { event: 'rate_limited' })).toBe(limited);
    expect(authMoved('auth_security_events_total', { event: 'token_revoked' })).toBe(1);
    const token = { route: '/api/oauth/token', method: 'POST', status: '200' };
    expect(authMoved('auth_http_request_duration_seconds_count', token)).toBe(2);
    expect(
      authMoved('auth_http_request_duration_seconds_count', { route: '/api/oauth/register', status: '429' }),
    ).toBe(limited);
    expect(
      authMoved('auth_http_request_duration_seconds_count', { route: '/oauth/interaction/:uid/login' }),
    ).toBe(2);
    expect(
      authMoved('auth_http_request_duration_seconds_count', { route: '/api/oauth/introspect' }),
    ).toBeGreaterThanOrEqual(2);

    const courses = { route: '/api/v1/courses', method: 'GET', status: '200' };
    expect(apiMoved('api_http_request_duration_seconds_count', courses)).toBe(4);
    expect(apiMoved('api_token_checks_total', { result: 'miss' })).toBe(2);
    expect(apiMoved('api_token_checks_total', { result: 'hit' })).toBe(2);
    expect(apiMoved('api_introspections_total', { answer: 'active' })).toBe(2);
    // The resource API's own introspection client (the real process and its undici pool) takes the
    // direct path: its requests are the plain shape that path answers.
    expect(authMoved('auth_direct_introspections_total')).toBe(2);
    expect(apiMoved('api_revocations_received_total')).toBeGreaterThanOrEqual(1);
    expect(total(apiAfter, 'api_token_cache_hit_ratio')).toBeGreaterThan(0);
  });

  it('keep label values bounded: random paths, ids and methods add no series after the first round', async () => {
    const noise = () => randomBytes(6).toString('hex');
    const shapes: [string, string, string][] = [
      [stack.authUrl, 'GET', '/nowhere/{x}'],
      [stack.authUrl, 'POST', '/oauth/interaction/{x}/login'],
      [stack.authUrl, 'GET', '/oauth/authorize/{x}'],
      [stack.authUrl, 'GET', '/api/oauth/register/{x}'],
      [stack.authUrl, 'PROPFIND', '/{x}'],
      [stack.apiUrl, 'GET', '/api/v1/courses/{x}'],
      [stack.apiUrl, 'GET', '/api/v1/{x}'],
      [stack.apiUrl, 'DELETE', '/{x}/{x}'],
      [stack.apiUrl, 'PROPFIND', '/api/v1/courses/{x}'],
      [stack.edgeUrl, 'GET', '/api/v1/{x}'],
      [stack.edgeUrl, 'GET', '/oauth/interaction/{x}'],
    ];
    const round = async () => {
      const used: string[] = [];
      for (const [url, method, shape] of shapes) {
        for (let i = 0; i < 10; i++) {
          const x = noise();
          used.push(x);
          await fetch(`${url}${shape.replaceAll('{x}', x)}?client_id=${x}`, {
            method,
            headers: { authorization: `Bearer ${x}` },
          });
        }
      }
      return used;
    };
    const series = async (url: string) =>
      (await scrape(url)).filter((s) => s.name.endsWith('_http_request_duration_seconds_count'));
    await round();
    const [auth1, api1] = [await series(stack.authUrl), await series(stack.apiUrl)];
    const used = await round();
    const [auth2, api2] = [await series(stack.authUrl), await series(stack.apiUrl)];
    expect(auth2.length).toBe(auth1.length);
    expect(api2.length).toBe(api1.length);
    const labels = [...auth2, ...api2].flatMap((s) => Object.values(s.labels));
    for (const x of used) expect(labels.some((l) => l.includes(x))).toBe(false);
    expect(new Set(labels.filter((l) => /^[A-Z]+$/.test(l)))).not.toContain('PROPFIND');
    expect(labels).toContain('/api/v1/courses/:id');
    expect(labels).toContain('unmatched');
  });
});
