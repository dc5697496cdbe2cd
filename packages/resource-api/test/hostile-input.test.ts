/**
 * Hostile input at the API: oversized and chunked bodies, wrong media types and charsets,
 * deep nesting, invalid UTF-8 in bodies, paths and queries, duplicate and huge query parameters,
 * oversized headers, malformed HTTP, stalled clients, unknown methods and junk Authorization headers.
 * Each gets a clear 4xx in the RFC 6749 shape (JSON `{error, error_description}`), quickly: never a
 * 5xx, never a hang, never a write, never a call to the auth server for a token that cannot be one.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { z } from 'zod';
import { REGISTRY } from '../src/areas/index.js';
import { MAX_DEPTH } from '../src/http/body.js';
import { call, introspectionCounter, type Answer } from '../../../test-support/resource-api.js';
import { rawRequest, type RawAnswer } from '../../../test-support/raw-http.js';
import { problemPaths, schoolForFile } from './helpers.js';

let token: string;
let counter: ReturnType<typeof introspectionCounter>;
const REQUEST_TIMEOUT_MS = 1500;

const s = schoolForFile({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
beforeAll(async () => {
  token = await s.tokens.token(['courses:read', 'courses:write', 'students:read'], {
    resource: s.auth.issuer,
  });
  counter = introspectionCounter(s.auth);
});

const RFC6749 = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/** A 4xx in the API's error shape, with the security headers. */
function expectRefusal(res: Answer | RawAnswer, status: number, error = 'invalid_request') {
  expect(res.status).toBe(status);
  const body = typeof res.body === 'string' ? (JSON.parse(res.body) as Record<string, unknown>) : res.body;
  expect(body).toMatchObject({ error, error_description: expect.stringMatching(RFC6749) });
  const header = (name: string) =>
    res.headers instanceof Headers ? res.headers.get(name) : (res.headers[name] ?? null);
  expect(header('content-type')).toMatch(/^application\/json/);
  expect(header('x-content-type-options')).toBe('nosniff');
  expect(header('content-security-policy')).toContain("default-src 'none'");
}

const courseCount = async () => await s.api.running.connection.collection('courses').countDocuments();

function rawPost(path: string, headers: Record<string, string>, body: Buffer | string) {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = Object.entries({
    host: '127.0.0.1',
    authorization: `Bearer ${token}`,
    'content-length': String(bytes.length),
    ...headers,
  }).map(([k, v]) => `${k}: ${v}`);
  return rawRequest(s.api.url, [
    Buffer.from(`POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`),
    bytes,
  ]);
}

