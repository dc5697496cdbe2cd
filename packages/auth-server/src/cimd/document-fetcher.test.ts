import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupFunction } from 'node:net';
import {
  fixedLookup,
  loopbackLookup,
  makeTestPki,
  startDocumentServer,
  type DocumentServer,
  type TestPki,
} from '../../../../test-support/https-documents.js';
import {
  cacheSeconds,
  createDocumentFetcher,
  DOCUMENT_BYTES_LIMIT,
  unfetchableUrlProblem,
  type DocumentFetcherOptions,
} from './document-fetcher.js';

let pki: TestPki;
let server: DocumentServer;

beforeAll(async () => {
  pki = makeTestPki();
  server = await startDocumentServer(pki);
});
afterAll(() => server.close());

const fetcher = (over: Partial<DocumentFetcherOptions> = {}) =>
  createDocumentFetcher({
    timeoutMs: 1500,
    allowLoopback: true,
    extraCa: pki.caPem,
    lookup: loopbackLookup,
    ...over,
  });

const refused = (pattern: RegExp) =>
  expect.objectContaining({ kind: 'refused', message: expect.stringMatching(pattern) });
const unreachable = (pattern: RegExp) =>
  expect.objectContaining({ kind: 'unreachable', message: expect.stringMatching(pattern) });

