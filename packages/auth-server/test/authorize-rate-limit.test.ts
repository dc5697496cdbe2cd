/**
 * The authorization endpoint is limited per address: each request that starts a flow stores an
 * interaction in Redis, so without a limit anyone holding a client id could fill Redis. The limit is
 * per address (one address's flood leaves others alone), answers the browser with an error page
 * (it is a browser route), and counts only the request that starts a flow.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { authServerForFile } from '../../../test-support/auth-server.js';
import { readAnswer, type TextAnswer as Answer } from '../../../test-support/raw-http.js';

const REDIRECT = 'http://127.0.0.1:40405/cb';
let clientId: string;

const auth = authServerForFile({ RATE_LIMIT_AUTHORIZATION: '3' });
beforeAll(async () => {
  const res = await fetch(`${auth.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT] }),
  });
  clientId = ((await res.json()) as { client_id: string }).client_id;
});

/** GET /oauth/authorize for a fresh flow, sent from `localAddress` (all of 127.0.0.0/8 reaches lo). */
function authorizeFrom(localAddress: string): Promise<Answer> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'openid',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(randomBytes(32)).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const url = new URL(`${auth.issuer}/oauth/authorize?${q.toString()}`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, localAddress },
      (res) => resolve(readAnswer(res)),
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the authorization endpoint rate limit', () => {
  it('refuses an address past its limit with 429, Retry-After and an error page, and no new interaction', async () => {
    for (let i = 0; i < 3; i++) {
      const started = await authorizeFrom('127.0.0.31');
      expect(started.status).toBe(303);
      expect(started.headers.location).toMatch(/\/oauth\/interaction\//);
    }
    const limited = await authorizeFrom('127.0.0.31');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
    expect(limited.headers['cache-control']).toBe('no-store');
    expect(limited.headers.location).toBeUndefined();
    expect(limited.body).toContain('too_many_requests');
    expect(limited.headers['set-cookie']).toBeUndefined(); // no interaction was started
  });

  it('leaves every other address its own budget', async () => {
    const other = await authorizeFrom('127.0.0.32');
    expect(other.status).toBe(303);
  });
});
