import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import express from 'express';
import { ConflictError } from '../lib/errors.js';
import { createLogger } from '../logger.js';
import { errorHandler, notFound } from './error-handler.js';

let server: Server;
let base: string;

beforeAll(async () => {
  const app = express();
  app.use((_req, res, next) => {
    res.locals.requestId = 'req-123';
    next();
  });
  app.get('/boom', () => {
    throw new Error('secret detail: mongodb://user:pass@db');
  });
  app.get('/async-boom', async () => {
    await Promise.resolve();
    throw new TypeError('cannot read x of undefined');
  });
  app.get('/taken', () => {
    throw new ConflictError('a course with this slug already exists');
  });
  app.get('/library-400', () => {
    throw Object.assign(new Error('URIError: URI malformed at /x'), { status: 400 });
  });
  app.get('/db-selection', () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), {
      name: 'MongoServerSelectionError',
    });
  });
  app.get('/db-buffering', () => {
    throw Object.assign(new Error('Operation `courses.find()` buffering timed out after 10000ms'), {
      name: 'MongooseError',
    });
  });
  app.get('/dup', () => {
    throw Object.assign(new Error('E11000 duplicate key error collection: school.courses'), { code: 11000 });
  });
  app.use(notFound);
  app.use(errorHandler(createLogger('silent')));
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

it.each([['/boom'], ['/async-boom']])(
  'answers %s with a generic 500 server_error and the request id, never the message',
  async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: 'server_error',
      error_description: 'an unexpected error occurred',
      request_id: 'req-123',
    });
    expect(text).not.toMatch(/secret|undefined|at /);
    expect(res.headers.get('cache-control')).toBe('no-store');
  },
);

it('writes API errors as declared, and a duplicate key as 409', async () => {
  expect(await (await fetch(`${base}/taken`)).json()).toEqual({
    error: 'conflict',
    error_description: 'a course with this slug already exists',
  });
  expect((await fetch(`${base}/dup`)).status).toBe(409);
});

it('answers unknown paths with a JSON 404', async () => {
  const res = await fetch(`${base}/nowhere`);
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ error: 'not_found', error_description: 'no endpoint at GET /nowhere' });
});

it('keeps a library’s own 4xx refusal in the API shape, without its message', async () => {
  const res = await fetch(`${base}/library-400`);
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({
    error: 'invalid_request',
    error_description: 'the request could not be read',
  });
});

it.each([['/db-selection'], ['/db-buffering']])(
  'answers an unreachable database (%s) 503 temporarily_unavailable with Retry-After',
  async (path) => {
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the database cannot be reached; try again shortly',
    });
  },
);