describe('the document fetcher', () => {
  it('fetches a JSON document over https and reads its Cache-Control max-age', async () => {
    server.json('/ok.json', { hello: 'world' }, { 'cache-control': 'public, max-age=600' });
    await expect(fetcher()(server.url('/ok.json', 'cimd.test'))).resolves.toEqual({
      body: { hello: 'world' },
      maxAgeSeconds: 600,
    });
  });

  it('fetches nothing but https', async () => {
    await expect(fetcher()(`http://localhost:${server.port}/ok.json`)).rejects.toEqual(refused(/only https/));
  });

  it('refuses a server whose certificate no trusted CA signed', async () => {
    server.json('/ca.json', {});
    await expect(fetcher({ extraCa: undefined })(server.url('/ca.json'))).rejects.toEqual(
      unreachable(/certificate/),
    );
    expect(server.hits.get('/ca.json')).toBeUndefined();
  });

  it('does not follow a redirect', async () => {
    server.route('/moved.json', (_req, res) => res.writeHead(302, { location: '/ok.json' }).end());
    const before = server.hits.get('/ok.json') ?? 0;
    await expect(fetcher()(server.url('/moved.json'))).rejects.toEqual(
      refused(/302: redirects are not followed/),
    );
    expect(server.hits.get('/ok.json') ?? 0).toBe(before);
  });

  it('refuses a body larger than the limit, announced or not', async () => {
    const huge = JSON.stringify({ pad: 'x'.repeat(DOCUMENT_BYTES_LIMIT) });
    server.route('/huge.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no Content-Length
      res.write(huge.slice(0, 3000));
      res.end(huge.slice(3000));
    });
    server.json('/announced.json', { pad: 'x'.repeat(DOCUMENT_BYTES_LIMIT) });
    await expect(fetcher()(server.url('/huge.json'))).rejects.toEqual(refused(/larger than/));
    await expect(fetcher()(server.url('/announced.json'))).rejects.toEqual(refused(/too large/));
  });

  it('gives up on a slow server after the timeout', async () => {
    server.route('/slow.json', () => undefined); // never answers
    const started = Date.now();
    await expect(fetcher({ timeoutMs: 300 })(server.url('/slow.json'))).rejects.toEqual(
      unreachable(/fetch failed/),
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reads only application/json of status 200', async () => {
    server.route('/page', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>'),
    );
    server.route('/gone.json', (_req, res) => res.writeHead(404).end());
    server.route('/down.json', (_req, res) => res.writeHead(503).end());
    server.route('/bad.json', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{'),
    );
    await expect(fetcher()(server.url('/page'))).rejects.toEqual(
      refused(/text\/html, not application\/json/),
    );
    await expect(fetcher()(server.url('/gone.json'))).rejects.toEqual(refused(/404/));
    await expect(fetcher()(server.url('/down.json'))).rejects.toEqual(unreachable(/503/));
    await expect(fetcher()(server.url('/bad.json'))).rejects.toEqual(refused(/not valid JSON/));
  });

  it('sends no credentials: no cookie, no authorization, and refuses a URL carrying them', async () => {
    let seen: Record<string, unknown> = {};
    server.route('/headers.json', (req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await fetcher()(server.url('/headers.json'));
    expect(seen).not.toHaveProperty('cookie');
    expect(seen).not.toHaveProperty('authorization');
    expect(seen.accept).toBe('application/json');
    await expect(fetcher()(`https://user:pw@localhost:${server.port}/headers.json`)).rejects.toEqual(
      refused(/credentials/),
    );
  });

  it('refuses loopback by default, checked on the connected socket even for an IP literal', async () => {
    server.json('/loop.json', {});
    const strict = fetcher({ allowLoopback: false, lookup: undefined });
    await expect(strict(server.url('/loop.json', '127.0.0.1'))).rejects.toEqual(
      refused(/127\.0\.0\.1 is a special-use address \(loopback\)/),
    );
    await expect(strict(server.url('/loop.json', 'localhost'))).rejects.toEqual(
      refused(/special-use address/),
    );
    expect(server.hits.get('/loop.json')).toBeUndefined();
  });

  it('refuses a name resolving to a private address without connecting to it', async () => {
    const before = server.connections;
    await expect(
      fetcher({ lookup: fixedLookup('10.20.30.40') })(server.url('/x.json', 'private.test')),
    ).rejects.toEqual(
      refused(/private\.test resolves to 10\.20\.30\.40 is a special-use address \(private\)/),
    );
    await expect(
      fetcher({ lookup: fixedLookup('169.254.169.254') })(server.url('/x.json', 'private.test')),
    ).rejects.toEqual(refused(/linkLocal/));
    expect(server.connections).toBe(before);
  });

  it('refuses a rebinding name: public when looked up first, loopback when the fetch connects', async () => {
    server.json('/rebind.json', { secret: 'internal' });
    let calls = 0;
    const rebinding = ((host: string, opts: object, cb: (...a: unknown[]) => void) =>
      fixedLookup(calls++ === 0 ? '93.184.215.14' : '127.0.0.1')(
        host,
        opts,
        cb,
      )) as unknown as LookupFunction;
    // Someone (a validator, a browser) resolves the name first and sees a public address…
    const first = await new Promise<string>((resolve) =>
      rebinding('rebind.test', {}, (_e, a) => resolve(a as string)),
    );
    expect(first).toBe('93.184.215.14');
    // …and when the fetch connects, the name now points at loopback.
    await expect(
      fetcher({ allowLoopback: false, lookup: rebinding })(server.url('/rebind.json', 'rebind.test')),
    ).rejects.toEqual(refused(/loopback/));
    // An answer mixing a public and a loopback address is refused whole.
    const mixed = ((_h: string, _o: object, cb: (...a: unknown[]) => void) =>
      cb(null, [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ])) as unknown as LookupFunction;
    await expect(
      fetcher({ allowLoopback: false, lookup: mixed })(server.url('/rebind.json', 'rebind.test')),
    ).rejects.toEqual(refused(/loopback/));
    expect(server.hits.get('/rebind.json')).toBeUndefined();
  });

  it('shares one fetch between concurrent requests for one URL', async () => {
    server.route('/once.json', (_req, res) =>
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"n":1}'), 200),
    );
    const fetch = fetcher();
    const all = await Promise.all(Array.from({ length: 5 }, () => fetch(server.url('/once.json'))));
    expect(all.map((d) => d.body)).toEqual(Array(5).fill({ n: 1 }));
    expect(server.hits.get('/once.json')).toBe(1);
  });

  it.each([
    ['127.0.0.1', /127\.0\.0\.1 is a special-use address \(loopback\)/],
    ['[::ffff:7f00:1]', /127\.0\.0\.1 is a special-use address \(loopback\)/],
    ['[::ffff:127.0.0.1]', /loopback/],
    ['0x7f.1', /loopback/],
  ])('refuses the IP literal %s before opening any connection', async (host, pattern) => {
    server.json('/literal.json', {});
    const before = server.connections;
    const strict = fetcher({ allowLoopback: false, lookup: undefined });
    await expect(strict(server.url('/literal.json', host))).rejects.toEqual(
      expect.objectContaining({
        kind: 'refused',
        beforeConnecting: true,
        message: expect.stringMatching(pattern),
      }),
    );
    expect(server.connections).toBe(before);
  });
});

describe('unfetchableUrlProblem', () => {
  it.each([
    'https://0.0.0.0/x',
    'https://10.0.0.1/x',
    'https://[::1]/x',
    'https://[::7f00:1]/x',
    'https://[::a9fe:a9fe]/x',
    'https://[fe80::1]/x',
    'https://169.254.169.254/latest',
    'https://2130706433/x',
    'http://example.com/x',
    'https://user:pw@example.com/x',
  ])('refuses %s on the URL alone', (url) => {
    expect(unfetchableUrlProblem(url)).toBeDefined();
  });

  it.each(['https://example.com/x', 'https://93.184.215.14/x', 'https://[2606:4700:4700::1111]/x'])(
    'leaves %s to the fetch',
    (url) => {
      expect(unfetchableUrlProblem(url)).toBeUndefined();
    },
  );
});

describe('cacheSeconds', () => {
  it('reads max-age, treats no-store and no-cache as zero, falls back to Expires', () => {
    expect(cacheSeconds({ 'cache-control': 'max-age=120' })).toBe(120);
    expect(cacheSeconds({ 'cache-control': 'no-store, max-age=120' })).toBe(0);
    expect(cacheSeconds({ 'cache-control': 'no-cache' })).toBe(0);
    const inAnHour = new Date(Date.now() + 3_600_000).toUTCString();
    expect(cacheSeconds({ expires: inAnHour })).toBeGreaterThan(3_500);
    expect(cacheSeconds({})).toBeUndefined();
  });
});
