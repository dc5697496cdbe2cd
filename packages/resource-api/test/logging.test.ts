/**
 * Secrets never logged: the log of an API at level debug, captured line by line while it
 * serves requests carrying tokens in every place a client might put one (the Authorization header,
 * the query string, a cookie, a body) and while the auth server is unreachable, contains none of
 * them, nor the introspection client secret.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createLogger } from '../src/logger.js';
import { seedSchool } from '../src/seed/seed-school.js';
import { INTROSPECTOR, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { freePort } from '../../../test-support/processes.js';
import { call, startTestResourceApi, type TestResourceApi } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let auth: TestAuthServer;
let api: TestResourceApi;
let unreachable: TestResourceApi;
let tokens: TokenSource;
const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

beforeAll(async () => {
  auth = await startTestAuthServer();
  tokens = new TokenSource(auth);
  const logger = createLogger('debug', 'resource-api', capture);
  api = await startTestResourceApi(auth, { LOG_LEVEL: 'debug' }, { logger });
  await seedSchool(api.running.connection);
  unreachable = await startTestResourceApi(
    auth,
    { LOG_LEVEL: 'debug', AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}` },
    { logger },
  );
});
afterAll(async () => {
  await unreachable?.stop();
  await api?.stop();
  await auth?.stop();
});

it('logs the requests, and never a token, a cookie or the introspection secret', async () => {
  const good = await tokens.token(['students:read', 'courses:write'], { resource: auth.issuer });
  const { access_token: other, refresh_token: refresh } = await tokens.fresh(['students:read']);
  const junk = 'junkTokenValue0123456789abcdefABCDEF';

  const answers = [
    await call(api.url, '/api/v1/students?limit=1', { token: good }),
    await call(api.url, '/api/v1/students?limit=1', { token: junk }),
    await call(api.url, '/api/v1/students?limit=1', { token: refresh! }),
    await call(api.url, `/api/v1/students?access_token=${other}`),
    await call(api.url, '/api/v1/courses', { headers: { cookie: `session=${other}` } }),
    await call(api.url, '/api/v1/courses', {
      token: good,
      method: 'POST',
      json: { title: other, extra: other },
    }),
    await call(api.url, '/api/v1/courses', {
      token: good,
      method: 'POST',
      body: `{"title":"${other}`,
      headers: { 'content-type': 'application/json' },
    }),
    await call(unreachable.url, '/api/v1/students?limit=1', { token: other }),
  ];
  expect(answers.map((a) => a.status)).toEqual([200, 401, 401, 400, 200, 400, 400, 503]);
  await new Promise((r) => setTimeout(r, 100));

  const log = lines.join('\n');
  expect(lines.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'request')).toBe(true);
  expect(lines.some((l) => (JSON.parse(l) as { msg?: string }).msg === 'introspection failed')).toBe(true);
  for (const secret of [good, other, refresh!, junk, INTROSPECTOR.clientSecret])
    expect(log).not.toContain(secret);
});

it('censors credentials wherever they appear in a logged object', () => {
  const out: string[] = [];
  const logger = createLogger(
    'info',
    'resource-api',
    new Writable({
      write(chunk: Buffer, _e, done) {
        out.push(chunk.toString());
        done();
      },
    }),
  );
  logger.info(
    {
      req: { headers: { authorization: 'Bearer s3cret-1', cookie: 'sid=s3cret-2' } },
      headers: { authorization: 's3cret-3' },
      body: {
        access_token: 's3cret-4',
        refresh_token: 's3cret-5',
        client_secret: 's3cret-6',
        password: 's3cret-7',
      },
      token: 's3cret-8',
    },
    'with secrets',
  );
  expect(out.join('')).toContain('[redacted]');
  expect(out.join('')).not.toMatch(/s3cret/);
});
