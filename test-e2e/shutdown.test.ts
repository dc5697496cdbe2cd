/**
 * Graceful shutdown of the real processes: on SIGTERM a service stops accepting connections,
 * finishes the request it is in the middle of, closes its connections and exits 0. Health endpoints
 * answer on each service's own port, readiness checking Redis and MongoDB.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { portAccepts } from '../test-support/processes.js';
import { startStack, type Stack } from './support/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 90_000);
afterAll(() => stack?.stop());

/** Starts a POST, sends half its body, and returns a way to send the rest and read the answer. */
function halfSent(url: string, body: string, type: string) {
  const target = new URL(url);
  let resolveResponse!: (v: { status: number; body: string }) => void;
  let rejectResponse!: (e: unknown) => void;
  const answered = new Promise<{ status: number; body: string }>((res, rej) => {
    resolveResponse = res;
    rejectResponse = rej;
  });
  const req = request(
    {
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      agent: false,
      headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) },
    },
    (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolveResponse({ status: res.statusCode ?? 0, body: text }));
    },
  );
  req.on('error', rejectResponse);
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return {
    finish() {
      req.end(body.slice(half));
      return answered;
    },
  };
}

function pidListening(name: string): number {
  const line = stack.logs[name]!.join('')
    .split('\n')
    .find((l) => l.includes('listening'));
  return (JSON.parse(line!) as { pid: number }).pid;
}

describe('health and shutdown', () => {
  it('answers liveness and readiness on each service’s own port', async () => {
    for (const url of [stack.authUrl, stack.apiUrl]) {
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ checks: { redis: 'ok', mongodb: 'ok' } });
    }
  });

  it.each([
    {
      name: 'auth-server',
      path: '/api/oauth/token',
      body: 'grant_type=refresh_token&refresh_token=unknown&client_id=nobody',
      type: 'application/x-www-form-urlencoded',
      expected: [400, 401],
    },
    {
      name: 'resource-api',
      path: '/api/v1/courses',
      body: JSON.stringify({ title: 'Half sent' }),
      type: 'application/json',
      expected: [403],
    },
  ])(
    '$name finishes the request in flight on SIGTERM, refuses new connections, and exits 0',
    async ({ name, path, body, type, expected }) => {
      const base = name === 'auth-server' ? stack.authUrl : stack.apiUrl;
      const pid = pidListening(name);
      const inFlight = halfSent(`${base}${path}`, body, type);
      await new Promise((r) => setTimeout(r, 100));
      process.kill(pid, 'SIGTERM');
      await new Promise((r) => setTimeout(r, 200));

      // No longer accepting connections (an open keep-alive connection is still answered, with
      // `Connection: close`, so the edge never loses a request written onto it: see drainServer).
      expect(await portAccepts(Number(new URL(base).port))).toBe(false);
      const answer = await inFlight.finish();
      expect(expected).toContain(answer.status);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: expect.any(String),
        error_description: expect.any(String),
      });

      for (let i = 0; i < 50; i++) {
        if (stack.logs[name]!.join('').includes('"msg":"shutting down"')) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      let alive = true;
      for (let i = 0; i < 100 && alive; i++) {
        try {
          process.kill(pid, 0);
          await new Promise((r) => setTimeout(r, 100));
        } catch {
          alive = false;
        }
      }
      expect(alive).toBe(false);
      for (let i = 0; i < 20 && !(name in stack.exits); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stack.exits[name]).toBe(0);
    },
    30_000,
  );
});
