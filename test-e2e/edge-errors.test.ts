/**
 * Whatever the edge answers itself is in the service's shape: malformed
 * requests, oversized request lines, headers and bodies, unknown paths, a service that is down or too
 * slow each get the RFC 6749 JSON body (the HTML error page on the browser routes under /oauth/), with
 * the security headers; a service's own answers, errors included, pass through untouched. And the
 * trusted ingress: only EDGE_TRUSTED_PROXY may name the client in X-Forwarded-For.
 *
 * The real nginx runs docker/edge.conf.template in front of upstreams this file controls: a closed
 * port (502), a server that never answers (504, with the read timeout shortened in this test-only
 * copy), and an echo server that reports what reached it.
 */
import { createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../test-support/processes.js';
import { rawRequest } from '../test-support/raw-http.js';
import { startEdge, type Edge } from '../test-support/edge.js';
import { expectEdgeJson, expectEdgePage, seen } from './support/edge-answers.js';

const INGRESS = '127.0.0.9';
let down: Edge; // both services unreachable
let slow: Edge; // the auth server never answers; the API echoes; INGRESS is trusted
let echoed: Edge; // both services echo; no ingress trusted (the default)
let echo: Server;
let silent: TcpServer;
const held: Socket[] = [];

beforeAll(async () => {
  echo = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const status = Number(url.searchParams.get('status') ?? 200);
    res.writeHead(status, { 'content-type': 'application/json', 'x-upstream': 'echo' });
    res.end(
      JSON.stringify({ xff: req.headers['x-forwarded-for'], realIp: req.headers['x-real-ip'], status }),
    );
  });
  silent = createTcpServer((socket) => held.push(socket)); // accepts, reads, never answers
  const [echoPort, silentPort, closedPort] = [await freePort(), await freePort(), await freePort()];
  await new Promise<void>((r) => echo.listen(echoPort, '127.0.0.1', r));
  await new Promise<void>((r) => silent.listen(silentPort, '127.0.0.1', r));
  down = await startEdge({
    LISTEN_PORT: String(await freePort()),
    AUTH_UPSTREAM: `127.0.0.1:${closedPort}`,
    API_UPSTREAM: `127.0.0.1:${closedPort}`,
    EDGE_TRUSTED_PROXY: 'unix:',
  });
  slow = await startEdge(
    {
      LISTEN_PORT: String(await freePort()),
      AUTH_UPSTREAM: `127.0.0.1:${silentPort}`,
      API_UPSTREAM: `127.0.0.1:${echoPort}`,
      EDGE_TRUSTED_PROXY: INGRESS,
    },
    (conf) => conf.replace(/proxy_read_timeout \d+s;/, 'proxy_read_timeout 1s;'),
  );
  echoed = await startEdge({
    LISTEN_PORT: String(await freePort()),
    AUTH_UPSTREAM: `127.0.0.1:${echoPort}`,
    API_UPSTREAM: `127.0.0.1:${echoPort}`,
    EDGE_TRUSTED_PROXY: 'unix:',
  });
}, 30_000);
afterAll(async () => {
  await Promise.all([down?.stop(), slow?.stop(), echoed?.stop()]);
  held.forEach((s) => s.destroy());
  await new Promise((r) => silent?.close(r));
  await new Promise((r) => echo?.close(r));
});

/**
 * Sends bytes to the edge whose services are down; the connection stays open for writing (a client
 * that half-closes may see nginx abandon the request instead of answering).
 */
const raw = (bytes: string) => rawRequest(down.url, bytes, { keepOpen: true });

