/**
 * Bodies the resource API cannot read (on the API's side): over its limit,
 * declared gzip but not gzip, in an unknown content coding, gzip in an unknown charset. Every
 * operation that takes a body (each JSON create and update, the raw file upload), called with a token
 * holding its scope so the body is really read, answers 413, 400 or 415 in the RFC 6749 §5.2 shape,
 * never a 500, never a stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { REGISTRY } from '../src/areas/index.js';
import { scopeOf } from '../src/lib/operation.js';
import { startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { startTestResourceApi, type TestResourceApi } from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';
import { readAnswer, type TextAnswer as Answer } from '../../../test-support/raw-http.js';

const OPERATIONS = REGISTRY.flatMap((a) => a.operations).filter((op) => op.body);
let auth: TestAuthServer;
let api: TestResourceApi;
let token: string;

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startTestResourceApi(auth, { BODY_LIMIT: '16kb', UPLOAD_LIMIT: '64kb' });
  const scopes = [...new Set(OPERATIONS.map(scopeOf))];
  token = await new TokenSource(auth).token(scopes, { resource: auth.issuer });
});
afterAll(async () => {
  await api?.stop();
  await auth?.stop();
});

function send(method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const url = new URL(path, api.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers: { ...headers, authorization: `Bearer ${token}`, 'content-length': body.length },
      },
      (res) => resolve(readAnswer(res)),
    );
    // The API may answer and close before it has read a large body.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
    req.end(body);
  });
}

const small = (raw: boolean) => Buffer.from(raw ? 'hello, school' : '{"name":"x"}');

/** The unreadable bodies: headers and bytes for a JSON or a raw operation, and the statuses allowed. */
const BODIES: Array<[string, (raw: boolean) => [Record<string, string>, Buffer], number[]]> = [
  [
    'a body over the limit',
    (raw) => [
      { 'content-type': raw ? 'text/plain' : 'application/json' },
      raw ? Buffer.alloc(200 * 1024, 'a') : Buffer.from(JSON.stringify({ name: 'a'.repeat(200 * 1024) })),
    ],
    [413],
  ],
  [
    'Content-Encoding: gzip with a body that is not gzip',
    (raw) => [
      { 'content-type': raw ? 'text/plain' : 'application/json', 'content-encoding': 'gzip' },
      small(raw),
    ],
    [400, 415], // body-parser inflates JSON: the broken stream is a 400; the upload refuses any coding
  ],
  [
    'an unknown Content-Encoding (br2)',
    (raw) => [
      { 'content-type': raw ? 'text/plain' : 'application/json', 'content-encoding': 'br2' },
      small(raw),
    ],
    [415],
  ],
  [
    'Content-Encoding: gzip in an unknown charset',
    (raw) => [
      {
        'content-type': `${raw ? 'text/plain' : 'application/json'}; charset=no-such-charset`,
        'content-encoding': 'gzip',
      },
      gzipSync(small(raw)),
    ],
    [415],
  ],
];

const STACK = /\bat [\w.<>]+ \(|node:internal|\.js:\d+|Error:/;

describe.each(OPERATIONS.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))(
  '%s',
  (_name, op) => {
    const path =
      op.path.replace(/\{[^}]+\}/g, '0123456789abcdef01234567') +
      (op.body!.kind === 'raw' ? '?filename=a.txt' : '');
    it.each(BODIES)(
      'answers %s with its 4xx in the RFC 6749 shape, never a 500',
      async (_what, make, expected) => {
        const [headers, body] = make(op.body!.kind === 'raw');
        const res = await send(op.method.toUpperCase(), path, headers, body);
        expect(expected).toContain(res.status);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).not.toMatch(STACK);
        const json = JSON.parse(res.body) as Record<string, unknown>;
        expect(json).toMatchObject({ error: expect.any(String), error_description: expect.any(String) });
        expect(json.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
        if (op.body!.kind === 'raw' && res.status === 415)
          expect(res.headers['accept-encoding']).toBe('identity');
      },
    );
  },
);
