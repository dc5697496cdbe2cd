/**
 * Resolving a Client ID Metadata Document URL: every validation rule, caching by the HTTP cache
 * headers within the configured bounds, failures never cached, stale serving while the host fails,
 * the first-fetch budgets (per requesting address, its share of the host, then per host; refreshes
 * spend none), documents read leniently (what is unsupported dropped and reported), what is
 * left in Redis, and the status operators see. Real Redis, a real HTTPS server with a test CA, the real fetcher;
 * the cache and the stored client also on a real Redis Cluster of this file's own (ports 7131-7136),
 * where the entry and the client record are in different hash slots.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { closeRedis, createRedisClient, scanKeys, type RedisClient } from '@school/shared';
import { SERVICES } from '../../../test-support/auth-server.js';
import {
  loopbackLookup,
  makeTestPki,
  startDocumentServer,
  type DocumentServer,
} from '../../../test-support/https-documents.js';
import { startRedisCluster, type LocalCluster } from '../../../test-support/redis-cluster.js';
import { CimdResolver, type CimdCachePolicy, type CimdOutcome } from '../src/cimd/cimd-resolver.js';
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

const points = (n: number) => new RateLimiterMemory({ points: n, duration: 60 });
const budgetsOf = (perAddress: number, perAddressOnHost: number, perHost: number) => ({
  perAddress: points(perAddress),
  perAddressOnHost: points(perAddressOnHost),
  perHost: points(perHost),
});
const roomy = () => budgetsOf(1000, 1000, 1000);
const resolver = (
  policy: Partial<CimdCachePolicy> = {},
  on: RedisClient = redis,
  budgets = roomy(),
  log?: (outcome: CimdOutcome) => void,
) =>
  new CimdResolver(
    on,
    prefix,
    fetchDocument,
    { minSeconds: 0, maxSeconds: 3600, staleSeconds: 60, ...policy },
    budgets,
    log,
  );
/** What a client is told of any document that could not be fetched: nothing about the host. */
const GENERIC = /^the client_id metadata document could not be fetched; try again later$/;
/** The operator's view of the document at `url`. */
const entryOf = async (id = url) => (await listCimdClients(redis, prefix)).find((c) => c.client_id === id);
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
      'with private_key_jwt alone',
      { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://cimd.test/jwks' },
      /offers token_endpoint_auth_method private_key_jwt; this server takes only none/,
    ],
    [
      'with secret-based methods only',
      {
        token_endpoint_auth_method: 'client_secret_post',
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      },
      /offers token_endpoint_auth_method client_secret_post, client_secret_basic; this server takes only none/,
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
      'without authorization_code among its grant types',
      { grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:device_code'] },
      /grant_types lists no authorization_code/,
    ],
    ['without code among its response types', { response_types: ['token'] }, /response_types lists no code/],
    [
      'with only a non-loopback http redirect URI',
      { redirect_uris: ['http://app.example/cb'] },
      /redirect_uris lists no usable redirect URI/,
    ],
    [
      'with only a loopback URI not written canonically',
      { redirect_uris: ['http://LOCALHOST/cb'] },
      /redirect_uris lists no usable redirect URI/,
    ],
    ['with grant_types of the wrong type', { grant_types: 'authorization_code' }, /member grant_types/],
    ['with a control character in its name', { client_name: 'Notes\u202Eagent' }, /bidirectional/],
    ['with a name over the cap', { client_name: 'x'.repeat(101) }, /at most 100 characters/],
  ])('is refused %s', async (_what, extra, pattern) => {
    server.json(path, doc(extra));
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(pattern));
  });

  it('keeps what this server supports and drops the rest, as VS Code and Claude publish them', async () => {
    server.json(
      path,
      doc({
        redirect_uris: [
          'http://127.0.0.1:33418/',
          'https://vscode.dev/redirect',
          'http://app.example/cb',
          'cursor://anysphere.cursor-mcp/oauth/callback',
          'https://notes.example/cb#frag',
        ],
        grant_types: [
          'authorization_code',
          'refresh_token',
          'urn:ietf:params:oauth:grant-type:device_code',
          'urn:ietf:params:oauth:grant-type:jwt-bearer',
        ],
        response_types: ['code', 'code id_token'],
        token_endpoint_auth_method: 'client_secret_post',
        token_endpoint_auth_methods_supported: ['client_secret_post', 'none'],
        application_type: 'desktop',
        logo_uri: 'http://cimd.test/logo.png',
        client_uri: 'https://cimd.test/',
      }),
    );
    const logged: CimdOutcome[] = [];
    const client = await resolver({}, redis, roomy(), (o) => logged.push(o)).resolve(url);
    expect(client).toEqual({
      client_id: url,
      client_name: 'Notes agent',
      client_uri: 'https://cimd.test/',
      redirect_uris: ['http://127.0.0.1:33418/'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      client_id_issued_at: expect.any(Number),
    });
    const dropped = [
      {
        member: 'token_endpoint_auth_method',
        value: 'client_secret_post',
        why: 'negotiated to none, which the document also offers',
      },
      {
        member: 'grant_types',
        value: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        why: 'not a grant type of metadata-document clients here',
      },
      { member: 'response_types', value: 'code id_token', why: 'only code is served' },
      { member: 'application_type', value: 'desktop', why: 'must be native or web' },
      { member: 'logo_uri', value: 'http://cimd.test/logo.png', why: 'must be an https URL' },
      {
        member: 'redirect_uris',
        value: 'http://app.example/cb',
        why: expect.stringMatching(/^is not a loopback URI/),
      },
      {
        member: 'redirect_uris',
        value: 'cursor://anysphere.cursor-mcp/oauth/callback',
        why: expect.stringMatching(/^is not a loopback URI/),
      },
      {
        member: 'redirect_uris',
        value: 'https://notes.example/cb#frag',
        why: 'https://notes.example/cb#frag must not have a fragment',
      },
      // Kept in the document, not given to the client while device pairing is off.
      {
        member: 'grant_types',
        value: 'urn:ietf:params:oauth:grant-type:device_code',
        why: 'device pairing is off here (DEVICE_PAIRING=off)',
      },
      {
        member: 'redirect_uris',
        value: 'https://vscode.dev/redirect',
        why: expect.stringMatching(/need an operator to allow this client_id/),
      },
    ];
    expect(logged).toEqual([{ clientId: url, status: 'fresh', dropped }]);
    expect((await entryOf())?.dropped).toEqual(dropped);
    // Once the operator allows its https URIs, the listing no longer counts them as dropped.
    await allowCimdClient(redis, prefix, url);
    expect((await entryOf())?.dropped).toEqual(dropped.slice(0, -1));
  });

  it('is refused when it is not a JSON object', async () => {
    server.json(path, [doc()]);
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/not a JSON object/));
  });
});

