/**
 * Floods and guessing: Redis-backed rate limits answer 429 with Retry-After and an RFC 6749-shaped
 * body, keyed per client and address so one noisy client does not block others (nor can anyone spend
 * a client's budget from elsewhere), and login brute force is slowed
 * and then stopped per account without revealing whether the account exists.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import { FormBrowser, formAction, inputValue, type Page } from '../../../test-support/form-browser.js';
import { randomBytes } from 'node:crypto';
import { postFormFrom } from '../../../test-support/from-address.js';
import { pkce } from '../../../test-support/oauth-flow.js';
import { scanKeys } from '@school/shared';

const REDIRECT = 'http://127.0.0.1:40404/cb';
let clientId: string;
/** Registered clients for the token limits: two from this address, one flooded from another. */
let noisy: string;
let quiet: string;
let victim: string;

async function registered(): Promise<string> {
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  });
  return ((await res.json()) as { client_id: string }).client_id;
}

const auth = authServerForFile({
  RATE_LIMIT_REGISTRATION: '7',
  RATE_LIMIT_TOKEN: '2',
  RATE_LIMIT_PER_ADDRESS: '2',
  LOGIN_MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS: '4',
});
beforeAll(async () => {
  [clientId, noisy, quiet, victim] = [
    await registered(),
    await registered(),
    await registered(),
    await registered(),
  ];
});

const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
  fetch(`${auth.issuer}${path}`, { method: 'POST', headers: { 'content-type': type }, body });

/** A form POST sent from a given loopback address, answered as a fetch Response. */
async function postFrom(localAddress: string, path: string, body: string): Promise<Response> {
  const form = Object.fromEntries(new URLSearchParams(body));
  const answer = await postFormFrom(auth.issuer, localAddress, path, form);
  return new Response(answer.text, {
    status: answer.status,
    headers: answer.headers as Record<string, string>,
  });
}

/** Every key this server's storage holds now. */
async function storedKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  for await (const batch of scanKeys(auth.running.redis, auth.config.REDIS_KEY_PREFIX))
    for (const key of batch) keys.add(key);
  return keys;
}

async function expectLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description']);
  expect(body.error).toBe('too_many_requests');
}