/** A request line, headers and an optional body, as bytes on the wire. */
const wire = (line: string, headers: string[] = ['Host: edge.test'], body = '') =>
  `${line}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;

describe('malformed requests', () => {
  it('answers a request line that is not HTTP/1.x with the JSON 400 (505 for another version)', async () => {
    expectEdgeJson(await raw('GARBAGE\r\n\r\n'), 400, 'invalid_request');
    expectEdgeJson(await raw(wire('GET /api/v1/x HTTP/9.9')), 505, 'invalid_request');
  });

  it('answers duplicate Host headers and a missing Host with the JSON 400 (the page under /oauth/)', async () => {
    const twoHosts = ['Host: a.test', 'Host: b.test'];
    expectEdgeJson(await raw(wire('GET /api/v1/x HTTP/1.1', twoHosts)), 400, 'invalid_request');
    expectEdgeJson(await raw(wire('GET /api/oauth/token HTTP/1.1', [])), 400, 'invalid_request');
    expectEdgePage(await raw(wire('GET /oauth/authorize HTTP/1.1', twoHosts)), 400, 'invalid_request');
  });

  it('answers a request line over 32 KB with the JSON 414', async () => {
    const answer = await raw(wire(`GET /api/v1/${'a'.repeat(40_000)} HTTP/1.1`));
    expectEdgeJson(answer, 414, 'invalid_request');
  });

  it('answers a header over 32 KB with 431 in JSON, and as the page under /oauth/', async () => {
    const big = [`Host: edge.test`, `X-Big: ${'a'.repeat(40_000)}`];
    expectEdgeJson(await raw(wire('GET /api/v1/x HTTP/1.1', big)), 431, 'invalid_request');
    expectEdgeJson(await raw(wire('GET /api/oauth/x HTTP/1.1', big)), 431, 'invalid_request');
    expectEdgePage(await raw(wire('GET /oauth/authorize HTTP/1.1', big)), 431, 'invalid_request');
  });

  it('answers a transfer coding nginx does not implement with JSON', async () => {
    const answer = await raw(wire('POST /api/v1/x HTTP/1.1', ['Host: edge.test', 'Transfer-Encoding: gzip']));
    expectEdgeJson(answer, 501, 'invalid_request');
  });
});

describe('bodies over a route’s limit (refused by the edge, before any service sees them)', () => {
  const declared = (path: string, length: number) =>
    raw(wire(`POST ${path} HTTP/1.1`, ['Host: edge.test', `Content-Length: ${length}`, 'Content-Type: x/y']));

  it.each([
    ['/api/v1/storage', 25 * 1024 * 1024 + 1, 'request_too_large'],
    ['/api/v1/courses', 100 * 1024 + 1, 'request_too_large'],
    ['/api/oauth/register', 16 * 1024 + 1, 'invalid_client_metadata'],
    ['/api/oauth/token', 56 * 1024 + 1, 'request_too_large'],
    ['/api/oauth/revoke', 56 * 1024 + 1, 'request_too_large'],
    ['/.well-known/openid-configuration', 16 * 1024 + 1, 'request_too_large'],
    ['/nowhere', 16 * 1024 + 1, 'request_too_large'],
  ])('answers %s with %i bytes with the JSON 413 %s', async (path, length, error) => {
    expectEdgeJson(await declared(path, length), 413, error);
  });

  it.each([
    ['/oauth/interaction/abc/login', 16 * 1024 + 1],
    ['/oauth/authorize', 56 * 1024 + 1],
  ])('answers the browser route %s with %i bytes with the 413 page', async (path, length) => {
    expectEdgePage(await declared(path, length), 413, 'request_too_large');
  });

  it('refuses a chunked body once it passes the limit, in JSON', async () => {
    const chunk = 'a'.repeat(20 * 1024);
    const answer = await raw(
      wire(
        'POST /api/oauth/register HTTP/1.1',
        ['Host: edge.test', 'Transfer-Encoding: chunked'],
        `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
      ),
    );
    expectEdgeJson(answer, 413, 'invalid_client_metadata');
  });
});

