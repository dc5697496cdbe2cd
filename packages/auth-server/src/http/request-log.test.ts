import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from '@jest/globals';
import { createServiceMetrics } from '@school/shared';
import Koa from 'koa';
import { createLogger } from '../logger.js';
import { pollUntil } from '../../../../test-support/processes.js';
import { requestLog } from './request-log.js';

/** A logger whose JSON lines land in `lines`, and the step under test in front of `handler`. */
function serve(handler: Koa.Middleware) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const metrics = createServiceMetrics('test', () => Promise.resolve({}));
  const app = new Koa();
  app.silent = true;
  app.use(requestLog(createLogger('info', 'test', sink), metrics));
  app.use(handler);
  const handle = app.callback();
  const server = createServer((req, res) => void handle(req, res));
  servers.push(server);
  const listening = once(server.listen(0, '127.0.0.1'), 'listening');
  const port = () => (server.address() as AddressInfo).port;
  const requests = () => lines.filter((l) => l.msg === 'request');
  return { lines, requests, metrics, listening, port };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** The step's line appears within 2 s (the old step, logging in its `finally`, fails this). */
const logged = (s: { requests: () => unknown[] }) =>
  pollUntil(() => s.requests().length > 0, 'the request line', 2000);

describe('requestLog', () => {
  it('logs each request once, with its path (never its query), its status and the id it echoes', async () => {
    const s = serve((ctx) => {
      ctx.status = 201;
      ctx.body = { ok: true };
    });
    await s.listening;
    const answer = await fetch(`http://127.0.0.1:${s.port()}/token?code=secret`, {
      headers: { 'x-request-id': 'edge-id-1' },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-request-id')).toBe('edge-id-1');
    await logged(s);
    expect(s.requests()).toEqual([
      expect.objectContaining({ requestId: 'edge-id-1', method: 'GET', path: '/token', status: 201 }),
    ]);
    expect(JSON.stringify(s.lines)).not.toContain('secret');
    expect((await s.metrics.scrape()).body).toMatch(
      /test_http_request_duration_seconds_count\{[^}]*status="201"/,
    );
  });

  it('logs the status the client got when a later step threw (Koa answers it after the steps)', async () => {
    const s = serve(() => {
      throw Object.assign(new Error('nope'), { status: 418, expose: true });
    });
    await s.listening;
    const answer = await fetch(`http://127.0.0.1:${s.port()}/somewhere`);
    expect(answer.status).toBe(418);
    await logged(s);
    expect(s.requests()).toEqual([expect.objectContaining({ path: '/somewhere', status: 418 })]);
  });

  it('still logs a request whose client went away before the answer', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const s = serve(async (ctx) => {
      await held;
      ctx.body = 'late';
    });
    await s.listening;
    const req = request({ host: '127.0.0.1', port: s.port(), path: '/abandoned', method: 'GET' });
    req.on('error', () => undefined);
    req.end();
    await new Promise((r) => setTimeout(r, 100)); // the request reaches the held step
    req.destroy();
    await logged(s);
    release();
    expect(s.requests()).toEqual([expect.objectContaining({ path: '/abandoned' })]);
  });
});
