/**
 * Body limits through the real edge in front of the real services. An upload
 * just over UPLOAD_LIMIT used to reach the API, which answered 413 and closed while nginx was still
 * sending, so the client got nginx's HTML 502 now and then. Now every location refuses a body over
 * its service's own limit itself, in the service's shape, and lets one at the limit through; the
 * services' own errors pass through the edge untouched.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TokenSource } from '../test-support/tokens.js';
import { expectEdgeJson, expectEdgePage, seen, type SeenAnswer } from './support/edge-answers.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

const MB = 1024 * 1024;
const UPLOAD_LIMIT = 25 * MB; // the API's default, which the edge mirrors
let stack: Stack;
let uploadToken: string;

beforeAll(async () => {
  stack = await startStack();
  uploadToken = await new TokenSource({ issuer: stack.baseUrl }, E2E_ADMIN).token(['storage:write']);
}, 120_000);
afterAll(() => stack?.stop());

/**
 * POSTs `body` through the edge from `localAddress`; resolves with the answer even when the edge
 * stops reading the body once it has answered (the writing side may then fail: that is not an answer).
 */
function post(
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  localAddress = '127.0.0.1',
): Promise<SeenAnswer> {
  return postTo(stack, path, body, headers, localAddress);
}

/** {@link post} through the edge of `target`. */
function postTo(
  target: Stack,
  path: string,
  body: Buffer,
  headers: Record<string, string>,
  localAddress: string,
): Promise<SeenAnswer> {
  const edge = new URL(target.edgeUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: edge.hostname, port: edge.port, path, method: 'POST', localAddress, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('POST /api/v1/storage', () => {
  it('answers every upload just over the limit with the JSON 413, never a 502 (20 tries, 5 addresses)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const size = i % 2 ? 26 * MB : UPLOAD_LIMIT + 1;
      const answer = await post(
        '/api/v1/storage?filename=big.bin',
        Buffer.alloc(size, i),
        { authorization: `Bearer ${uploadToken}`, 'content-type': 'application/octet-stream' },
        `127.0.0.${50 + (i % 5)}`,
      );
      statuses.push(answer.status);
      if (answer.status === 413) expectEdgeJson(answer, 413, 'request_too_large');
    }
    expect(statuses).toEqual(Array(20).fill(413));
  }, 120_000);

  it('stores an upload of exactly the limit', async () => {
    const answer = await post('/api/v1/storage?filename=limit.bin', Buffer.alloc(UPLOAD_LIMIT, 7), {
      authorization: `Bearer ${uploadToken}`,
      'content-type': 'application/octet-stream',
    });
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ size: UPLOAD_LIMIT });
  }, 60_000);
});

describe('every route’s limit is its service’s own', () => {
  it.each([
    ['/api/oauth/register', 16 * 1024, 'application/json', 'invalid_client_metadata'],
    ['/api/oauth/token', 56 * 1024, 'application/x-www-form-urlencoded', 'request_too_large'],
    ['/api/oauth/revoke', 56 * 1024, 'application/x-www-form-urlencoded', 'request_too_large'],
    ['/api/v1/courses', 100 * 1024, 'application/json', 'request_too_large'],
  ])(
    '%s takes %i bytes of %s to the service and answers one byte more with the JSON 413 %s',
    async (path, limit, type, error) => {
      const atLimit = await post(path, Buffer.alloc(limit, 'a'), { 'content-type': type });
      expect(atLimit.status).not.toBe(413);
      expect(atLimit.headers['origin-agent-cluster']).toBeDefined(); // helmet's: the service answered
      expectEdgeJson(await post(path, Buffer.alloc(limit + 1, 'a'), { 'content-type': type }), 413, error);
    },
  );

  it.each([
    ['/oauth/interaction/unknown/login', 16 * 1024],
    ['/oauth/authorize', 56 * 1024],
  ])(
    'the browser route %s lets %i bytes reach the service and answers one more with the 413 page',
    async (path, limit) => {
      const type = { 'content-type': 'application/x-www-form-urlencoded' };
      const atLimit = await post(path, Buffer.alloc(limit, 'a'), type);
      expect(atLimit.status).not.toBe(413);
      expect(atLimit.headers['origin-agent-cluster']).toBeDefined();
      expectEdgePage(await post(path, Buffer.alloc(limit + 1, 'a'), type), 413, 'request_too_large');
    },
  );
});

describe('the services’ own errors', () => {
  it.each([
    ['GET', '/api/v1/courses/not-an-id', undefined],
    ['POST', '/api/oauth/token', 'grant_type=nonsense'],
    ['GET', '/oauth/authorize?client_id=nobody', undefined],
  ])('pass through the edge untouched: %s %s', async (method, path, body) => {
    const init: RequestInit = {
      method,
      body,
      headers: body ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      redirect: 'manual',
    };
    const service = path.startsWith('/api/v1/') ? stack.apiUrl : stack.authUrl;
    const [through, direct] = [
      await seen(await fetch(`${stack.edgeUrl}${path}`, init)),
      await seen(await fetch(`${service}${path}`, init)),
    ];
    expect(through.status).toBeGreaterThanOrEqual(400);
    // What differs between any two answers, or is the edge's on every answer (Server, Connection):
    // the request id (a UUID from the service, 32 hex digits from the edge), which error pages show,
    // and so the length.
    const strip = ({ status, headers, body }: SeenAnswer) => {
      const { date: _d, connection: _c, 'keep-alive': _k, server: _s, 'x-request-id': _r, ...rest } = headers;
      const { 'content-length': _l, ...kept } = rest;
      return { status, headers: kept, body: body.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{32}/g, 'ID') };
    };
    expect(strip(through)).toEqual(strip(direct));
  });
});

describe('an API whose UPLOAD_LIMIT is below the edge’s', () => {
  let small: Stack;
  let token: string;
  beforeAll(async () => {
    small = await startStack({ UPLOAD_LIMIT: '1mb' });
    token = await new TokenSource({ issuer: small.baseUrl }, E2E_ADMIN).token(['storage:write']);
  }, 120_000);
  afterAll(() => small?.stop());

  // The API refuses the declared size and reads the rest of the body instead of closing under nginx.
  it('still gets its own 413 to the client every time, never a 502 (40 tries)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const answer = await postTo(
        small,
        '/api/v1/storage?filename=big.bin',
        Buffer.alloc((i % 2 ? 20 : 2) * MB, i),
        { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        `127.0.0.${60 + (i % 5)}`,
      );
      statuses.push(answer.status);
      if (answer.status === 413)
        expect(JSON.parse(answer.body)).toMatchObject({ error: 'request_too_large' });
    }
    expect(statuses).toEqual(Array(40).fill(413));
  }, 120_000);
});