describe('rate limits', () => {
  it('limits registrations per address with 429, Retry-After and an RFC 6749 body', async () => {
    // Four of the seven allowed registrations went to the clients of the other tests.
    const register = () =>
      post(
        '/api/oauth/register',
        JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
        'application/json',
      );
    for (let i = 0; i < 3; i++) expect((await register()).status).toBe(201);
    await expectLimited(await register());
  });

  it('limits token requests per client, and one noisy client does not block another', async () => {
    const token = (clientId: string) =>
      post('/api/oauth/token', `grant_type=refresh_token&refresh_token=x&client_id=${clientId}`);
    expect((await token(noisy)).status).not.toBe(429);
    expect((await token(noisy)).status).not.toBe(429);
    await expectLimited(await token(noisy));
    expect((await token(quiet)).status).not.toBe(429);
  });

  it('counts a named client per address: a flood naming it from elsewhere leaves its budget alone', async () => {
    const token = (from: string) =>
      postFrom(from, '/api/oauth/token', `grant_type=refresh_token&refresh_token=x&client_id=${victim}`);
    expect((await token('127.0.0.2')).status).not.toBe(429);
    expect((await token('127.0.0.2')).status).not.toBe(429);
    await expectLimited(await token('127.0.0.2'));
    expect((await token('127.0.0.1')).status).not.toBe(429);
  });

  it('counts requests naming a client that does not exist per address: a new made-up id each time does not help', async () => {
    // Concurrent, so a count taken after the answer would let them all through.
    const from = '127.0.0.3';
    const made = (path: string, i: number) =>
      postFrom(
        from,
        path,
        `grant_type=refresh_token&refresh_token=x&token=x&client_id=made-up-${path.length}-${i}`,
      );
    const paths = ['/api/oauth/token', '/api/oauth/introspect', '/api/oauth/revoke'];
    const answers = await Promise.all(paths.flatMap((path) => [0, 1, 2].map((i) => made(path, i))));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(2);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(7);
    await expectLimited(limited[0]!);
    // A client that exists, from the same address, is not refused: its own bucket counts it.
    expect(
      (
        await postFrom(
          from,
          '/api/oauth/token',
          `grant_type=refresh_token&refresh_token=x&client_id=${quiet}`,
        )
      ).status,
    ).toBe(400);
  });

  it('keeps no key per made-up client id: 300 requests naming new 1.5 KB document URLs leave a few short keys', async () => {
    // Documentation addresses (192.0.2.0/24): a document there is refused before any connection.
    const path = () => `/${randomBytes(760).toString('hex')}/client.json`;
    const paths = ['/api/oauth/token', '/api/oauth/introspect', '/api/oauth/revoke'];
    const before = await storedKeys();
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          postFormFrom(auth.issuer, '127.0.0.5', paths[i % 3]!, {
            grant_type: 'refresh_token',
            refresh_token: 'x',
            token: 'x',
            client_id: `https://192.0.2.1${path()}`,
          }),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    const added = [...(await storedKeys())].filter((k) => !before.has(k));
    // The address's counters: its rate limit, and the first-fetch budgets of the address, of the
    // address on that host and of the host, which the two requests let through spent.
    expect(added.length).toBeLessThanOrEqual(4);
    for (const key of added) expect(key.length).toBeLessThan(150);
    expect(statuses.filter((s) => s === 429)).toHaveLength(298); // RATE_LIMIT_PER_ADDRESS: 2
  });

  it('limits requests that name no client per address', async () => {
    const anonymous = () => post('/api/oauth/introspect', 'token=x');
    expect((await anonymous()).status).toBe(401);
    expect((await anonymous()).status).toBe(401);
    await expectLimited(await anonymous());
  });

  it('refuses an oversized form body with 413 in the RFC 6749 shape', async () => {
    const res = await post('/api/oauth/token', `grant_type=authorization_code&code=${'a'.repeat(70 * 1024)}`);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({
      error: 'request_too_large',
      error_description: expect.any(String),
    });
  });
});

describe('login brute force', () => {
  /** One sign-in attempt on a fresh authorization request; `took` is the sign-in POST's time alone, ms. */
  async function attempt(email: string, password: string): Promise<Page & { took: number }> {
    const browser = new FormBrowser(auth.issuer);
    const { challenge } = pkce();
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const page = await browser.follow(`${auth.issuer}/oauth/authorize?${q.toString()}`);
    const started = performance.now();
    const answer = await browser.request(formAction(page.body, '/login')!, {
      form: { csrf: inputValue(page.body, 'csrf')!, email, password },
    });
    return { ...answer, took: performance.now() - started };
  }

  it('slows repeated failures down, then refuses the account, also with the right password', async () => {
    const timings: number[] = [];
    for (let i = 0; i < 4; i++) {
      const failure = await attempt(ADMIN.email, `wrong-${i}`);
      expect(failure.status).toBe(401);
      timings.push(failure.took);
    }
    // The third failure is held back 250 ms and the fourth 500 ms. The baseline is the quicker of the
    // first two (not the first alone, which may carry warm-up on a busy machine): a margin of 300 ms.
    expect(timings[3]!).toBeGreaterThan(Math.min(timings[0]!, timings[1]!) + 200);
    const locked = await attempt(ADMIN.email, ADMIN.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(locked.body).toContain('Too many failed sign-ins');
  });

  it('keeps the keys of sign-in failures short for the longest email the form takes', async () => {
    const before = await storedKeys();
    expect((await attempt(`${'x'.repeat(300)}@school.test`, 'nope')).status).toBe(401);
    const added = [...(await storedKeys())].filter((k) => !before.has(k));
    expect(added.some((k) => k.includes('login'))).toBe(true);
    for (const key of added) expect(key.length).toBeLessThan(150);
  });

  it('answers an unknown email exactly like a real one once its attempts run out', async () => {
    for (let i = 0; i < 4; i++) expect((await attempt('ghost@school.test', 'nope')).status).toBe(401);
    const locked = await attempt('ghost@school.test', 'nope');
    expect(locked.status).toBe(429);
    expect(locked.body).toContain('Too many failed sign-ins');
  });
});