describe('paths and services', () => {
  it('answers an unknown path, and its own internal error paths, with the JSON 404', async () => {
    for (const path of ['/nowhere', '/api', '/.edge-error/page', '/.edge-error/api'])
      expectEdgeJson(await seen(await fetch(`${down.url}${path}`)), 404, 'not_found');
  });

  it('answers 502 temporarily_unavailable in JSON when a service is down (the page under /oauth/)', async () => {
    for (const path of [
      '/api/v1/courses',
      '/api/oauth/token',
      '/.well-known/oauth-protected-resource',
      '/auth.md',
    ])
      expectEdgeJson(await seen(await fetch(`${down.url}${path}`)), 502, 'temporarily_unavailable');
    for (const path of ['/oauth/authorize', '/oauth/interaction/abc'])
      expectEdgePage(await seen(await fetch(`${down.url}${path}`)), 502, 'temporarily_unavailable');
    // A large body, read in full before the service turned out to be down, is no exception.
    const upload = await fetch(`${down.url}/api/v1/storage?filename=a.bin`, {
      method: 'POST',
      body: Buffer.alloc(2 * 1024 * 1024),
    });
    expectEdgeJson(await seen(upload), 502, 'temporarily_unavailable');
    // nginx's own 405 (TRACE) is handed to the path's service, which is down too.
    const trace = await raw(wire('TRACE /api/v1/courses HTTP/1.1'));
    expectEdgeJson(trace, 502, 'temporarily_unavailable');
  });

  it('answers 504 temporarily_unavailable in JSON when a service does not answer in time', async () => {
    expectEdgeJson(await seen(await fetch(`${slow.url}/api/oauth/userinfo`)), 504, 'temporarily_unavailable');
    expectEdgePage(await seen(await fetch(`${slow.url}/oauth/authorize`)), 504, 'temporarily_unavailable');
  });

  it('sends HSTS on its own errors only when the public origin is https, as the services do', async () => {
    const overTls = await fetch(`${down.url}/nowhere`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(overTls.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const plain = await fetch(`${down.url}/oauth/authorize`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });

  it('passes a service’s own answers through untouched, its error statuses included', async () => {
    for (const status of [200, 400, 404, 413, 502, 503]) {
      const res = await fetch(`${echoed.url}/api/v1/courses?status=${status}`);
      expect(res.status).toBe(status);
      expect(res.headers.get('x-upstream')).toBe('echo');
      expect(((await res.json()) as { status: number }).status).toBe(status);
    }
  });
});

/** What the echo upstream saw of a request sent from `localAddress` with `forwardedFor`. */
function forwarded(
  edge: Edge,
  localAddress: string,
  forwardedFor?: string,
): Promise<{ xff: string; realIp: string }> {
  const url = new URL(`${edge.url}/api/v1/courses`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        localAddress,
        headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(JSON.parse(body) as { xff: string; realIp: string }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the trusted ingress (EDGE_TRUSTED_PROXY)', () => {
  it('takes the client named by the trusted ingress, and only the one address', async () => {
    expect(await forwarded(slow, INGRESS, '203.0.113.7')).toMatchObject({
      xff: '203.0.113.7',
      realIp: '203.0.113.7',
    });
    // What the client told the ingress (left of the ingress's own entry) is not believed.
    expect(await forwarded(slow, INGRESS, '198.51.100.1, 203.0.113.7')).toMatchObject({ xff: '203.0.113.7' });
  });

  it('ignores X-Forwarded-For from any other peer', async () => {
    expect(await forwarded(slow, '127.0.0.10', '203.0.113.7')).toMatchObject({
      xff: '127.0.0.10',
      realIp: '127.0.0.10',
    });
    expect(await forwarded(slow, INGRESS)).toMatchObject({ xff: INGRESS, realIp: INGRESS });
  });

  it('trusts no peer by default', async () => {
    expect(await forwarded(echoed, INGRESS, '203.0.113.7')).toMatchObject({ xff: INGRESS, realIp: INGRESS });
  });
});
