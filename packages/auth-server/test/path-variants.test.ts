/**
 * A path written otherwise than its row (letter case, a trailing slash, doubled slashes, dot
 * segments, percent-encoded letters) cannot reach an endpoint without the row's steps: either the
 * server takes it for the row, and then the rate limit, CORS and client authentication steps run,
 * or nothing serves it (404). Requests go out with node:http, which sends the path exactly as
 * written (fetch would resolve the dot segments first).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OAUTH_ROUTES } from '@school/shared';
import { startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { registerClient } from '../../../test-support/oauth-flow.js';
import { readAnswer, type TextAnswer as Answer } from '../../../test-support/raw-http.js';

/** The token endpoint's limit per client and address while these tests run. */
const TOKEN_LIMIT = 3;

/** `path` written the ways a client might write it, to reach the same endpoint. */
function variants(path: string): string[] {
  const upper = path.replace(/[a-z]+/g, (w) => w[0]!.toUpperCase() + w.slice(1));
  const last = path.lastIndexOf('/');
  return [
    path.toUpperCase(),
    upper,
    `${path}/`,
    `${path}//`,
    `/${path}`,
    `${path.slice(0, last)}/${path.slice(last)}`,
    `${path.slice(0, last)}/.${path.slice(last)}`,
    `${path.slice(0, last)}/x/..${path.slice(last)}`,
    `${path.slice(0, last + 1)}%${path.charCodeAt(last + 1).toString(16)}${path.slice(last + 2)}`,
  ];
}

/** Sends one request with the path exactly as given. */
function send(
  origin: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  form?: Record<string, string>,
): Promise<Answer> {
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method,
        path,
        headers: {
          ...headers,
          ...(body
            ? {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': Buffer.byteLength(body),
              }
            : {}),
        },
      },
      (res) => resolve(readAnswer(res)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

let auth: TestAuthServer;
/** A registered client: only a client that exists is counted per client. */
let clientId: string;

beforeAll(async () => {
  auth = await startTestAuthServer({
    RATE_LIMIT_TOKEN: String(TOKEN_LIMIT),
    RATE_LIMIT_PER_ADDRESS: '100000',
  });
  ({ clientId } = await registerClient(auth));
}, 60_000);

afterAll(async () => {
  await auth?.stop();
});

describe('a token endpoint path written otherwise', () => {
  it('is counted in the row’s rate limit or not served', async () => {
    const form = { grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId };
    for (let i = 0; i < TOKEN_LIMIT; i++) {
      const res = await send(auth.issuer, 'POST', OAUTH_ROUTES.token, {}, form);
      expect(res.status).not.toBe(429);
    }
    const answers = [];
    for (const path of variants(OAUTH_ROUTES.token)) {
      const res = await send(auth.issuer, 'POST', path, {}, form);
      answers.push({ path, status: res.status });
    }
    const taken = answers.filter((a) => a.status !== 404);
    expect(taken.length).toBeGreaterThan(2); // case and a trailing slash are taken for the row
    expect(taken).toEqual(taken.map(({ path }) => ({ path, status: 429 })));
  });

  it('has its client authentication checked or is not served', async () => {
    const answers = [];
    for (const [i, path] of variants(OAUTH_ROUTES.token).entries()) {
      const res = await send(
        auth.issuer,
        'POST',
        path,
        { authorization: `Basic ${Buffer.from(`variant-auth-${i}:secret`).toString('base64')}` },
        { grant_type: 'client_credentials', client_id: `variant-auth-${i}` },
      );
      answers.push({ path, status: res.status, error: (JSON.parse(res.body) as { error: string }).error });
    }
    const taken = answers.filter((a) => a.status !== 404);
    expect(taken.length).toBeGreaterThan(2);
    expect(taken).toEqual(taken.map(({ path }) => ({ path, status: 401, error: 'invalid_client' })));
    for (const { path } of taken) {
      const res = await send(auth.issuer, 'POST', path, { authorization: 'Basic eDp5' }, { client_id: 'x' });
      expect({
        path,
        description: (JSON.parse(res.body) as { error_description?: string }).error_description,
      }).toEqual({
        path,
        description: expect.stringContaining('Authorization header is not supported'),
      });
    }
  });

  it('answers a preflight with the row’s CORS or is not served', async () => {
    for (const path of variants(OAUTH_ROUTES.token)) {
      const res = await send(auth.issuer, 'OPTIONS', path, {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
      });
      if (res.status === 404) continue;
      expect({ path, status: res.status, origin: res.headers['access-control-allow-origin'] }).toEqual({
        path,
        status: 204,
        origin: '*',
      });
    }
  });
});

describe('an introspection path written otherwise', () => {
  it('answers a preflight without the CORS oidc-provider would add, or is not served', async () => {
    const answers = [];
    for (const path of [OAUTH_ROUTES.introspection, ...variants(OAUTH_ROUTES.introspection)]) {
      const res = await send(auth.issuer, 'OPTIONS', path, {
        origin: 'https://elsewhere.example',
        'access-control-request-method': 'POST',
      });
      answers.push({ path, status: res.status, cors: res.headers['access-control-allow-origin'] ?? null });
    }
    const taken = answers.filter((a) => a.status !== 404);
    expect(taken.length).toBeGreaterThan(2);
    expect(taken).toEqual(taken.map(({ path }) => ({ path, status: 204, cors: null })));
  });
});
