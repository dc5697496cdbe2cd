/**
 * The direct introspection path (http/direct-introspection.ts) against oidc-provider's own, byte
 * for byte. Two auth servers share one storage (Redis prefix, database, keys, issuer): one as
 * deployed, one with DIRECT_INTROSPECTION=false, where every introspection goes through oidc-provider.
 * Every request below, active tokens and everything that is not, is sent to both as the same bytes;
 * status, headers (but the date and request id) and body must be identical. The first server's
 * `auth_direct_introspections_total` says which path answered: the direct one exactly for the
 * introspection client's plain requests about valid access tokens, never for anything else.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { INTROSPECTOR, twoInstancesForFile } from '../../../test-support/auth-server.js';
import { scrape, total } from '../../../test-support/metrics-scrape.js';
import { DpopKey, signInWithDpop } from '../../../test-support/dpop.js';
import { TokenSource } from '../../../test-support/tokens.js';
import { modelKey } from '../src/storage/redis-keys.js';

let redis: Redis;
let source: TokenSource;

afterAll(() => redis?.disconnect());
const { auth: direct, second: provider } = twoInstancesForFile({}, { DIRECT_INTROSPECTION: false });
beforeAll(() => {
  redis = new Redis(direct.config.REDIS_URL);
  source = new TokenSource(direct);
});

const prefix = () => direct.config.REDIS_KEY_PREFIX;
const CREDENTIALS = `client_id=${INTROSPECTOR.clientId}&client_secret=${INTROSPECTOR.clientSecret}`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Sent {
  type?: string;
  query?: string;
  headers?: Record<string, string>;
}

async function send(base: string, body: string, init: Sent = {}): Promise<Answer> {
  const res = await fetch(`${base}/api/oauth/introspect${init.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': init.type ?? 'application/x-www-form-urlencoded', ...init.headers },
    body,
  });
  const headers = Object.fromEntries(res.headers);
  delete headers.date;
  delete headers['x-request-id'];
  return { status: res.status, headers, body: await res.text() };
}

const directAnswers = async () => total(await scrape(direct.issuer), 'auth_direct_introspections_total');

/**
 * Sends `body` to both servers and expects the same answer; returns it, and how many of the two
 * requests the direct path answered (the second server has none).
 */
async function both(body: string, init: Sent = {}) {
  const before = await directAnswers();
  const ours = await send(direct.issuer, body, init);
  const taken = (await directAnswers()) - before;
  const theirs = await send(provider.url, body, init);
  expect(ours).toEqual(theirs);
  return { answer: ours, taken, json: JSON.parse(ours.body) as Record<string, unknown> };
}

/** A model's key, and its stored payload (grant-bound models are hashes with the payload in `p`). */
async function payloadOf(model: string, id: string) {
  const key = modelKey(prefix(), model, id);
  const hash = (await redis.type(key)) === 'hash';
  const json = hash ? await redis.hget(key, 'p') : await redis.get(key);
  return { key, hash, payload: JSON.parse(json!) as Record<string, unknown> };
}

/** The stored payload of a model, rewritten by `change` (its TTL kept). */
async function rewrite(model: string, id: string, change: (payload: Record<string, unknown>) => void) {
  const { key, hash, payload } = await payloadOf(model, id);
  change(payload);
  if (hash) await redis.hset(key, 'p', JSON.stringify(payload));
  else await redis.set(key, JSON.stringify(payload), 'KEEPTTL');
}

const stored = async (token: string) =>
  (await payloadOf('AccessToken', token)).payload as { grantId: string; clientId: string; accountId: string };

