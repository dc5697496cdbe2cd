/**
 * A client cannot choose the address it is counted and audited under. Through the real edge, from
 * several loopback source addresses (all of 127.0.0.0/8 reaches nginx), requests that forge
 * X-Forwarded-For, X-Real-IP or Forwarded neither reset a per-address limit, nor spend another
 * address's budget, nor write a forged address into the audit log or the request log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose from 'mongoose';
import { startStack, type Stack } from './support/stack.js';

const LIMIT = 3;
const REDIRECT = 'http://127.0.0.1:40407/cb';
let stack: Stack;
let clientId: string;

beforeAll(async () => {
  stack = await startStack({
    RATE_LIMIT_AUTHORIZATION: String(LIMIT),
    RATE_LIMIT_REGISTRATION: String(LIMIT), // the client below registers from an address of its own
    RATE_LIMIT_TOKEN: String(LIMIT),
    RATE_LIMIT_REVOCATION: String(LIMIT),
    RATE_LIMIT_INTROSPECTION: String(LIMIT),
    RATE_LIMIT_PER_ADDRESS: String(LIMIT),
  });
  const res = await send('127.0.0.40', 'POST', '/api/oauth/register', {
    'content-type': 'application/json',
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  });
  clientId = (JSON.parse(res.body) as { client_id: string }).client_id;
}, 90_000);
afterAll(() => stack?.stop());

interface Answer {
  status: number;
  body: string;
}

/** One request through the edge from `localAddress`, with the given headers (and `body`). */
function send(
  localAddress: string,
  method: string,
  path: string,
  { body, ...headers }: Record<string, string> = {},
): Promise<Answer> {
  const edge = new URL(stack.edgeUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: edge.hostname, port: edge.port, path, method, localAddress, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The ways a client can claim to be someone else, each naming a different address. */
const forgeries = (i: number): Record<string, string>[] => [
  { 'x-forwarded-for': `198.51.100.${i}` },
  { 'x-forwarded-for': `203.0.113.${i}, 198.51.100.${i}` },
  { 'x-real-ip': `192.0.2.${i}` },
  { forwarded: `for=192.0.2.${i}` },
];

const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** Each rate-limited endpoint as one request (fresh every time: its own state and challenge). */
const endpoints: Record<string, () => [string, string, Record<string, string>]> = {
  authorization: () => {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
      code_challenge_method: 'S256',
    });
    return ['GET', `/oauth/authorize?${q.toString()}`, {}];
  },
  registration: () => [
    'POST',
    '/api/oauth/register',
    { 'content-type': 'application/json', body: JSON.stringify({ redirect_uris: [REDIRECT] }) },
  ],
  token: () => [
    'POST',
    '/api/oauth/token',
    { ...form, body: `grant_type=refresh_token&refresh_token=x&client_id=${clientId}` },
  ],
  revocation: () => ['POST', '/api/oauth/revoke', { ...form, body: `token=x&client_id=${clientId}` }],
  introspection: () => ['POST', '/api/oauth/introspect', { ...form, body: `token=x&client_id=${clientId}` }],
  // Shaped like our tokens: counted by the script that also reads the token (storage/introspection-count.ts).
  'introspection of a token-shaped value': () => [
    'POST',
    '/api/oauth/introspect',
    { ...form, body: `token=${'A'.repeat(43)}&client_id=${clientId}` },
  ],
  'a request naming no client': () => ['POST', '/api/oauth/introspect', { ...form, body: 'token=x' }],
};

describe('the address the edge saw is the only one that counts', () => {
  let source = 50;
  it.each(Object.keys(endpoints))(
    '%s: forged forwarding headers neither reset the limit nor spend another address’s budget',
    async (name) => {
      const attacker = `127.0.0.${source++}`;
      const victim = `127.0.0.${source++}`;
      // Every request claims another address; the limit still counts them all against the attacker.
      for (let i = 0; i < LIMIT; i++) {
        const [method, path, headers] = endpoints[name]!();
        const forged = forgeries(i)[i % 4]!;
        expect((await send(attacker, method, path, { ...headers, ...forged })).status).not.toBe(429);
      }
      for (const forged of forgeries(9)) {
        const [method, path, headers] = endpoints[name]!();
        expect((await send(attacker, method, path, { ...headers, ...forged })).status).toBe(429);
      }
      // Claiming to be the victim, or the victim's address, spent nothing of the victim's budget.
      const [method, path, headers] = endpoints[name]!();
      const own = await send(victim, method, path, { ...headers, 'x-forwarded-for': attacker });
      expect(own.status).not.toBe(429);
    },
  );
});

describe('the logs', () => {
  it('audit and request-log the address the edge saw, never a forged one', async () => {
    const res = await send('127.0.0.77', 'POST', '/api/oauth/register', {
      'content-type': 'application/json',
      'x-forwarded-for': '198.51.100.99',
      'x-real-ip': '198.51.100.98',
      body: JSON.stringify({ client_name: 'forged address test', redirect_uris: [REDIRECT] }),
    });
    expect(res.status).toBe(201);
    const registered = (JSON.parse(res.body) as { client_id: string }).client_id;
    await send('127.0.0.77', 'GET', '/api/v1/courses', { 'x-forwarded-for': '198.51.100.97' });

    const conn = await mongoose.createConnection(stack.env.MONGODB_URI!).asPromise();
    try {
      let event: Record<string, unknown> | null = null;
      for (let i = 0; i < 50 && !event; i++) {
        event = await conn
          .collection<Record<string, unknown>>('audit_events')
          .findOne({ type: 'client_registered', clientId: registered });
        if (!event) await new Promise((r) => setTimeout(r, 100));
      }
      expect(event?.ip).toBe('127.0.0.77');
    } finally {
      await conn.close();
    }
    await new Promise((r) => setTimeout(r, 400)); // request logs are written in batches (250 ms)
    const lines = [...stack.logs['auth-server']!, ...stack.logs['resource-api']!].join('');
    expect(lines).toContain('127.0.0.77');
    expect(lines).not.toMatch(/198\.51\.100\.9[789]/);
  });
});