describe('the authentication method', () => {
  it.each([
    [
      'none among the methods it supports (as ChatGPT publishes it)',
      {
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_methods_supported: ['private_key_jwt', 'none'],
        jwks_uri: 'https://cimd.test/jwks.json',
      },
    ],
    ['none as its method', { token_endpoint_auth_method: 'none' }],
    ['no method at all', {}],
  ])('is none for a document that offers %s, its keys neither kept nor fetched', async (_what, extra) => {
    server.json(path, doc(extra));
    const client = await resolver().resolve(url);
    expect(client.token_endpoint_auth_method).toBe('none');
    expect(client).not.toHaveProperty('jwks_uri');
    expect(client).not.toHaveProperty('token_endpoint_auth_methods_supported');
    expect(server.hits.get('/jwks.json')).toBeUndefined();
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
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(GENERIC));
    expect(await entryOf()).toMatchObject({ status: 'failed', error: 'answered 503' });
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(GENERIC));
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
    await expect(r.resolve(url)).rejects.toEqual(refusal(GENERIC));
    expect((await listCimdClients(redis, prefix))[0]).toMatchObject({
      status: 'failed',
      error: 'answered 502',
    });
    // Past its stale window the document is kept (not served): once the host is back it is refreshed
    // as a known document, which spends no budget.
    server.json(path, doc({ client_name: 'Notes agent 2' }));
    const spent = budgetsOf(0, 0, 0);
    await expect(resolver({ staleSeconds: 1 }, redis, spent).resolve(url, 'a')).resolves.toMatchObject({
      client_name: 'Notes agent 2',
    });
  });

  it('tries a failing host again only every retrySeconds, serving stale meanwhile', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=0' });
    const r = resolver({ retrySeconds: 60 });
    await r.resolve(url);
    server.route(path, (_req, res) => res.writeHead(503).end());
    for (let i = 0; i < 5; i++)
      await expect(r.resolve(url)).resolves.toMatchObject({ client_name: 'Notes agent' });
    expect(hits()).toBe(2);
  });

  it('serves nothing stale once the host answers that the document is gone or invalid', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=0' });
    const r = resolver();
    await r.resolve(url);
    server.route(path, (_req, res) => res.writeHead(404).end());
    await expect(r.resolve(url)).rejects.toEqual(refusal(GENERIC));
    expect(await entryOf()).toMatchObject({ status: 'failed', error: 'answered 404' });
    server.route(path, (_req, res) => res.writeHead(503).end()); // the old document is forgotten
    await expect(r.resolve(url)).rejects.toEqual(refusal(GENERIC));
    expect(await entryOf()).toMatchObject({ status: 'failed', error: 'answered 503' });
  });
});