describe('active access tokens: the direct path answers, with the same bytes as oidc-provider', () => {
  it.each([
    ['no hint', (t: string) => `token=${t}&${CREDENTIALS}`],
    ['token_type_hint=access_token', (t: string) => `token=${t}&token_type_hint=access_token&${CREDENTIALS}`],
    [
      'the URN hint',
      (t: string) =>
        `token=${t}&token_type_hint=urn:ietf:params:oauth:token-type:access_token&${CREDENTIALS}`,
    ],
    ['the parameters in another order', (t: string) => `${CREDENTIALS}&token=${t}`],
  ])('%s', async (_name, form) => {
    const token = await source.token(['openid', 'courses:read']);
    const { answer, taken, json } = await both(form(token));
    expect(taken).toBe(1);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(json).toMatchObject({
      active: true,
      scope: 'openid courses:read',
      token_type: 'Bearer',
      iss: direct.issuer,
    });
    expect(Object.keys(json)[0]).toBe('active');
  });

  it('a token bound to a DPoP key (cnf.jkt, token_type DPoP)', async () => {
    const key = await DpopKey.create();
    const client = await source.client();
    const res = await signInWithDpop(direct, client, key, { scope: 'openid courses:read' });
    const token = (res.body as { access_token: string }).access_token;
    const { taken, json } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(1);
    expect(json).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('a token bound to the API by a resource indicator (aud)', async () => {
    const token = await source.token(['courses:read'], { resource: direct.issuer });
    const { taken, json } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(1);
    expect(json).toMatchObject({ active: true, aud: direct.issuer });
  });
});

describe('everything else: oidc-provider answers, as before', () => {
  it.each([
    ['an unknown token', () => `token=${'A'.repeat(43)}&${CREDENTIALS}`],
    ['a JWT-shaped token', () => `token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.&${CREDENTIALS}`],
    ['an empty token', () => `token=&${CREDENTIALS}`],
    ['no token', () => CREDENTIALS],
    [
      'the wrong secret',
      (t: string) => `token=${t}&client_id=${INTROSPECTOR.clientId}&client_secret=${'x'.repeat(40)}`,
    ],
    ['no secret', (t: string) => `token=${t}&client_id=${INTROSPECTOR.clientId}`],
    ['a secret one character short', (t: string) => `token=${t}&${CREDENTIALS.slice(0, -1)}`],
    [
      'another client id',
      (t: string) => `token=${t}&client_id=someone-else&client_secret=${INTROSPECTOR.clientSecret}`,
    ],
    ['the token twice', (t: string) => `token=${t}&token=${t}&${CREDENTIALS}`],
    [
      'the hint twice',
      (t: string) => `token=${t}&token_type_hint=access_token&token_type_hint=access_token&${CREDENTIALS}`,
    ],
    ['a refresh_token hint', (t: string) => `token=${t}&token_type_hint=refresh_token&${CREDENTIALS}`],
    ['an unknown hint', (t: string) => `token=${t}&token_type_hint=id_token&${CREDENTIALS}`],
    ['a parameter more', (t: string) => `token=${t}&resource=x&${CREDENTIALS}`],
    [
      'a percent-encoded token',
      (t: string) => `token=%${t.charCodeAt(0).toString(16)}${t.slice(1)}&${CREDENTIALS}`,
    ],
    ['a trailing &', (t: string) => `token=${t}&${CREDENTIALS}&`],
    ['a parameter without a value', (t: string) => `token=${t}&${CREDENTIALS}&token_type_hint`],
  ])('%s', async (_name, form) => {
    const token = await source.token(['courses:read']);
    const { taken } = await both(form(token));
    expect(taken).toBe(0);
  });

  it('a query string beside the form', async () => {
    const token = await source.token(['courses:read']);
    const { taken } = await both(`token=${token}&${CREDENTIALS}`, {
      query: '?token_type_hint=refresh_token',
    });
    expect(taken).toBe(0);
  });

  it('an Origin header (a browser; oidc-provider refuses it for this client)', async () => {
    const token = await source.token(['courses:read']);
    const { taken, answer } = await both(`token=${token}&${CREDENTIALS}`, {
      headers: { origin: 'https://app.example' },
    });
    expect(taken).toBe(0);
    expect(answer.status).toBe(400);
  });

  it('a JSON body', async () => {
    const token = await source.token(['courses:read']);
    const body = JSON.stringify({
      token,
      client_id: INTROSPECTOR.clientId,
      client_secret: INTROSPECTOR.clientSecret,
    });
    const { taken, answer } = await both(body, { type: 'application/json' });
    expect(taken).toBe(0);
    expect(answer.status).toBeGreaterThanOrEqual(400);
  });

  it('a refresh token (introspectable, through oidc-provider)', async () => {
    const tokens = await source.fresh(['courses:read']);
    const { taken, json } = await both(`token=${tokens.refresh_token}&${CREDENTIALS}`);
    expect(taken).toBe(0);
    expect(json).toMatchObject({ active: true });
  });

  it('a revoked access token', async () => {
    const { access_token: token } = await source.fresh(['courses:read']);
    await source.revoke(token, 'access_token');
    const { taken, json } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(0);
    expect(json).toEqual({ active: false });
  });

  it('an access token whose grant is gone', async () => {
    const { access_token: token } = await source.fresh(['courses:read']);
    await redis.del(modelKey(prefix(), 'Grant', (await stored(token)).grantId));
    const { taken, json } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(0);
    expect(json).toEqual({ active: false });
  });

  it.each([
    [
      'the token expired',
      'AccessToken',
      (p: Record<string, unknown>) => (p.exp = Math.floor(Date.now() / 1000) - 120),
    ],
    [
      'its grant expired',
      'Grant',
      (p: Record<string, unknown>) => (p.exp = Math.floor(Date.now() / 1000) - 120),
    ],
    [
      'its grant names another client',
      'Grant',
      (p: Record<string, unknown>) => (p.clientId = 'someone-else'),
    ],
    [
      'its grant names another account',
      'Grant',
      (p: Record<string, unknown>) => (p.accountId = 'someone-else'),
    ],
    [
      'it names a certificate binding',
      'AccessToken',
      (p: Record<string, unknown>) => (p['x5t#S256'] = 'x'.repeat(43)),
    ],
  ])('an access token stored as if %s', async (_name, model, change) => {
    // A client and sign-in of its own: the flows of one client and account share their grant.
    const { access_token: token } = await new TokenSource(direct).fresh(['courses:read']);
    const id = model === 'AccessToken' ? token : (await stored(token)).grantId;
    await rewrite(model, id, change);
    const { taken } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(0);
  });

  it('an access token of a client that is gone', async () => {
    const other = new TokenSource(direct);
    const { access_token: token } = await other.fresh(['courses:read']);
    await redis.del(modelKey(prefix(), 'Client', (await stored(token)).clientId));
    await new Promise((r) => setTimeout(r, 5_500)); // past each server's in-process client cache
    const { taken, json } = await both(`token=${token}&${CREDENTIALS}`);
    expect(taken).toBe(0);
    expect(json).toEqual({ active: false });
  }, 15_000);
});
