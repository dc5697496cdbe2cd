/**
 * Security headers on every answer of the API: successes, every kind of error, the
 * documents and the health routes all carry a CSP that allows nothing (`default-src 'none';
 * frame-ancestors 'none'`), nosniff, `Referrer-Policy: no-referrer` and `X-Frame-Options: DENY`;
 * Strict-Transport-Security only when the public origin (BASE_URL) is https.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  call,
  startTestResourceApi,
  type Answer,
  type TestResourceApi,
} from '../../../test-support/resource-api.js';
import { rawRequest } from '../../../test-support/raw-http.js';
import { schoolForFile } from './helpers.js';

let https: TestResourceApi;
afterAll(() => https?.stop()); // runs before the hooks below stop the school's API and auth server
const s = schoolForFile({ BODY_LIMIT: '1kb' });
beforeAll(async () => {
  https = await startTestResourceApi(s.auth, { BASE_URL: 'https://school.example' });
});

function expectSecurityHeaders(res: Pick<Answer, 'headers' | 'status'>, hsts = false) {
  const h = res.headers;
  expect([res.status, h.get('content-security-policy')]).toEqual([
    res.status,
    "default-src 'none';frame-ancestors 'none'",
  ]);
  expect(h.get('x-content-type-options')).toBe('nosniff');
  expect(h.get('referrer-policy')).toBe('no-referrer');
  expect(h.get('x-frame-options')).toBe('DENY');
  expect(h.get('x-powered-by')).toBeNull();
  if (hsts) expect(h.get('strict-transport-security')).toBe('max-age=31536000');
  else expect(h.get('strict-transport-security')).toBeNull();
}

describe('every answer of the API carries the security headers', () => {
  it('on successes: lists, items, public views, creates and deletes', async () => {
    expectSecurityHeaders(await s.as('courses:read', '/api/v1/courses?limit=1'));
    expectSecurityHeaders(await s.anon('/api/v1/courses?limit=1'));
    expectSecurityHeaders(await s.anon('/api/v1/school'));
    const created = await s.as('coupons:write', '/api/v1/coupons', {
      method: 'POST',
      json: { code: 'HEADERS10', discount_type: 'percent', percent_off: 10 },
    });
    expectSecurityHeaders(created);
    const id = (created.body as { id: string }).id;
    expectSecurityHeaders(await s.as('coupons:write', `/api/v1/coupons/${id}`, { method: 'DELETE' }));
  });

  it('on every kind of refusal: 400, 401, 403 (both kinds), 404, 405, 413, 415', async () => {
    const answers = [
      await s.as('courses:read', '/api/v1/courses?limit=1000'),
      await call(s.api.url, '/api/v1/courses', { token: 'not-a-token' }),
      await s.anon('/api/v1/students'),
      await s.as('courses:read', '/api/v1/students'),
      await s.anon('/api/v1/nowhere'),
      await s.anon('/api/v1/courses', { method: 'PUT' }),
      await s.as('pages:write', '/api/v1/pages', {
        method: 'POST',
        json: { title: 'x', body: 'y'.repeat(2048) },
      }),
      await s.as('pages:write', '/api/v1/pages', {
        method: 'POST',
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([400, 401, 403, 403, 404, 405, 413, 415]);
    for (const res of answers) expectSecurityHeaders(res);
  });

  it('on the documents and the health routes', async () => {
    for (const path of [
      '/openapi.json',
      '/auth.md',
      '/.well-known/oauth-protected-resource',
      '/healthz',
      '/readyz',
    ])
      expectSecurityHeaders(await s.anon(path));
  });

  it('adds Strict-Transport-Security when BASE_URL is https, on successes, errors and raw refusals', async () => {
    expectSecurityHeaders(await call(https.url, '/api/v1/courses?limit=1'), true);
    expectSecurityHeaders(await call(https.url, '/api/v1/students'), true);
    const raw = await rawRequest(https.url, `GET /?${'q'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`);
    expect(raw.status).toBe(431);
    expect(raw.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(raw.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });
});
