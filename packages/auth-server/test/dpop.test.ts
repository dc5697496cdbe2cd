/**
 * DPoP (RFC 9449) at the auth server, through two instances on one storage: advertised; a proof at
 * the token endpoint binds the access token (and a public client's refresh token) to its key, for
 * public and confidential clients; introspection says so (`cnf.jkt`, `token_type: DPoP`) on the
 * direct path; bad proofs are RFC 6749-shaped 400s; one proof is accepted once in the deployment.
 * And the refresh-token reuse window for a bound grant: the same key is the same installation,
 * whatever its address; another key (or none) is theft.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { twoInstancesForFile } from '../../../test-support/auth-server.js';
import {
  DpopKey,
  redeemWithOauth4webapi,
  signInWithDpop,
  tokenEndpoint,
} from '../../../test-support/dpop.js';
import { postFormFrom } from '../../../test-support/from-address.js';
import type { IssuedCode } from '../../../test-support/oauth-flow.js';
import * as oauth from 'oauth4webapi';
import {
  codeExchange,
  credentials,
  expectOAuthError,
  get,
  introspect,
  isActive,
  obtainCode,
  registerPublicAndConfidential,
  signIn,
  tokenRequest,
  type HttpResult,
  type TestClient,
} from './oauth-http.js';

let publicClient: TestClient;
let confidential: TestClient;

const { auth, second } = twoInstancesForFile();
beforeAll(async () => {
  [publicClient, confidential] = await registerPublicAndConfidential(auth);
});

interface Issued {
  access_token: string;
  refresh_token: string;
  token_type: string;
}

const issued = (res: HttpResult): Issued => {
  expect(res.status).toBe(200);
  return res.body as unknown as Issued;
};

/** A refresh at `issuer` (the proof's htu is always the public token endpoint), with `proof` if any. */
const refresh = (issuer: string, client: TestClient, token: string, proof?: string) =>
  tokenRequest(
    { issuer },
    { grant_type: 'refresh_token', refresh_token: token, ...credentials(client) },
    proof ? { dpop: proof } : {},
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('binding', () => {
  it('advertises the proof algorithms', async () => {
    const res = await get(`${auth.issuer}/.well-known/oauth-authorization-server`);
    expect(res.body?.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
  });

  it("binds a public client's access and refresh tokens, and introspection says so on the direct path", async () => {
    const key = await DpopKey.create();
    const tokens = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid courses:read' }));
    expect(tokens.token_type).toBe('DPoP');
    const access = await introspect(auth, tokens.access_token);
    expect(access.body).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    expect(access.headers.get('vary')).toBe('Origin');
    const refreshToken = await introspect(auth, tokens.refresh_token);
    expect(refreshToken.body).toMatchObject({ active: true, cnf: { jkt: key.jkt } });
  });

  it("binds a confidential client's access token (its refresh token is bound by its authentication)", async () => {
    const key = await DpopKey.create();
    const tokens = issued(await signInWithDpop(auth, confidential, key, { scope: 'openid' }));
    expect(tokens.token_type).toBe('DPoP');
    expect((await introspect(auth, tokens.access_token)).body).toMatchObject({ cnf: { jkt: key.jkt } });
    const next = issued(
      await refresh(
        auth.issuer,
        confidential,
        tokens.refresh_token,
        await key.proof('POST', tokenEndpoint(auth)),
      ),
    );
    expect((await introspect(auth, next.access_token)).body).toMatchObject({
      token_type: 'DPoP',
      cnf: { jkt: key.jkt },
    });
  });

  it('issues bearer tokens as before to a client sending no proof', async () => {
    const tokens = await signIn(auth, publicClient, { scope: 'openid' });
    const answer = (await introspect(auth, tokens.access_token)).body;
    expect(answer).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer).not.toHaveProperty('cnf');
  });
});

describe('bad proofs at the token endpoint', () => {
  const refreshWith = async (proof: (key: DpopKey) => Promise<string>) => {
    const key = await DpopKey.create();
    const tokens = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid' }));
    return refresh(auth.issuer, publicClient, tokens.refresh_token, await proof(key));
  };

  it.each([
    ['for another URL', (key: DpopKey) => key.proof('POST', `${auth.issuer}/api/oauth/revoke`)],
    ['for another method', (key: DpopKey) => key.proof('GET', tokenEndpoint(auth))],
    ['of another type', (key: DpopKey) => key.proof('POST', tokenEndpoint(auth), { typ: 'JWT' })],
    [
      'an hour old',
      (key: DpopKey) => key.proof('POST', tokenEndpoint(auth), { iat: Math.floor(Date.now() / 1000) - 3600 }),
    ],
    ['not a JWT', () => Promise.resolve('not-a-proof')],
  ])('refuses a proof %s with 400 invalid_dpop_proof', async (_name, proof) => {
    expectOAuthError(await refreshWith(proof), 400, 'invalid_dpop_proof');
  });

  it('accepts one proof once, however many instances it is sent to at the same moment', async () => {
    const key = await DpopKey.create();
    const tokens = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid' }));
    const proof = await key.proof('POST', tokenEndpoint(auth));
    const answers = await Promise.all(
      [auth.issuer, second.url, auth.issuer, second.url].map((at) =>
        refresh(at, publicClient, tokens.refresh_token, proof),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
    // The replays did not end the grant: the one answer's tokens work.
    const winner = answers.find((a) => a.status === 200)!.body as unknown as Issued;
    expect(await isActive(auth, winner.access_token)).toBe(true);
  });
});

describe('a replayed proof at the code exchange', () => {
  it("is refused with invalid_dpop_proof and leaves the code to the client's own exchange (oauth4webapi)", async () => {
    const issuer = new URL(auth.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true } as const; // the test server is http
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: publicClient.clientId };
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    let copied: string | null = null;
    /** The client's fetch: the real one, a copy of each proof it sends kept (what an attacker saw). */
    const copying = {
      ...insecure,
      [oauth.customFetch]: (url: string, init: RequestInit) => {
        copied = new Headers(init.headers).get('dpop');
        return fetch(url, init);
      },
    };
    const exchange = (issued: IssuedCode, options: oauth.TokenEndpointRequestOptions) =>
      redeemWithOauth4webapi(as, client, issued, options);

    // The client redeems a first code; its proof is copied on the way.
    const first = await exchange(await obtainCode(auth, publicClient, { scope: 'openid' }), {
      ...copying,
      DPoP: dpop,
    });
    expect(first.token_type).toBe('dpop');
    expect(copied).toEqual(expect.any(String));

    // The copied proof, sent with the client's next code before the client sends it.
    const issued = await obtainCode(auth, publicClient, { scope: 'openid' });
    const replayed = await tokenRequest(auth, codeExchange(publicClient, issued), { dpop: copied! });
    expectOAuthError(replayed, 400, 'invalid_dpop_proof');

    // The code is still the client's: its own exchange with a fresh proof gets bound tokens.
    const tokens = await exchange(issued, { ...insecure, DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(await isActive(auth, tokens.access_token)).toBe(true);
  });
});

describe('a replayed proof at a refresh', () => {
  it('is refused with invalid_dpop_proof before the refresh token is rotated', async () => {
    const key = await DpopKey.create();
    const a = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid' }));
    const proof = await key.proof('POST', tokenEndpoint(auth));
    const b = issued(await refresh(auth.issuer, publicClient, a.refresh_token, proof));
    expectOAuthError(
      await refresh(auth.issuer, publicClient, b.refresh_token, proof),
      400,
      'invalid_dpop_proof',
    );
    // b's refresh token was not used: a fresh proof rotates it as usual, the grant intact.
    const c = issued(
      await refresh(auth.issuer, publicClient, b.refresh_token, await key.proof('POST', tokenEndpoint(auth))),
    );
    expect(c.refresh_token).not.toBe(b.refresh_token);
    expect(await isActive(auth, c.access_token)).toBe(true);
  });
});

describe('the reuse window for a DPoP-bound grant', () => {
  it('answers a rotated token with a proof of its key from another address with the current token', async () => {
    const key = await DpopKey.create();
    const a = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid' }));
    const b = issued(
      await refresh(auth.issuer, publicClient, a.refresh_token, await key.proof('POST', tokenEndpoint(auth))),
    );
    expect(b.refresh_token).not.toBe(a.refresh_token);
    const c = issued(
      await refresh(second.url, publicClient, b.refresh_token, await key.proof('POST', tokenEndpoint(auth))),
    );
    await sleep(1100);
    const again = await postFormFrom(
      auth.issuer,
      '127.0.0.4',
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: a.refresh_token, ...credentials(publicClient) },
      { dpop: await key.proof('POST', tokenEndpoint(auth)) },
    );
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(c.refresh_token);
    expect((await introspect(auth, again.body.access_token!)).body).toMatchObject({
      active: true,
      cnf: { jkt: key.jkt },
    });
  });

  it.each([
    ['another key', async () => (await DpopKey.create()).proof('POST', tokenEndpoint(auth))],
    ['no proof', () => Promise.resolve(undefined)],
  ])('ends the grant when a rotated token comes with %s', async (_name, proof) => {
    const key = await DpopKey.create();
    const a = issued(await signInWithDpop(auth, publicClient, key, { scope: 'openid' }));
    const b = issued(
      await refresh(auth.issuer, publicClient, a.refresh_token, await key.proof('POST', tokenEndpoint(auth))),
    );
    expectOAuthError(
      await refresh(second.url, publicClient, a.refresh_token, await proof()),
      400,
      'invalid_grant',
    );
    for (const token of [b.access_token, b.refresh_token, a.access_token])
      expect(await isActive({ issuer: second.url }, token)).toBe(false);
    let events: unknown[] = [];
    for (let tries = 0; tries < 50 && events.length === 0; tries++) {
      events = (
        await auth.running.audit.query({ clientId: publicClient.clientId, type: 'refresh_token_reuse' })
      ).filter((e) => /DPoP key/.test(JSON.stringify(e.details)));
      if (!events.length) await sleep(100);
    }
    expect(events).not.toEqual([]);
  });
});
