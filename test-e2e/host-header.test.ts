/**
 * BASE_URL alone makes every URL. A client that sends `Host: evil.example`, `X-Forwarded-Host`,
 * `X-Forwarded-Proto` or `Forwarded` changes nothing in the discovery documents, the
 * protected-resource metadata, `/openapi.json`, `/auth.md` or the redirects, through the edge and
 * directly at each service's own port; the discovery documents may be cached for five minutes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { Stack } from './support/stack.js';
import { stackForFile } from './support/suite.js';
import { readAnswer, type TextAnswer as Answer } from '../test-support/raw-http.js';

let stack: Stack;
stackForFile((s) => (stack = s));

/** A GET to `origin` + `path` with exactly these headers (node:http sends a custom Host as given). */
function get(origin: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, headers }, (res) =>
      resolve(readAnswer(res)),
    );
    req.on('error', reject);
    req.end();
  });
}

const HOSTILE: Record<string, Record<string, string>> = {
  Host: { host: 'evil.example' },
  'X-Forwarded-Host': { 'x-forwarded-host': 'evil.example' },
  'X-Forwarded-Proto': { 'x-forwarded-proto': 'https' },
  Forwarded: { forwarded: 'host=evil.example;proto=https' },
  'all of them': {
    host: 'evil.example:8443',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
    forwarded: 'host=evil.example;proto=https',
  },
};

/** Every absolute URL in a text. */
const urlsIn = (text: string) =>
  [...text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)\]`]+/gi)].map((m) => m[0]);

/** Which service answers which document, through the edge and on its own port. */
const documents = () => [
  { path: '/.well-known/oauth-authorization-server', direct: stack.authUrl },
  { path: '/.well-known/openid-configuration', direct: stack.authUrl },
  { path: '/.well-known/oauth-protected-resource', direct: stack.apiUrl },
  { path: '/openapi.json', direct: stack.apiUrl },
  { path: '/auth.md', direct: stack.apiUrl },
];

describe.each(Object.entries(HOSTILE))('a request claiming another origin with %s', (_name, headers) => {
  it.each(['through the edge', 'at the service'])(
    'gets every document with BASE_URL’s URLs only, %s',
    async (where) => {
      for (const doc of documents()) {
        const origin = where === 'through the edge' ? stack.edgeUrl : doc.direct;
        const res = await get(origin, doc.path, headers);
        expect(res.status).toBe(200);
        expect(res.body).not.toContain('evil.example');
        // Every URL naming this service's host and port (loopback redirect examples name others).
        const ours = urlsIn(res.body).filter((u) => URL.parse(u)?.host === new URL(stack.baseUrl).host);
        expect(ours.length).toBeGreaterThan(0);
        for (const u of ours) expect(u.startsWith(`${stack.baseUrl}/`) || u === stack.baseUrl).toBe(true);
      }
    },
  );

  it('is redirected by the authorization endpoint to a page of BASE_URL, with no cookie for another host', async () => {
    const reg = await fetch(`${stack.baseUrl}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:40408/cb'] }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const q = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: 'http://127.0.0.1:40408/cb',
      scope: 'openid',
      code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const res = await get(stack.edgeUrl, `/oauth/authorize?${q.toString()}`, headers);
    expect(res.status).toBe(303);
    const location = new URL(String(res.headers.location), stack.baseUrl);
    expect(location.origin).toBe(stack.baseUrl);
    const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
    expect(cookies).not.toMatch(/domain=|evil/i);
    expect(cookies).not.toMatch(/;\s*secure/i); // BASE_URL is http here: X-Forwarded-Proto changed nothing
  });
});

describe('caching of the discovery documents', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-protected-resource',
  ])('lets %s be cached for five minutes', async (path) => {
    const res = await fetch(`${stack.baseUrl}${path}`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });
});
