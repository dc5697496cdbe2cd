/**
 * Resolving a Client ID Metadata Document URL: every validation rule, caching by the HTTP cache
 * headers within the configured bounds, failures never cached, stale serving while the host fails,
 * and the status operators see. Real Redis, a real HTTPS server with a test CA, the real fetcher.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { SERVICES } from '../../../test-support/auth-server.js';
import {
  loopbackLookup,
  makeTestPki,
  startDocumentServer,
  type DocumentServer,
} from '../../../test-support/https-documents.js';
import { CimdResolver, type CimdCachePolicy } from '../src/cimd/cimd-resolver.js';
import { allowCimdClient, listCimdClients } from '../src/cimd/cimd-operator.js';
import { createDocumentFetcher } from '../src/cimd/document-fetcher.js';

let server: DocumentServer;
let redis: Redis;
let fetchDocument: ReturnType<typeof createDocumentFetcher>;
let prefix: string;
let path: string;
let url: string;

beforeAll(async () => {
  const pki = makeTestPki();
  server = await startDocumentServer(pki);
  redis = new Redis(SERVICES.redisUrl);
  fetchDocument = createDocumentFetcher({
    timeoutMs: 1500,
    limiter: new RateLimiterMemory({ points: 1000, duration: 60 }),
    allowLoopback: true,
    extraCa: pki.caPem,
    lookup: loopbackLookup,
  });
});
afterAll(async () => {
  const keys = await redis.keys('test:cimd-resolver:*');
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await server.close();
});
beforeEach(() => {
  prefix = `test:cimd-resolver:${randomBytes(6).toString('hex')}:`;
  path = `/apps/${randomBytes(6).toString('hex')}/client.json`;
  url = server.url(path, 'cimd.test');
});

const resolver = (policy: Partial<CimdCachePolicy> = {}) =>
  new CimdResolver(redis, prefix, fetchDocument, {
    minSeconds: 0,
    maxSeconds: 3600,
    staleSeconds: 60,
    ...policy,
  });
const doc = (extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Notes agent',
  redirect_uris: ['http://localhost/callback'],
  ...extra,
});
const hits = () => server.hits.get(path) ?? 0;
const refusal = (pattern: RegExp) =>
  expect.objectContaining({ error: 'invalid_client', error_description: expect.stringMatching(pattern) });

describe('a metadata document', () => {
  it('becomes a public native client, unknown members ignored, stored so its tokens are found', async () => {
    server.json(
      path,
      doc({
        software_statement: 'ignored',
        future_member: { nested: true },
        logo_uri: 'https://cimd.test/logo.png',
      }),
    );
    const client = await resolver().resolve(url);
    expect(client).toEqual({
      client_id: url,
      client_name: 'Notes agent',
      logo_uri: 'https://cimd.test/logo.png',
      redirect_uris: ['http://localhost/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      client_id_issued_at: expect.any(Number),
    });
    expect(JSON.parse((await redis.get(`${prefix}Client:${url}`))!)).toEqual(client);
  });

  it('is stored again, as a new client, when its record was removed (by an operator or the sweep)', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=600' });
    const r = resolver();
    const first = await r.resolve(url);
    expect(await r.resolve(url)).toEqual(first); // the same record while it stays
    await redis.del(`${prefix}Client:${url}`);
    await redis.hset(`${prefix}cimd:${url}`, 'issuedAt', 1); // so a new issue time shows
    const again = await r.resolve(url);
    expect(hits()).toBe(1); // from the cache: no new fetch
    expect(again.client_id_issued_at).toBeGreaterThan(1);
    expect(JSON.parse((await redis.get(`${prefix}Client:${url}`))!)).toEqual(again);
  });

  it.each([
    [
      'whose client_id is another URL',
      { client_id: 'https://cimd.test/other.json' },
      /client_id must be the URL it is served at/,
    ],
    [
      'with private_key_jwt',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://cimd.test/jwks' },
      /private_key_jwt is not supported here/,
    ],
    [
      'with a secret-based auth method',
      { token_endpoint_auth_method: 'client_secret_post' },
      /token_endpoint_auth_method must be none/,
    ],
    ['carrying a client secret', { client_secret: 'x' }, /must not carry a client secret/],
    [
      'with redirect_uris of the wrong type',
      { redirect_uris: 'http://localhost/cb' },
      /member redirect_uris/,
    ],
    ['with a client_name of the wrong type', { client_name: 42 }, /member client_name/],
    ['with no redirect URI', { redirect_uris: [] }, /at least one redirect URI/],
    [
      'asking a grant type open registration refuses',
      { grant_types: ['client_credentials'] },
      /member grant_types/,
    ],
    [
      'asking a response type open registration refuses',
      { response_types: ['token'] },
      /member response_types/,
    ],
    [
      'with a non-loopback http redirect URI',
      { redirect_uris: ['http://app.example/cb'] },
      /not a loopback URI/,
    ],
    [
      'with a loopback URI not written canonically',
      { redirect_uris: ['http://LOCALHOST/cb'] },
      /canonical form/,
    ],
    [
      'with an http logo_uri',
      { logo_uri: 'http://cimd.test/logo.png' },
      /member logo_uri: must be an https URL/,
    ],
    ['with a control character in its name', { client_name: 'Notes\u202Eagent' }, /bidirectional/],
    ['with a name over the cap', { client_name: 'x'.repeat(101) }, /at most 100 characters/],
  ])('is refused %s', async (_what, extra, pattern) => {
    server.json(path, doc(extra));
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(pattern));
  });

  it('is refused when it is not a JSON object', async () => {
    server.json(path, [doc()]);
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/not a JSON object/));
  });
});

describe('https redirect URIs', () => {
  it('count only for a client_id an operator allowed', async () => {
    server.json(path, doc({ redirect_uris: ['https://notes.example/cb', 'http://127.0.0.1/cb'] }));
    expect((await resolver().resolve(url)).redirect_uris).toEqual(['http://127.0.0.1/cb']);
    await allowCimdClient(redis, prefix, url);
    expect(await resolver().resolve(url)).toMatchObject({
      redirect_uris: ['https://notes.example/cb', 'http://127.0.0.1/cb'],
      application_type: 'web',
    });
  });

  it('leave a document with nothing else refused with invalid_redirect_uri', async () => {
    server.json(path, doc({ redirect_uris: ['https://notes.example/cb'] }));
    await expect(resolver().resolve(url)).rejects.toMatchObject({ error: 'invalid_redirect_uri' });
  });
});

describe('caching', () => {
  it('reuses a document for its Cache-Control max-age, then fetches it again', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=1' });
    const r = resolver();
    await r.resolve(url);
    await r.resolve(url);
    expect(hits()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await r.resolve(url);
    expect(hits()).toBe(2);
  });

  it('keeps within the configured floor and ceiling', async () => {
    server.json(path, doc(), { 'cache-control': 'no-store' });
    await resolver({ minSeconds: 120 }).resolve(url);
    const [low] = await listCimdClients(redis, prefix);
    expect(Date.parse(low!.fresh_until!) - Date.now()).toBeGreaterThan(100_000);
    expect(Date.parse(low!.fresh_until!) - Date.now()).toBeLessThanOrEqual(120_000);

    server.json(path, doc(), { 'cache-control': 'max-age=31536000' });
    await redis.hset(`${prefix}cimd:${url}`, 'freshUntil', 0);
    await resolver({ maxSeconds: 600 }).resolve(url);
    const [high] = await listCimdClients(redis, prefix);
    expect(Date.parse(high!.fresh_until!) - Date.now()).toBeLessThanOrEqual(600_000);
  });

  it('never caches a failure or an invalid document: each request fetches again', async () => {
    server.route(path, (_req, res) => res.writeHead(503).end());
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/could not be fetched: answered 503/));
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/503/));
    server.json(path, doc({ client_id: 'https://elsewhere.example/c.json' }), {
      'cache-control': 'max-age=600',
    });
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/client_id must be/));
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/client_id must be/));
    expect(hits()).toBe(4);
    server.json(path, doc(), { 'cache-control': 'max-age=600' });
    await expect(resolver().resolve(url)).resolves.toMatchObject({ client_id: url });
    expect(hits()).toBe(5);
  });
});

describe('while the host fails', () => {
  it('serves the last valid document stale for at most the stale window, and says so', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=0' });
    const r = resolver({ staleSeconds: 1 });
    await r.resolve(url);
    server.route(path, (_req, res) => res.writeHead(502).end());
    await expect(r.resolve(url)).resolves.toMatchObject({ client_name: 'Notes agent' });
    expect((await listCimdClients(redis, prefix))[0]).toMatchObject({
      status: 'stale',
      error: 'answered 502',
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expect(r.resolve(url)).rejects.toEqual(refusal(/502/));
    expect((await listCimdClients(redis, prefix))[0]).toMatchObject({ status: 'failed' });
  });

  it('serves nothing stale once the host answers that the document is gone or invalid', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=0' });
    const r = resolver();
    await r.resolve(url);
    server.route(path, (_req, res) => res.writeHead(404).end());
    await expect(r.resolve(url)).rejects.toEqual(refusal(/404/));
    server.route(path, (_req, res) => res.writeHead(503).end()); // the old document is forgotten
    await expect(r.resolve(url)).rejects.toEqual(refusal(/503/));
  });
});
