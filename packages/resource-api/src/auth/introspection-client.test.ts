/**
 * The introspection client against a real loopback HTTP server that closes connections under it: a
 * call whose connection closes before any answer is sent once more, and only once; an answer, even
 * an error, is never sent again. Which failures count as "no answer" is checked on undici's own
 * error classes.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors } from 'undici';
import { AuthServerUnavailableError, IntrospectionClient, resendable } from './introspection-client.js';
import { steadyLookup } from './steady-lookup.js';

const ACTIVE = { active: true, client_id: 'app', scope: 'courses:read', exp: 4_102_444_800 };

let server: Server | undefined;
let client: IntrospectionClient | undefined;
afterEach(async () => {
  await client?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = client = undefined;
});

/**
 * A server answering the n-th request (from 1) with `answer(n)`: 'close' destroys the connection
 * once the request has arrived, without a byte of answer. Resolves with the client and a counter.
 */
async function serverAnswering(answer: (n: number) => 'close' | { status: number; body: unknown }) {
  const seen = { requests: 0 };
  server = createServer((req, res) => {
    seen.requests++;
    const reply = answer(seen.requests);
    req.resume();
    req.on('end', () => {
      if (reply === 'close') {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new IntrospectionClient({
    authUrl: `http://127.0.0.1:${port}`,
    clientId: 'resource-api',
    clientSecret: 'secret',
    timeoutMs: 5_000,
  });
  return { client, seen };
}

describe('a connection closed before any answer', () => {
  it('is sent once more, and the second answer is the call’s', async () => {
    const { client, seen } = await serverAnswering((n) =>
      n === 1 ? 'close' : { status: 200, body: ACTIVE },
    );
    await expect(client.introspect('a-token-value-of-twenty-chars')).resolves.toMatchObject({
      active: true,
      scope: 'courses:read',
    });
    expect(seen.requests).toBe(2);
  });

  it('is sent once more only: a second close is the auth server unavailable', async () => {
    const { client, seen } = await serverAnswering(() => 'close');
    await expect(client.introspect('a-token-value-of-twenty-chars')).rejects.toBeInstanceOf(
      AuthServerUnavailableError,
    );
    expect(seen.requests).toBe(2);
  });
});

describe('an answer', () => {
  it('is never sent again, even a 5xx', async () => {
    const { client, seen } = await serverAnswering(() => ({ status: 503, body: { error: 'unavailable' } }));
    await expect(client.introspect('a-token-value-of-twenty-chars')).rejects.toThrow(
      'introspection answered HTTP 503',
    );
    expect(seen.requests).toBe(1);
  });
});

describe('which failures are resent', () => {
  const failed = (cause: unknown) =>
    new AuthServerUnavailableError('introspection request failed', { cause });
  it('a connection closed under the call, or one that never opened', () => {
    expect(resendable(failed(new errors.SocketError('other side closed')))).toBe(true);
    expect(resendable(failed(new errors.ConnectTimeoutError()))).toBe(true);
    expect(resendable(failed(Object.assign(new Error('reset'), { code: 'ECONNRESET' })))).toBe(true);
  });
  it('not a refused connection, a timeout waiting for the answer, or an abort', () => {
    expect(resendable(failed(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })))).toBe(false);
    expect(resendable(failed(new errors.HeadersTimeoutError()))).toBe(false);
    expect(resendable(failed(new errors.RequestAbortedError()))).toBe(false);
    expect(resendable(new Error('not an introspection failure'))).toBe(false);
  });
});

describe('finding the auth server by name', () => {
  it('keeps reaching it on new connections while the resolver stalls', async () => {
    const seen = { requests: 0 };
    server = createServer((req, res) => {
      seen.requests++;
      req.resume();
      // Each answer closes its connection, so every call needs a new one, and a lookup.
      req.on('end', () => res.writeHead(200, { connection: 'close' }).end(JSON.stringify(ACTIVE)));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const resolver = { stalled: false, calls: 0 };
    client = new IntrospectionClient({
      authUrl: `http://auth-server.test:${port}`,
      clientId: 'resource-api',
      clientSecret: 'secret',
      timeoutMs: 5_000,
      lookup: steadyLookup({
        patienceMs: 50,
        resolve: (hostname) => {
          resolver.calls++;
          expect(hostname).toBe('auth-server.test');
          return resolver.stalled
            ? new Promise(() => undefined)
            : Promise.resolve([{ address: '127.0.0.1', family: 4 }]);
        },
      }),
    });
    await expect(client.introspect('a-token-value-of-twenty-chars')).resolves.toMatchObject({ active: true });
    resolver.stalled = true;
    for (let i = 0; i < 3; i++) {
      await expect(client.introspect('a-token-value-of-twenty-chars')).resolves.toMatchObject({
        active: true,
      });
    }
    expect(seen.requests).toBe(4);
    expect(resolver.calls).toBeGreaterThanOrEqual(2);
  });
});
