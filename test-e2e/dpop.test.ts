/**
 * DPoP end to end through the edge, with a real DPoP client: oauth4webapi (pinned), unmodified,
 * discovers the server, redeems a code and refreshes with proofs, and calls the API with DPoP-bound
 * tokens. The MCP TypeScript client 2.x knows DPoP's error codes but sends no proofs, so it cannot be
 * the client here. What an attacker holding a copy of the token or of one request can do is tried
 * too: replay a proof the client sent, use it for another URL, send the token as Bearer, or with a
 * proof of another key.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as oauth from 'oauth4webapi';
import { redeemWithOauth4webapi } from '../test-support/dpop.js';
import { obtainCode, register, REDIRECT } from '../test-support/oauth-flow.js';
import { E2E_ADMIN, startStack, type Stack } from './support/stack.js';

let stack: Stack;
let as: oauth.AuthorizationServer;
let client: oauth.Client;
let dpop: oauth.DPoPHandle;
/** Every DPoP proof the client sent, by the URL it went to. */
const sent: { url: string; proof: string }[] = [];

const insecure = { [oauth.allowInsecureRequests]: true } as const; // the stack's BASE_URL is http
/** The client's fetch: the real one, noting each DPoP proof it sends. */
const noting = {
  ...insecure,
  [oauth.customFetch]: (url: string, init: RequestInit) => {
    const proof = new Headers(init.headers).get('dpop');
    if (proof) sent.push({ url, proof });
    return fetch(url, init);
  },
};

beforeAll(async () => {
  stack = await startStack();
  const issuer = new URL(stack.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const registered = await register(
    { issuer: stack.baseUrl },
    { client_name: 'dpop agent', redirect_uris: [REDIRECT] },
  );
  client = { client_id: (registered.body as { client_id: string }).client_id };
  dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
}, 120_000);
afterAll(() => stack?.stop());

const api = (path: string) => new URL(`${stack.baseUrl}${path}`);

/** The API called by the client, with its DPoP handle (a fresh proof per call). */
const callApi = (token: string, path: string, handle = dpop) =>
  oauth.protectedResourceRequest(token, 'GET', api(path), new Headers(), null, { ...noting, DPoP: handle });

let tokens: oauth.TokenEndpointResponse;

describe('a DPoP client through the edge', () => {
  it('discovers DPoP support, redeems a code and refreshes with proofs, and gets bound tokens', async () => {
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    const issued = await obtainCode(
      { issuer: stack.baseUrl },
      { clientId: client.client_id },
      {
        scope: 'courses:read',
        account: E2E_ADMIN,
      },
    );
    tokens = await redeemWithOauth4webapi(as, client, issued, { ...noting, DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const refreshed = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
      ...noting,
      DPoP: dpop,
    });
    tokens = await oauth.processRefreshTokenResponse(as, client, refreshed);
    expect(tokens.token_type).toBe('dpop');
  });

  it('calls the API with the bound token and a proof per call', async () => {
    for (let i = 0; i < 2; i++)
      expect((await callApi(tokens.access_token, '/api/v1/courses')).status).toBe(200);
  });
});

describe('what a copy of the token or of a request is worth', () => {
  /** The last proof the client sent to `path`. */
  const lastProof = (path: string) => sent.filter((s) => s.url === api(path).href).at(-1)!.proof;

  const raw = (path: string, authorization: string, proof?: string) =>
    fetch(api(path), { headers: { authorization, ...(proof ? { dpop: proof } : {}) } });

  const expectRefused = async (res: Response, error: string) => {
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error, error_description: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^DPoP error="${error}"`));
  };

  it('a replayed proof is refused', async () => {
    await callApi(tokens.access_token, '/api/v1/courses');
    await expectRefused(
      await raw('/api/v1/courses', `DPoP ${tokens.access_token}`, lastProof('/api/v1/courses')),
      'invalid_dpop_proof',
    );
  });

  it('a proof is refused for another URL than the one it was made for', async () => {
    await callApi(tokens.access_token, '/api/v1/courses');
    await expectRefused(
      await raw('/api/v1/posts', `DPoP ${tokens.access_token}`, lastProof('/api/v1/courses')),
      'invalid_dpop_proof',
    );
  });

  it('the stolen token is refused as Bearer', async () => {
    await expectRefused(await raw('/api/v1/courses', `Bearer ${tokens.access_token}`), 'invalid_token');
  });

  it("the stolen token is refused with another key's proof", async () => {
    const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    // oauth4webapi reads the 401's challenge and throws it.
    const refused = await callApi(tokens.access_token, '/api/v1/courses', thief).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { cause, response } = refused as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(cause[0]).toMatchObject({ scheme: 'dpop', parameters: { error: 'invalid_dpop_proof' } });
  });

  it('the stolen refresh token is refused with another key, and the real client goes on', async () => {
    const thief = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
      ...insecure,
      DPoP: thief,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await callApi(tokens.access_token, '/api/v1/courses')).status).toBe(200);
  });
});
