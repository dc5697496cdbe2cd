/**
 * How the API checks tokens (docs/decisions.md), against the real auth server: the answers for every kind
 * of bad token, audience binding, the introspection cache (counted where the calls arrive, at the auth
 * server), single flight, the separate negative cache, and the auth server going away (stopped, or
 * hanging) and coming back: 503 for what is not cached, cached tokens served until their bound and no
 * longer, and never a 200 on private data for a token nobody vouched for.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '../../auth-server/src/logger.js';
import { createLogger as createApiLogger } from '../src/logger.js';
import { startAuthServer } from '../../auth-server/src/server.js';
import { freePort } from '../../../test-support/processes.js';
import {
  authAndApiForFile,
  call,
  introspectionCounter,
  startTestResourceApi,
  type TestResourceApi,
  withResourceApi,
} from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let tokens: TokenSource;
let counter: ReturnType<typeof introspectionCounter>;
let prm: string;

const { auth, api } = authAndApiForFile({ api: { NEGATIVE_CACHE_SIZE: '5' } });
beforeAll(() => {
  tokens = new TokenSource(auth);
  counter = introspectionCounter(auth);
  prm = `${auth.issuer}/.well-known/oauth-protected-resource`;
});

const fresh = async (scope = 'students:read', resource?: string) =>
  (await tokens.fresh([scope], resource ? { resource } : {})).access_token;

function expectInvalidToken(res: Awaited<ReturnType<typeof call>>, description?: RegExp) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(
    /^Bearer error="invalid_token", error_description="[^"]+", scope="[^"]+", resource_metadata="([^"]+)"$/,
  );
  expect(challenge).toContain(`resource_metadata="${prm}"`);
  if (description) expect((res.body as { error_description: string }).error_description).toMatch(description);
}

describe('answers', () => {
  it('serves a request without an Authorization header as anonymous, without any challenge', async () => {
    const res = await call(api.url, '/api/v1/students');
    expect(res.status).toBe(403);
    expect((res.body as { error: string }).error).toBe('access_denied');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer a b'], ['Token abc'], ['']])(
    'answers 401 invalid_token to the malformed Authorization header %j',
    async (authorization) => {
      const res = await call(api.url, '/api/v1/courses', { authorization, headers: { authorization } });
      expectInvalidToken(res);
    },
  );

  it('answers 401 invalid_token to an unknown token, even on an operation with a public view', async () => {
    expectInvalidToken(
      await call(api.url, '/api/v1/courses', { token: 'not-a-real-token' }),
      /invalid, expired or revoked/,
    );
  });

  it('answers 401 to a refresh token used as an access token', async () => {
    const set = await tokens.fresh(['courses:read']);
    expectInvalidToken(
      await call(api.url, '/api/v1/courses', { token: set.refresh_token! }),
      /refresh token/,
    );
  });

  it('refuses a token sent in the query string with 400, instead of serving it as anonymous', async () => {
    const token = await fresh('courses:read');
    const res = await call(api.url, `/api/v1/courses?access_token=${token}`);
    expect(res.status).toBe(400);
    expect((res.body as { error: string }).error).toBe('invalid_request');
  });

  it('accepts an unbound token (no resource) and a token bound to BASE_URL with or without the slash', async () => {
    for (const resource of [undefined, auth.issuer, `${auth.issuer}/`]) {
      const res = await call(api.url, '/api/v1/students?limit=1', {
        token: await fresh('students:read', resource),
      });
      expect(res.status).toBe(200);
    }
  });

  it('refuses a token bound to another resource with 401, and accepts an unbound one there', async () => {
    await withResourceApi(auth, { BASE_URL: `http://127.0.0.1:${await freePort()}` }, async (other) => {
      const bound = await fresh('students:read', auth.issuer);
      const res = await call(other.url, '/api/v1/students', { token: bound });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(
        `resource_metadata="${other.config.BASE_URL}/.well-known/oauth-protected-resource"`,
      );
      expect((res.body as { error_description: string }).error_description).toMatch(/another resource/);
      expect(
        (await call(other.url, '/api/v1/students', { token: await fresh('students:read') })).status,
      ).toBe(200);
    });
  });
});

describe('tokens of every shape', () => {
  const jwt = async (issuer: string) => {
    const { privateKey } = await generateKeyPair('ES256');
    return new SignJWT({ sub: 'someone', scope: 'students:read' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(issuer)
      .setAudience(auth.issuer)
      .setExpirationTime('10m')
      .sign(privateKey);
  };
  const shapes: [string, () => Promise<string>][] = [
    [
      'an ID token of this auth server',
      async () => (await tokens.fresh(['openid', 'students:read'])).id_token!,
    ],
    ['a JWT of another issuer', () => jwt('https://other-issuer.example')],
    ['an unsigned JWT (alg none)', () => Promise.resolve('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.')],
    ['a huge token (12,000 characters)', () => Promise.resolve('A'.repeat(12_000))],
    ['a token of every b64token character', () => Promise.resolve('abc-._~+/XYZ019==')],
    ['a token padded with spaces', () => Promise.resolve('  spaced-token-0123456789  ')],
    ['a refresh token', async () => (await tokens.fresh(['students:read'])).refresh_token!],
  ];

  it.each(shapes)(
    'answers %s 401 invalid_token with the challenge, and remembers it (no second introspection)',
    async (_name, make) => {
      const token = await make();
      const authorization = `Bearer ${token}`;
      const first = await call(api.url, '/api/v1/students', { authorization });
      expectInvalidToken(first);
      const calls = counter.count;
      expectInvalidToken(await call(api.url, '/api/v1/students', { authorization }));
      expect(counter.count).toBe(calls);
    },
  );

  it('gets {"active": false} from the auth server itself for a JWT-shaped token, and only for an authenticated client', async () => {
    const token = await jwt(auth.issuer);
    const introspect = (form: Record<string, string>) =>
      fetch(`${auth.issuer}/api/oauth/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    const answer = await introspect({
      token,
      client_id: api.config.INTROSPECTION_CLIENT_ID,
      client_secret: api.config.INTROSPECTION_CLIENT_SECRET,
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ active: false });
    const anonymous = await introspect({ token });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toBe('invalid_client');
  });
});

describe('an auth server that refuses or fails', () => {
  async function answering(status: number, body: object) {
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const lines: string[] = [];
    const logger = createApiLogger('info', 'resource-api', {
      write: (line: string) => void lines.push(line),
    });
    const failing = await startTestResourceApi(
      auth,
      { AUTH_INTERNAL_URL: `http://127.0.0.1:${port}` },
      { logger },
    );
    return {
      failing,
      lines,
      close: async () => {
        await failing.stop();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it.each([
    [500, { error: 'server_error' }],
    [502, {}],
    [503, { error: 'temporarily_unavailable' }],
    [429, { error: 'too_many_requests' }],
  ])('answers 503 temporarily_unavailable when introspection answers %i', async (status, body) => {
    const { failing, close } = await answering(status, body);
    try {
      const res = await call(failing.url, '/api/v1/students', { token: 'some-token-0123456789abcdef' });
      expect(res.status).toBe(503);
      expect((res.body as { error: string }).error).toBe('temporarily_unavailable');
    } finally {
      await close();
    }
  });

  it('answers 503 and logs an error naming the credentials when the auth server refuses the API’s own client', async () => {
    const { failing, lines, close } = await answering(401, { error: 'invalid_client' });
    try {
      const res = await call(failing.url, '/api/v1/students', { token: 'some-token-0123456789abcdef' });
      expect(res.status).toBe(503);
      expect((res.body as { error: string }).error).toBe('temporarily_unavailable');
      const errors = lines
        .map((l) => JSON.parse(l) as { level: number; err?: string })
        .filter((l) => l.level >= 50);
      expect(errors.map((l) => l.err).join('\n')).toMatch(/INTROSPECTION_CLIENT_SECRET/);
    } finally {
      await close();
    }
  });

  it('answers 503 with a real auth server when the API’s introspection secret is wrong', async () => {
    await withResourceApi(auth, { INTROSPECTION_CLIENT_SECRET: 'w'.repeat(40) }, async (wrong) => {
      const res = await call(wrong.url, '/api/v1/students', { token: 'some-token-0123456789abcdef' });
      expect(res.status).toBe(503);
    });
  });
});

describe('the introspection cache', () => {
  it('introspects a token once: a second request within the bound makes no call', async () => {
    const token = await fresh();
    const before = counter.count;
    expect((await call(api.url, '/api/v1/students?limit=1', { token })).status).toBe(200);
    expect(counter.count).toBe(before + 1);
    expect((await call(api.url, '/api/v1/students?limit=1', { token })).status).toBe(200);
    expect((await call(api.url, '/api/v1/students/000000000000000000000000', { token })).status).toBe(404);
    expect(counter.count).toBe(before + 1);
  });

  it('makes one call for many concurrent first requests with the same token (single flight)', async () => {
    const token = await fresh();
    const before = counter.count;
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call(api.url, '/api/v1/students?limit=1', { token })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(counter.count).toBe(before + 1);
  });

  it('remembers a junk token briefly, in a cache of its own that cannot evict good tokens', async () => {
    const good = await fresh();
    expect((await call(api.url, '/api/v1/students?limit=1', { token: good })).status).toBe(200);
    const before = counter.count;
    expect((await call(api.url, '/api/v1/students', { token: 'junk-0' })).status).toBe(401);
    expect((await call(api.url, '/api/v1/students', { token: 'junk-0' })).status).toBe(401);
    expect(counter.count).toBe(before + 1);
    for (let i = 1; i <= 20; i++) await call(api.url, '/api/v1/students', { token: `junk-${i}` });
    expect(counter.count).toBe(before + 21);
    expect((await call(api.url, '/api/v1/students?limit=1', { token: good })).status).toBe(200);
    expect(counter.count).toBe(before + 21);
  });
});

describe('when the auth server is unreachable', () => {
  it('answers 503 temporarily_unavailable (never 401), keeps serving cached tokens and anonymous callers, and recovers', async () => {
    const cached = await fresh();
    const uncached = await fresh();
    expect((await call(api.url, '/api/v1/students?limit=1', { token: cached })).status).toBe(200);

    await auth.running.close();
    try {
      const down = await call(api.url, '/api/v1/students?limit=1', { token: uncached });
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
      expect(down.headers.get('www-authenticate')).toBeNull();
      expect(down.headers.get('retry-after')).toBe('5');
      expect((await call(api.url, '/api/v1/students?limit=1', { token: cached })).status).toBe(200);
      expect((await call(api.url, '/api/v1/courses')).status).toBe(200);
    } finally {
      auth.running = await startAuthServer(auth.config, createLogger('silent'));
      counter.attach();
    }
    expect((await call(api.url, '/api/v1/students?limit=1', { token: uncached })).status).toBe(200);
  });
});

describe('while the auth server is stopped', () => {
  const BOUND = 2; // INTROSPECTION_CACHE_TTL of this API, seconds
  let bounded: TestResourceApi;
  beforeAll(async () => {
    bounded = await startTestResourceApi(auth, {
      INTROSPECTION_CACHE_TTL: String(BOUND),
      NEGATIVE_CACHE_TTL: '1',
      INTROSPECTION_TIMEOUT_MS: '1000',
    });
  });
  afterAll(() => bounded?.stop());

  const privateReads = [
    '/api/v1/students?limit=1',
    '/api/v1/orders?limit=1',
    '/api/v1/coupons?limit=1',
    '/api/v1/analytics',
    '/api/v1/account',
  ];

  it('serves a cached token until the cache bound and no longer, never 200 for an unknown token, and recovers', async () => {
    const scopes = ['students:read', 'orders:read', 'coupons:read', 'analytics:read', 'account:read'];
    const cached = (await tokens.fresh(scopes)).access_token;
    const neverSeen = (await tokens.fresh(scopes)).access_token;
    expect((await call(bounded.url, privateReads[0]!, { token: cached })).status).toBe(200);
    const cachedAt = Date.now();

    await auth.running.close();
    try {
      for (const path of privateReads) {
        expect([path, (await call(bounded.url, path, { token: cached })).status]).toEqual([path, 200]);
        for (const token of [neverSeen, 'made-up-token-0123456789']) {
          const res = await call(bounded.url, path, { token });
          expect([path, res.status]).toEqual([path, 503]);
          expect(res.body).toEqual({
            error: 'temporarily_unavailable',
            error_description: expect.any(String),
          });
          expect(res.headers.get('retry-after')).toBe('5');
        }
      }
      expect((await call(bounded.url, '/api/v1/courses?limit=1')).status).toBe(200); // anonymous

      await new Promise((r) => setTimeout(r, Math.max(0, cachedAt + BOUND * 1000 + 200 - Date.now())));
      const expired = await call(bounded.url, privateReads[0]!, { token: cached });
      expect(expired.status).toBe(503);
    } finally {
      auth.running = await startAuthServer(auth.config, createLogger('silent'));
      counter.attach();
    }
    for (const token of [cached, neverSeen])
      expect((await call(bounded.url, privateReads[0]!, { token })).status).toBe(200);
    expect((await call(bounded.url, privateReads[0]!, { token: 'made-up-token-0123456789' })).status).toBe(
      401,
    );
  });

  it('answers 503 within the introspection deadline when the auth server accepts connections but never answers', async () => {
    const sockets: Socket[] = [];
    const blackHole: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    const hanging = await startTestResourceApi(auth, {
      AUTH_INTERNAL_URL: `http://127.0.0.1:${port}`,
      INTROSPECTION_TIMEOUT_MS: '500',
    });
    try {
      const started = Date.now();
      const res = await call(hanging.url, privateReads[0]!, { token: await fresh() });
      expect(res.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await hanging.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
    }
  });
});