describe('the first-fetch budgets', () => {
  const junk = () => server.url(`/junk/${randomBytes(6).toString('hex')}.json`, 'cimd.test');
  const limited = expect.objectContaining({ error: 'too_many_requests', status: 429 });

  it('charge the requesting address first: its made-up ids stop at its budget, others go on', async () => {
    const budgets = budgetsOf(3, 100, 100);
    const r = resolver({}, redis, budgets);
    const ids = [junk(), junk(), junk(), junk(), junk()];
    const outcomes = await Promise.allSettled(ids.map((id) => r.resolve(id, 'attacker')));
    const reasons = outcomes.map((o) => (o as PromiseRejectedResult).reason as { error: string });
    expect(reasons.filter((e) => e.error === 'invalid_client')).toHaveLength(3);
    expect(reasons.filter((e) => e.error === 'too_many_requests')).toHaveLength(2);
    expect(ids.filter((id) => server.hits.has(new URL(id).pathname))).toHaveLength(3);
    server.json(path, doc());
    await expect(r.resolve(url, 'someone else')).resolves.toMatchObject({ client_id: url });
  });

  it("let no address spend more than its share of a host's: three senders cannot shut out a fourth", async () => {
    const r = resolver({}, redis, budgetsOf(100, 2, 10));
    const senders = ['a', 'b', 'c'];
    const outcomes = await Promise.allSettled(
      senders.flatMap((sender) => [1, 2, 3, 4].map(() => r.resolve(junk(), sender))),
    );
    const errorsOf = outcomes.map((o) => ((o as PromiseRejectedResult).reason as { error: string }).error);
    expect(errorsOf.filter((e) => e === 'invalid_client')).toHaveLength(6); // two fetched per sender
    expect(errorsOf.filter((e) => e === 'too_many_requests')).toHaveLength(6);
    server.json(path, doc());
    await expect(r.resolve(url, 'd')).resolves.toMatchObject({ client_id: url });
  });

  it('leave no entry in Redis for a fetch that never happened, and a short-lived one for a failure', async () => {
    const budgets = budgetsOf(1, 100, 100);
    const r = resolver({ failureSeconds: 600 }, redis, budgets);
    const [fetched, refused] = [junk(), junk()];
    await expect(r.resolve(fetched, 'a')).rejects.toEqual(refusal(GENERIC));
    await expect(r.resolve(refused, 'a')).rejects.toEqual(limited);
    expect(await redis.exists(`${prefix}cimd:${refused}`)).toBe(0);
    const life = await redis.pttl(`${prefix}cimd:${fetched}`);
    expect(life).toBeGreaterThan(0);
    expect(life).toBeLessThanOrEqual(600_000);
    // A special-use IP literal is refused on the URL alone: nothing fetched, nothing kept.
    const strict = new CimdResolver(
      redis,
      prefix,
      createDocumentFetcher({ timeoutMs: 1500 }),
      { minSeconds: 0, maxSeconds: 60, staleSeconds: 0 },
      roomy(),
    );
    const before = server.connections;
    const literal = `https://127.0.0.1:${server.port}/apps/x/client.json`;
    await expect(strict.resolve(literal, 'b')).rejects.toEqual(refusal(GENERIC));
    expect(server.connections).toBe(before);
    expect(await redis.exists(`${prefix}cimd:${literal}`)).toBe(0);
  });

  it('are not spent by cached, stale or refreshed documents, so junk on a host cannot starve its real clients', async () => {
    const budgets = budgetsOf(100, 100, 3);
    const r = resolver({}, redis, budgets);
    server.json(path, doc(), { 'cache-control': 'max-age=0' });
    await r.resolve(url, 'owner'); // the real client's first use: one of the host's three
    for (let i = 0; i < 4; i++) await r.resolve(junk(), `junk-${i}`).catch(() => undefined); // the rest, and more
    await expect(r.resolve(junk(), 'late')).rejects.toEqual(limited);
    // The held document still refreshes (max-age 0: every use refetches), and serves stale while its host fails.
    const before = hits();
    await expect(r.resolve(url, 'owner')).resolves.toMatchObject({ client_id: url });
    expect(hits()).toBe(before + 1);
    server.route(path, (_req, res) => res.writeHead(503).end());
    await expect(r.resolve(url, 'owner')).resolves.toMatchObject({ client_id: url });
  });

  it('refuse a document that names a sector_identifier_uri (public subjects only)', async () => {
    server.json(path, doc({ sector_identifier_uri: 'https://cimd.test/sector.json' }));
    await expect(resolver().resolve(url)).rejects.toEqual(refusal(/sector_identifier_uri/));
    expect(server.hits.get('/sector.json')).toBeUndefined();
  });
});

