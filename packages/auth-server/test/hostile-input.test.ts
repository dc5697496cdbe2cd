/**
 * Hostile input at the auth server's endpoints: oversized and deeply nested bodies, wrong content
 * types, invalid UTF-8, duplicated form parameters and huge scope strings each get a clear 4xx in the
 * RFC 6749 shape (or an error page on the browser route) — never a 5xx, never a hang.
 */
import { describe, expect, it } from '@jest/globals';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { rawRequest } from '../../../test-support/raw-http.js';

const auth = authServerForFile({ RATE_LIMIT_REGISTRATION: '1000' });

async function send(
  path: string,
  body: string | Buffer,
  type: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${auth.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
}

function expectClientError(r: { status: number; json: Record<string, unknown> }, error?: string): void {
  expect(r.status).toBeGreaterThanOrEqual(400);
  expect(r.status).toBeLessThan(500);
  expect(typeof r.json.error).toBe('string');
  expect(typeof r.json.error_description).toBe('string');
  if (error) expect(r.json.error).toBe(error);
  expect(JSON.stringify(r.json)).not.toMatch(/\n\s+at /); // no stack trace
}

const form = 'application/x-www-form-urlencoded';

describe('hostile input', () => {
  it('refuses an oversized registration body', async () => {
    const big = JSON.stringify({
      redirect_uris: ['http://127.0.0.1/cb'],
      client_name: 'x'.repeat(200 * 1024),
    });
    expectClientError(await send('/api/oauth/register', big, 'application/json'));
  });

  it('refuses deeply nested JSON at registration', async () => {
    // 2,000 levels keep it under registration's 16 KB body cap (past it: 413 before any parsing).
    const deep = `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`;
    // Parsed fine but meaningless: refused for its missing redirect_uris, without any recursion trouble.
    expectClientError(await send('/api/oauth/register', deep, 'application/json'), 'invalid_redirect_uri');
  });

  it('refuses a registration whose metadata has the wrong types', async () => {
    expectClientError(
      await send(
        '/api/oauth/register',
        JSON.stringify({ redirect_uris: 'http://127.0.0.1/cb', client_name: { nested: true } }),
        'application/json',
      ),
      'invalid_redirect_uri',
    );
    expectClientError(
      await send('/api/oauth/register', JSON.stringify([1, 2, 3]), 'application/json'),
      'invalid_client_metadata',
    );
  });

  it('refuses invalid UTF-8 in a registration body', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"redirect_uris":["http://127.0.0.1/cb"],"client_name":"'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('"}'),
    ]);
    const r = await send('/api/oauth/register', bytes, 'application/json');
    // Either refused, or accepted with the bytes replaced: never a 5xx.
    expect(r.status === 201 || (r.status >= 400 && r.status < 500)).toBe(true);
  });

  it('refuses the token endpoint with a JSON body', async () => {
    expectClientError(
      await send(
        '/api/oauth/token',
        JSON.stringify({ grant_type: 'authorization_code' }),
        'application/json',
      ),
    );
  });

  it('refuses duplicated parameters in a form body', async () => {
    const reg = await send(
      '/api/oauth/register',
      JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
      'application/json',
    );
    const clientId = String(reg.json.client_id);
    for (const body of [
      `grant_type=refresh_token&grant_type=authorization_code&client_id=${clientId}`,
      `grant_type=refresh_token&refresh_token=a&refresh_token=b&client_id=${clientId}`,
    ]) {
      expectClientError(await send('/api/oauth/token', body, form), 'invalid_request');
    }
  });

  it('refuses invalid UTF-8 and broken percent-encoding in a form body', async () => {
    expectClientError(
      await send(
        '/api/oauth/token',
        Buffer.from([0x67, 0x72, 0x61, 0x6e, 0x74, 0x5f, 0x74, 0x79, 0x70, 0x65, 0x3d, 0xff, 0xfe]),
        form,
      ),
    );
    expectClientError(await send('/api/oauth/token', 'grant_type=%E0%A4%A&client_id=%ZZ', form));
  });

  it('refuses a huge scope string at the token endpoint and at authorization, without a 5xx', async () => {
    const scope = Array.from({ length: 20_000 }, (_, i) => `s${i}`).join(' ');
    expectClientError(
      await send(
        '/api/oauth/token',
        `grant_type=refresh_token&refresh_token=x&client_id=c&scope=${scope}`,
        form,
      ),
    );
    const res = await fetch(
      `${auth.issuer}/oauth/authorize?response_type=code&client_id=nobody&scope=${encodeURIComponent(scope.slice(0, 6000))}`,
      {
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      },
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('refuses a request line too long for any endpoint with a 4xx', async () => {
    const res = await fetch(`${auth.issuer}/oauth/authorize?state=${'a'.repeat(100_000)}`, {
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => err);
    // Node's HTTP parser answers 431 (or drops the connection) before any code of ours runs.
    if (res instanceof Response) expect(res.status).toBe(431);
    else expect(res).toBeInstanceOf(Error);
  });

  it.each([
    [
      'a header over 16 KB',
      `GET /api/oauth/jwks HTTP/1.1\r\nhost: x\r\nx-filler: ${'b'.repeat(17 * 1024)}\r\n\r\n`,
      431,
    ],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400],
  ])('answers %s in JSON before any route, as the API does', async (_what, request, status) => {
    const res = await rawRequest(auth.issuer, request);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(res.body)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('unsupported methods', () => {
  it.each([
    ['PUT', '/api/oauth/token', 'POST'],
    ['DELETE', '/.well-known/openid-configuration', 'GET, HEAD'],
    ['OPTIONS', '/api/oauth/jwks', 'GET, HEAD'],
    ['PATCH', '/api/oauth/introspect', 'POST'],
  ])('answers %s %s with 405 method_not_allowed, Allow and an RFC 6749 body', async (method, path, allow) => {
    const res = await fetch(`${auth.issuer}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
    expect(body.error).toBe('method_not_allowed');
  });

  it('answers a page route with a method it does not take with 405, Allow and the error page', async () => {
    const res = await fetch(`${auth.issuer}/oauth/interaction/abc/login`, { method: 'PATCH' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('<code>method_not_allowed</code>');
    expect(page).toMatch(/<code class="ref">[^<]+<\/code>/); // a request id to quote to support
  });

  it('keeps error descriptions to the characters RFC 6749 allows, even when quoting client input', async () => {
    const r = await send(
      '/api/oauth/register',
      JSON.stringify({ redirect_uris: ['https://ex"am\\ple.test/é'] }),
      'application/json',
    );
    expect(r.status).toBe(400);
    expect(String(r.json.error_description)).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
  });
});
