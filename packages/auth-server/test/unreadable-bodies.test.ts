/**
 * Bodies the auth server cannot read: over the parser's limit, declared gzip
 * but not gzip, in an unknown content coding, gzip in an unknown charset. On every route that takes a
 * POST body — the login and consent forms of a live interaction and oidc-provider's own token,
 * registration, revocation and introspection endpoints — each answers 413, 400 or 415 in the route's
 * shape (the HTML error page under /oauth/, the RFC 6749 §5.2 JSON body elsewhere), never a 500, never
 * a stack trace.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { FormBrowser, formAction } from '../../../test-support/form-browser.js';
import { readAnswer, type TextAnswer as Answer } from '../../../test-support/raw-http.js';

let browser: FormBrowser;
let interaction: string;

const auth = authServerForFile();
beforeAll(async () => {
  const registered = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['http://127.0.0.1:40404/cb'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  browser = new FormBrowser(auth.issuer);
  const q = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: 'http://127.0.0.1:40404/cb',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGMSFw2PRJ5CYM',
    code_challenge_method: 'S256',
  });
  const page = await browser.follow(`${auth.issuer}/oauth/authorize?${q.toString()}`);
  interaction = formAction(page.body, '/login')!.replace(/\/login$/, '');
});

/** One raw POST (node:http, so the body and its headers go out exactly as given). */
async function post(path: string, headers: Record<string, string>, body: Buffer): Promise<Answer> {
  const url = new URL(path, auth.issuer);
  const cookie = await browser.cookieHeader(url.href);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { ...headers, cookie, 'content-length': body.length },
      },
      (res) => resolve(readAnswer(res)),
    );
    // The server may answer and close before it has read a large body.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
    req.end(body);
  });
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** The routes taking a POST body, with the media type each reads. */
const ROUTES: Array<[string, () => string, string]> = [
  ['the login form', () => `${interaction}/login`, FORM],
  ['the consent form', () => `${interaction}/confirm`, FORM],
  ['the deny form', () => `${interaction}/abort`, FORM],
  ['the token endpoint', () => '/api/oauth/token', FORM],
  ['the revocation endpoint', () => '/api/oauth/revoke', FORM],
  ['the introspection endpoint', () => '/api/oauth/introspect', FORM],
  ['the registration endpoint', () => '/api/oauth/register', JSON_TYPE],
];

const small = (type: string) =>
  Buffer.from(type === FORM ? 'email=a%40b.c&password=x' : '{"client_name":"x"}');

/** The unreadable bodies, each with the statuses it may get. */
const BODIES: Array<[string, (type: string) => [Record<string, string>, Buffer], number[]]> = [
  [
    'a body over the limit (200 KB)',
    (type) => [
      { 'content-type': type },
      type === FORM
        ? Buffer.from(`email=${'a'.repeat(200 * 1024)}`)
        : Buffer.from(JSON.stringify({ client_name: 'a'.repeat(200 * 1024) })),
    ],
    [413, 400],
  ],
  [
    'Content-Encoding: gzip with a body that is not gzip',
    (type) => [{ 'content-type': type, 'content-encoding': 'gzip' }, small(type)],
    [415],
  ],
  [
    'an unknown Content-Encoding (br2)',
    (type) => [{ 'content-type': type, 'content-encoding': 'br2' }, small(type)],
    [415],
  ],
  [
    'Content-Encoding: gzip in an unknown charset',
    (type) => [
      { 'content-type': `${type}; charset=no-such-charset`, 'content-encoding': 'gzip' },
      gzipSync(small(type)),
    ],
    [415],
  ],
];

const STACK = /\bat [\w.<>]+ \(|node:internal|\.js:\d+|Error:/;

/** The error table's wire code for each status (the registration endpoint's 413 is RFC 7591's). */
const CODE: Record<number, string> = {
  400: 'invalid_request',
  413: 'request_too_large',
  415: 'unsupported_media_type',
};

describe.each(ROUTES)('%s', (_name, path, type) => {
  it.each(BODIES)('answers %s with a 4xx in the route’s shape, never a 500', async (_what, make, allowed) => {
    const [headers, body] = make(type);
    const res = await post(path(), headers, body);
    expect(allowed).toContain(res.status);
    // Only the registration endpoint may treat an oversized body as bad metadata (400).
    if (allowed.includes(413) && !path().endsWith('/register')) expect(res.status).toBe(413);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).not.toMatch(STACK);
    if (path().startsWith('/oauth/')) {
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.body).toContain(`<code>${CODE[res.status]}</code>`);
    } else {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const json = JSON.parse(res.body) as Record<string, unknown>;
      expect(Object.keys(json).sort()).toEqual(['error', 'error_description']);
      const registration413 = path().endsWith('/register') && res.status === 413;
      expect(json.error).toBe(registration413 ? 'invalid_client_metadata' : CODE[res.status]);
      expect(json.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
    }
    if (res.status === 415) expect(res.headers['accept-encoding']).toBe('identity');
  });
});

describe('bodies it can read', () => {
  it('still signs in with a plain form (Content-Encoding: identity is no coding)', async () => {
    const page = await browser.follow(`${interaction}`);
    const res = await post(
      `${interaction}/login`,
      { 'content-type': FORM, 'content-encoding': 'identity' },
      Buffer.from(
        new URLSearchParams({
          csrf: /name="csrf" value="([^"]+)"/.exec(page.body)![1]!,
          email: 'x@y.z',
          password: 'nope',
        }).toString(),
      ),
    );
    expect(res.status).toBe(401);
    expect(res.body).toContain('The email or password is not right.');
  });
});