describe('bodies', () => {
  it('answers 413 to a JSON body over BODY_LIMIT sent chunked, without a Content-Length', async () => {
    const before = await courseCount();
    const big = JSON.stringify({ title: 'Big', description: 'x'.repeat(150 * 1024) });
    const res = await fetch(`${s.api.url}/api/v1/courses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < big.length; i += 8192)
            c.enqueue(new TextEncoder().encode(big.slice(i, i + 8192)));
          c.close();
        },
      }),
      duplex: 'half',
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'request_too_large' });
    expect(await courseCount()).toBe(before);
  });

  it.each([
    ['text/plain'],
    ['multipart/form-data; boundary=x'],
    ['application/xml'],
    ['application/json; charset=latin1'],
    ['application/json; charset=utf-16'],
  ])('answers 415 to a JSON operation sent %s', async (type) => {
    const res = await call(s.api.url, '/api/v1/courses', {
      method: 'POST',
      token,
      headers: { 'content-type': type },
      body: '{"title":"Wrong type"}',
    });
    expectRefusal(res, 415, 'unsupported_media_type');
  });

  it(`answers 400 to JSON nested deeper than ${MAX_DEPTH} levels, however deep, at once`, async () => {
    for (const depth of [MAX_DEPTH + 1, 10_000, 40_000]) {
      const nested = `{"title":"Deep","description":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
      const started = Date.now();
      const res = await call(s.api.url, '/api/v1/courses', {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body: nested,
      });
      expectRefusal(res, 400);
      expect(problemPaths(res)).toEqual(['body']);
      expect(Date.now() - started).toBeLessThan(2000);
    }
    // At the limit the nesting is fine, and the schema has its say.
    const atLimit = `{"title":"Deep","description":${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}}`;
    const res = await call(s.api.url, '/api/v1/courses', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: atLimit,
    });
    expect(problemPaths(res)).toEqual(['body.description']);
  });

  it.each([
    ['a stray continuation byte', Buffer.from([0x80])],
    ['an invalid byte', Buffer.from([0xff])],
    ['an overlong encoding of /', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
    ['a truncated sequence', Buffer.from([0xe2, 0x82])],
  ])('answers 400 to a JSON body with %s, and stores nothing', async (_, bad) => {
    const before = await courseCount();
    const body = Buffer.concat([Buffer.from('{"title":"Caf'), bad, Buffer.from('"}')]);
    const res = await rawPost('/api/v1/courses', { 'content-type': 'application/json' }, body);
    expectRefusal(res, 400);
    expect(JSON.parse(res.body)).toMatchObject({
      problems: [{ path: 'body', message: 'is not valid UTF-8' }],
    });
    expect(await courseCount()).toBe(before);
  });
});

describe('the request target', () => {
  it.each([
    ['/api/v1/courses/%FF', 'path'],
    ['/api/v1/%C3%28', 'path'],
    ['/api/v1/courses/%E2%82', 'path'],
    ['/api/v1/courses?q=%FF', 'query'],
    ['/api/v1/courses?q=%ED%A0%80', 'query'],
    ['/api/v1/courses?%C0%AF=1', 'query'],
    ['/api/v1/courses?q=%', 'query'],
  ])('answers 400 to %s (invalid UTF-8 once percent-decoded), naming the %s', async (target, part) => {
    const res = await rawRequest(s.api.url, `GET ${target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`);
    expectRefusal(res, 400);
    expect(
      (JSON.parse(res.body) as { problems: Array<{ path: string }> }).problems.map((p) => p.path),
    ).toEqual([part]);
  });

  it.each([
    [
      'a raw non-ASCII byte',
      Buffer.from('GET /api/v1/courses/\xff HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', 'latin1'),
    ],
    [
      'a raw control character',
      Buffer.from('GET /api/v1/courses?q=\x01 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n', 'latin1'),
    ],
  ])('answers 400 to %s in the request line', async (_, request) => {
    expectRefusal(await rawRequest(s.api.url, request), 400);
  });

  /** A valid value for each query parameter of a list, from its schema. */
  function sample(schema: Record<string, unknown>): string {
    const s2 = schema as {
      enum?: string[];
      anyOf?: Record<string, unknown>[];
      type?: string;
      format?: string;
      pattern?: string;
    };
    if (s2.enum) return s2.enum[0]!;
    if (s2.anyOf) return sample(s2.anyOf[0]!);
    if (s2.type === 'integer' || s2.type === 'number') return '1';
    if (s2.type === 'boolean') return 'true';
    if (s2.format === 'date-time') return new Date(Date.now() - 7 * 86_400_000).toISOString();
    if (s2.format === 'date') return new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
    if (s2.pattern?.includes('0-9a-f')) return '0123456789abcdef01234567';
    return 'a';
  }

  const lists = REGISTRY.flatMap((area) => area.operations)
    .filter((op) => op.method === 'get' && op.query && !op.path.includes('{id}'))
    .map((op) => ({
      op,
      params: Object.entries(z.toJSONSchema(op.query!, { io: 'input' }).properties ?? {}),
    }));

  it.each(lists.map(({ op, params }) => [`${op.method.toUpperCase()} ${op.path}`, op, params] as const))(
    'answers %s with every query parameter given twice 400 naming it (and once, 200)',
    async (_, op, params) => {
      const scope = `${op.area}:read`;
      for (const [name, schema] of params) {
        if (name === 'cursor') continue; // a valid cursor needs a list walk; its duplicate is refused below
        const value = encodeURIComponent(sample(schema as Record<string, unknown>));
        const once = await s.as(scope, `${op.path}?${name}=${value}`);
        expect([name, once.status]).toEqual([name, 200]);
        const twice = await s.as(scope, `${op.path}?${name}=${value}&${name}=${value}`);
        expectRefusal(twice, 400);
        expect(problemPaths(twice)).toEqual([`query.${name}`]);
      }
      if (params.some(([name]) => name === 'cursor')) {
        const twiceCursor = await s.as(scope, `${op.path}?cursor=abc&cursor=abc`);
        expect(problemPaths(twiceCursor)).toEqual(['query.cursor']);
      }
    },
  );

  it('answers 400 to many unknown parameters and to an over-long search, at once', async () => {
    const many = Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&');
    const res = await call(s.api.url, `/api/v1/courses?${many}`, { token });
    expectRefusal(res, 400);
    const long = await call(s.api.url, `/api/v1/courses?q=${'a'.repeat(10_000)}`, { token });
    expectRefusal(long, 400);
    expect(problemPaths(long)).toEqual(['query.q']);
  });

  it('answers 431 in JSON to a query string or a header over 16 KB, before any route', async () => {
    const before = counter.count;
    const longQuery = `GET /api/v1/courses?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`;
    expectRefusal(await rawRequest(s.api.url, longQuery), 431);
    const bigHeader = `GET /api/v1/courses HTTP/1.1\r\nhost: x\r\nx-filler: ${'b'.repeat(17 * 1024)}\r\n\r\n`;
    expectRefusal(await rawRequest(s.api.url, bigHeader), 431);
    const bigToken = `GET /api/v1/courses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${'c'.repeat(17 * 1024)}\r\n\r\n`;
    expectRefusal(await rawRequest(s.api.url, bigToken), 431);
    expect(counter.count).toBe(before);
  });

  it('answers 431 in JSON also to the second request on a kept-alive connection', async () => {
    const first = 'GET /api/v1/courses?limit=1 HTTP/1.1\r\nhost: x\r\n\r\n';
    const second = `GET /api/v1/courses HTTP/1.1\r\nhost: x\r\nx-filler: ${'b'.repeat(17 * 1024)}\r\n\r\n`;
    const res = await rawRequest(s.api.url, [first, second], { pauseMs: 200, untilClose: true });
    expect(res.status).toBe(200);
    const answers = res.raw.split(/(?=HTTP\/1\.1 \d{3} )/);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 431 /);
    expect(answers[1]).toContain('"error":"invalid_request"');
  });
});