describe('on a Redis Cluster', () => {
  let cluster: LocalCluster | undefined;
  let clustered: RedisClient;
  beforeAll(async () => {
    cluster = startRedisCluster(7131);
    clustered = createRedisClient(
      { REDIS_URL: 'redis://127.0.0.1', REDIS_CLUSTER_NODES: cluster.nodes },
      'commands',
    );
    await clustered.connect();
  }, 60_000);
  afterAll(async () => {
    for await (const keys of scanKeys(clustered, 'test:cimd-resolver:'))
      await Promise.all(keys.map((k) => clustered.del(k)));
    await closeRedis(clustered);
    cluster?.stop();
  });

  it('caches the document, stores its client (another slot) and lists it for operators', async () => {
    server.json(path, doc(), { 'cache-control': 'max-age=600' });
    const r = resolver({}, clustered);
    const client = await r.resolve(url);
    expect(await r.resolve(url)).toEqual(client);
    expect(hits()).toBe(1);
    expect(JSON.parse((await clustered.get(`${prefix}Client:${url}`))!)).toEqual(client);
    await allowCimdClient(clustered, prefix, url);
    expect(await listCimdClients(clustered, prefix)).toEqual([
      expect.objectContaining({ client_id: url, status: 'fresh', https_redirects_allowed: true }),
    ]);
  });
});
