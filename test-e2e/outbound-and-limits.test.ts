/**
 * What an outsider can make the server do, through the edge, from several loopback source addresses:
 * connect to addresses of its choosing (client metadata URLs, metadata-document client ids at IP
 * literals), learn what those addresses answered, spend limits with made-up client ids, write to
 * Redis without limit, and burn a refresh token with a refused `resource`. Every "must not connect"
 * is proven by a loopback listener that counts accepted TCP connections; nothing here makes the
 * server connect anywhere else. The stack keeps the default rule: no metadata document is fetched
 * from a special-use address, loopback included.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { SERVICES } from '../test-support/auth-server.js';
import { postFormFrom } from '../test-support/from-address.js';
import { freePort } from '../test-support/processes.js';
import {
  credentials,
  registerClient,
  requestTokens,
  signIn,
  type OAuthClient,
} from '../test-support/oauth-flow.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

const PER_ADDRESS = 30;
let stack: Stack;
let listener: Server;
let openPort: number;
let closedPort: number;
let connections = 0;
let redis: Redis;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  openPort = (listener.address() as AddressInfo).port;
  closedPort = await freePort();
  redis = new Redis(SERVICES.redisUrl);
  stack = await startStack({ RATE_LIMIT_PER_ADDRESS: String(PER_ADDRESS) });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  redis.disconnect();
  await new Promise((resolve) => listener.close(resolve));
});

/** A form POST through the edge from `localAddress`. */
const postFrom = (localAddress: string, path: string, form: Record<string, string>) =>
  postFormFrom(stack.edgeUrl, localAddress, path, form);

/** Every key the stack's auth server keeps in Redis under `part` of its prefix. */
const keysUnder = (part: string) => redis.keys(`${stack.env.REDIS_KEY_PREFIX}${part}*`);

describe('client metadata URLs, through the edge', () => {
  it('refuses sector_identifier_uri and the other members it would follow, without connecting', async () => {
    for (const [member, value] of [
      ['sector_identifier_uri', `https://127.0.0.1:${openPort}/sector.json`],
      ['jwks_uri', `https://127.0.0.1:${openPort}/jwks.json`],
      ['initiate_login_uri', `https://127.0.0.1:${openPort}/login`],
    ] as const) {
      const res = await fetch(`${stack.baseUrl}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], [member]: value }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'invalid_client_metadata',
        error_description: expect.stringContaining(member),
      });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(connections).toBe(0);
  });
});

describe('metadata-document client ids at IP literals, through the edge', () => {
  const literals = (port: number) => [
    `https://127.0.0.1:${port}/client.json`,
    `https://[::ffff:7f00:1]:${port}/client.json`,
    `https://[::1]:${port}/client.json`,
  ];
  const ENDPOINTS = ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect'];

  it('never connects, and answers an open port and a closed one alike, naming neither', async () => {
    const answers: string[] = [];
    // Each port from an address of its own: a made-up document id spends its sender's first-fetch budget.
    for (const [port, from] of [
      [openPort, '127.0.0.2'],
      [closedPort, '127.0.0.6'],
    ] as const) {
      for (const clientId of literals(port)) {
        for (const path of ENDPOINTS) {
          const res = await postFrom(from, path, {
            client_id: clientId,
            client_secret: 'x',
            grant_type: 'refresh_token',
            refresh_token: 'x',
            token: 'x',
          });
          expect(res.body.error).toBe('invalid_client');
          answers.push(`${path} ${res.status} ${res.body.error_description}`);
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(connections).toBe(0);
    // One answer per endpoint, whatever the address or port: nothing to scan with.
    expect(new Set(answers).size).toBe(ENDPOINTS.length);
    expect(answers.join('\n')).not.toMatch(/refused|ECONN|special-use|loopback|127\.0\.0\.1|::1|resolves/);
  });

  it('leaves nothing in Redis for a fetch that never happened', async () => {
    for (let i = 0; i < 20; i++) {
      await postFrom('127.0.0.3', '/api/oauth/token', {
        client_id: `https://127.0.0.1:${openPort}/junk/${i}.json`,
        grant_type: 'refresh_token',
        refresh_token: 'x',
      });
    }
    expect(await keysUnder('cimd:')).toEqual([]);
  });
});

describe('per-address limits, through the edge', () => {
  it('count made-up client ids per address, concurrently, at token, introspection and revocation', async () => {
    const from = '127.0.0.4';
    const made = (path: string, i: number) =>
      postFrom(from, path, {
        client_id: `made-up-${i}-${Math.random().toString(36).slice(2)}`,
        client_secret: 'x',
        grant_type: 'refresh_token',
        refresh_token: 'x',
        token: 'x',
      });
    const paths = ['/api/oauth/token', '/api/oauth/introspect', '/api/oauth/revoke'];
    const answers = await Promise.all(
      Array.from({ length: PER_ADDRESS + 15 }, (_, i) => made(paths[i % 3]!, i)),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(PER_ADDRESS);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(15);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]!.body.error).toBe('too_many_requests');
    // Another address is not held back by it.
    const elsewhere = await postFrom('127.0.0.5', '/api/oauth/token', {
      client_id: 'made-up-elsewhere',
      grant_type: 'refresh_token',
      refresh_token: 'x',
    });
    expect(elsewhere.status).toBe(401);
  });
});

describe('a refresh that names a refused resource, through the edge', () => {
  let client: OAuthClient;
  beforeAll(async () => {
    client = await registerClient({ issuer: stack.baseUrl });
  });

  /** A refresh of `refreshToken` for `resource`: refused with 400 invalid_target. */
  async function expectTargetRefused(refreshToken: string, resource: string): Promise<void> {
    const refused = await postFrom('127.0.0.1', '/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      resource,
      ...credentials(client),
    });
    expect({ status: refused.status, error: refused.body.error }).toEqual({
      status: 400,
      error: 'invalid_target',
    });
  }

  it.each([
    ['another resource server', 'https://elsewhere.example/api'],
    ['a resource that is not a URL', 'not a url'],
  ])('is refused with invalid_target for %s, and the refresh token still works', async (_what, resource) => {
    const issuer = { issuer: stack.baseUrl };
    const tokens = await signIn(issuer, client, {
      scope: 'openid courses:read',
      account: E2E_ADMIN,
      resource: stack.baseUrl,
    });
    await expectTargetRefused(tokens.refresh_token!, resource);
    const next = await requestTokens(issuer, client, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      resource: stack.baseUrl,
    });
    expect(next.refresh_token).toBeDefined();
    const api = await fetch(`${stack.baseUrl}/api/v1/courses`, {
      headers: { authorization: `Bearer ${next.access_token}` },
    });
    expect(api.status).toBe(200);
  });

  it('is refused for the API when the grant was made without it, and the refresh token still works', async () => {
    const issuer = { issuer: stack.baseUrl };
    const tokens = await signIn(issuer, client, { scope: 'openid courses:read', account: E2E_ADMIN });
    await expectTargetRefused(tokens.refresh_token!, stack.baseUrl);
    const next = await requestTokens(issuer, client, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect(next.access_token).toBeDefined();
  });
});