describe('HTTP itself', () => {
  it.each([
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a header without a colon', 'GET /api/v1/courses HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n'],
    ['a bad Content-Length', 'POST /api/v1/courses HTTP/1.1\r\nhost: x\r\ncontent-length: -1\r\n\r\n'],
    [
      'two Content-Lengths that disagree',
      'POST /api/v1/courses HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab',
    ],
  ])('answers 400 in JSON to %s', async (_, request) => {
    expectRefusal(await rawRequest(s.api.url, request), 400);
  });

  it('answers 408 in JSON to a client that stalls in its body or its headers, and keeps serving others', async () => {
    const stalledBody = rawRequest(
      s.api.url,
      `POST /api/v1/courses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"title":`,
      { keepOpen: true },
    );
    const stalledHeaders = rawRequest(s.api.url, 'GET /api/v1/courses HTTP/1.1\r\nhost: x\r\nx-slow: ', {
      keepOpen: true,
    });
    expect((await call(s.api.url, '/api/v1/courses?limit=1')).status).toBe(200);
    for (const res of await Promise.all([stalledBody, stalledHeaders])) {
      expectRefusal(res, 408);
      expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
    }
  });

  it.each([['TRACE'], ['PUT'], ['QUERY'], ['OPTIONS']])(
    'answers %s on the API and its documents 405 in JSON with Allow',
    async (method) => {
      for (const [path, allow] of [
        ['/api/v1/courses', 'GET, POST, HEAD'],
        ['/api/v1/courses/0123456789abcdef01234567', 'GET, PATCH, DELETE, HEAD'],
        ['/openapi.json', 'GET, HEAD'],
        ['/auth.md', 'GET, HEAD'],
        ['/.well-known/oauth-protected-resource', 'GET, HEAD'],
      ]) {
        const res = await rawRequest(
          s.api.url,
          `${method} ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
        );
        expectRefusal(res, 405, 'method_not_allowed');
        expect(res.headers.allow).toBe(allow);
      }
    },
  );
});

describe('Authorization headers that cannot carry a token', () => {
  it('answers any junk header 401 invalid_token, without asking the auth server', async () => {
    const junk = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((t) => `Bearer ${t}"`),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((t) => `Bearer a ${t}`),
      fc.constantFrom(
        'Basic dXNlcjpwYXNz',
        'Bearer',
        'Bearer ',
        'DPoP',
        'DPoP a b',
        `Bearer ${'d'.repeat(3000)}`,
      ),
    );
    const before = counter.count;
    await fc.assert(
      fc.asyncProperty(junk, async (authorization) => {
        const header = authorization.trim();
        fc.pre(/^[\x20-\x7e]*$/.test(header) && !/^(bearer|dpop) +[A-Za-z0-9\-._~+/]+=*$/i.test(header));
        const res = await call(s.api.url, '/api/v1/students?limit=1', { headers: { authorization: header } });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({
          error: 'invalid_token',
          error_description: expect.stringMatching(RFC6749),
        });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      }),
      { numRuns: 60 },
    );
    expect(counter.count).toBe(before);
  });

  it('answers 400 when the token is in the query string too, even next to a header', async () => {
    const res = await call(s.api.url, `/api/v1/students?access_token=${token}`, { token });
    expectRefusal(res, 400);
  });
});
