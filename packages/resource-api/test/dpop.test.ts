/**
 * DPoP-bound access tokens at the API (RFC 9449 §7), against the real auth server and two API
 * instances on one Redis: a bound token works with the DPoP scheme and a proof for this very call
 * (its URL as the client saw it: BASE_URL, not the Host the request arrived with); a replayed proof,
 * one for another URL, method or token, another key's, an old one, a missing one, or the bound token
 * sent as Bearer are each 401 with the RFC 9449 challenge; bearer tokens work exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DpopKey, signInWithDpop } from '../../../test-support/dpop.js';
import { registerClient } from '../../../test-support/oauth-flow.js';
import {
  authAndApiForFile,
  call,
  startTestResourceApi,
  type Answer,
  type TestResourceApi,
} from '../../../test-support/resource-api.js';
import { TokenSource } from '../../../test-support/tokens.js';

let other: TestResourceApi;
let key: DpopKey;
let bound: string;
let base: string;

const PATH = '/api/v1/students';

afterAll(() => other?.stop()); // runs before the hooks below stop the API and the auth server
const { auth, api } = authAndApiForFile();
beforeAll(async () => {
  other = await startTestResourceApi(auth);
  base = auth.issuer; // BASE_URL: the URL clients call (the edge in a deployment)
  key = await DpopKey.create();
  const client = await registerClient(auth);
  const res = await signInWithDpop(auth, client, key, { scope: 'students:read' });
  bound = (res.body as { access_token: string }).access_token;
});

/** A call of PATH at `at` with the DPoP scheme and `proof` (none when undefined). */
const dpopCall = (at: string, proof: string | undefined, token = bound, path = PATH) =>
  call(at, path, { authorization: `DPoP ${token}`, headers: proof ? { dpop: proof } : {} });

const proofFor = (options: Parameters<DpopKey['proof']>[2] = {}, url = `${base}${PATH}`, method = 'GET') =>
  key.proof(method, url, { accessToken: bound, ...options });

const ALGS = 'algs="ES256 Ed25519 EdDSA"';

function expectRefused(res: Answer, error: 'invalid_dpop_proof' | 'invalid_token', description?: RegExp) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
  const challenge = res.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(new RegExp(`^DPoP error="${error}", error_description="[^"]+", `));
  expect(challenge).toContain(ALGS);
  if (description) expect((res.body as { error_description: string }).error_description).toMatch(description);
}

describe('a DPoP-bound token', () => {
  it('works with the DPoP scheme and a proof for this call, on any instance', async () => {
    expect((await dpopCall(api.url, await proofFor())).status).toBe(200);
    expect((await dpopCall(other.url, await proofFor())).status).toBe(200);
  });

  it('is refused with a proof already used, whichever instance saw it first', async () => {
    const proof = await proofFor();
    const answers = await Promise.all([dpopCall(api.url, proof), dpopCall(other.url, proof)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401]);
    expectRefused(
      answers.find((a) => a.status === 401)!,
      'invalid_dpop_proof',
      /used before/,
    );
    expectRefused(await dpopCall(api.url, proof), 'invalid_dpop_proof', /used before/);
  });

  it.each([
    ['for another URL', () => proofFor({}, `${base}/api/v1/courses`)],
    ['for the Host the request arrived at instead of BASE_URL', () => proofFor({}, `${api.url}${PATH}`)],
    ['for another method', () => proofFor({}, `${base}${PATH}`, 'POST')],
    ['for another access token (ath)', () => proofFor({ accessToken: 'another-token' })],
    ['without ath', () => key.proof('GET', `${base}${PATH}`)],
    ['ten minutes old', () => proofFor({ iat: Math.floor(Date.now() / 1000) - 600 })],
    ['with a nonce this server never issued', () => proofFor({ extra: { nonce: 'n' } })],
    ['of another type', () => proofFor({ typ: 'JWT' })],
    [
      'signed by another key',
      async () => (await DpopKey.create()).proof('GET', `${base}${PATH}`, { accessToken: bound }),
    ],
    ['that is no JWT', () => Promise.resolve('proof')],
  ])('is refused with a proof %s: 401 invalid_dpop_proof', async (_name, proof) => {
    expectRefused(await dpopCall(api.url, await proof()), 'invalid_dpop_proof');
  });

  it('is refused without a proof, or with two', async () => {
    expectRefused(await dpopCall(api.url, undefined), 'invalid_dpop_proof', /needs a DPoP proof/);
    const twice = await fetch(`${api.url}${PATH}`, {
      headers: [
        ['authorization', `DPoP ${bound}`],
        ['dpop', await proofFor()],
        ['dpop', await proofFor()],
      ],
    });
    expect(twice.status).toBe(401);
    expect(await twice.json()).toMatchObject({ error: 'invalid_dpop_proof' });
  });

  it('is refused when sent as Bearer (a copied token without its key), even with a good proof', async () => {
    const res = await call(api.url, PATH, { token: bound, headers: { dpop: await proofFor() } });
    expectRefused(res, 'invalid_token', /bound to a DPoP key/);
  });

  it('keeps its scope rules, challenged with DPoP', async () => {
    const proof = await key.proof('GET', `${base}/api/v1/orders`, { accessToken: bound });
    const res = await dpopCall(api.url, proof, bound, '/api/v1/orders');
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toMatch(/^DPoP error="insufficient_scope", .*algs=/);
  });
});

describe('a bearer token', () => {
  it('works as before, and is refused with the DPoP scheme', async () => {
    const token = await new TokenSource(auth).token(['students:read']);
    const res = await call(api.url, PATH, { token });
    expect(res.status).toBe(200);
    const asDpop = await dpopCall(
      api.url,
      await key.proof('GET', `${base}${PATH}`, { accessToken: token }),
      token,
    );
    expectRefused(asDpop, 'invalid_token', /not bound to a DPoP key/);
  });
});

it('advertises DPoP in the protected-resource metadata', async () => {
  const res = await call(api.url, '/.well-known/oauth-protected-resource');
  expect(res.body).toMatchObject({
    dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'],
    dpop_bound_access_tokens_required: false,
  });
});
