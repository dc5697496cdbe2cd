/**
 * Clients that registered `dpop_bound_access_tokens: true` (RFC 9449 §5.2) get no token without a
 * DPoP proof, with a real DPoP client: oauth4webapi (pinned), unmodified, registers (the answer echoes
 * the member), is refused at the code exchange and at refresh without a proof (`invalid_dpop_proof`),
 * and gets bound tokens with one; the refused requests spend neither the code nor the refresh token.
 * A Client ID Metadata Document may say the same, and its client is held to it. Real server, real
 * Redis, the real pages through the form browser, documents from a real HTTPS server on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import {
  makeTestPki,
  startDocumentServer,
  type DocumentServer,
} from '../../../test-support/https-documents.js';
import { obtainCode, REDIRECT, type IssuedCode } from '../../../test-support/oauth-flow.js';

const pki = makeTestPki();
let docs: DocumentServer;
const auth = authServerForFile({
  CIMD_ALLOW_LOOPBACK: 'true',
  CIMD_EXTRA_CA_FILE: pki.caFile,
  CIMD_CACHE_MIN_SECONDS: '0',
});
let as: oauth.AuthorizationServer;
const insecure = { [oauth.allowInsecureRequests]: true } as const; // the test server is on http

beforeAll(async () => {
  docs = await startDocumentServer(pki);
  const issuer = new URL(auth.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(() => docs?.close());

/** What a refused token request answered, as oauth4webapi reads it: its status and body. */
async function refusal(processing: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const err = await processing.then(
    () => new Error('the request was not refused'),
    (e: unknown) => e,
  );
  if (!(err instanceof oauth.ResponseBodyError)) throw err;
  return { status: err.status, body: err.cause };
}

/** RFC 9449's answer to a token request without the proof the client registered to send. */
const NO_PROOF = {
  status: 400,
  body: { error: 'invalid_dpop_proof', error_description: expect.stringContaining('DPoP proof') },
};

/** The code exchange of `issued` by `client`, with `dpop` when given. */
const exchange = (client: oauth.Client, issued: IssuedCode, dpop?: oauth.DPoPHandle) =>
  oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    oauth.validateAuthResponse(
      as,
      client,
      new URLSearchParams({ code: issued.code, iss: as.issuer }),
      oauth.skipStateCheck,
    ),
    issued.redirectUri,
    issued.verifier,
    { ...insecure, ...(dpop ? { DPoP: dpop } : {}) },
  );

/** A refresh with `token` by `client`, with `dpop` when given. */
const refresh = (client: oauth.Client, token: string, dpop?: oauth.DPoPHandle) =>
  oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, {
    ...insecure,
    ...(dpop ? { DPoP: dpop } : {}),
  });

/**
 * Runs the whole life of a client that must use DPoP: the code exchange and a refresh refused
 * without a proof, then each done with one (the same code, the same refresh token).
 */
async function holdsToProofs(client: oauth.Client): Promise<void> {
  const issued = await obtainCode(
    auth,
    { clientId: client.client_id },
    { scope: 'openid courses:read', account: ADMIN },
  );
  expect(
    await refusal(oauth.processAuthorizationCodeResponse(as, client, await exchange(client, issued))),
  ).toEqual(NO_PROOF);
  const dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await exchange(client, issued, dpop),
  );
  expect(tokens.token_type).toBe('dpop');
  expect(
    await refusal(
      oauth.processRefreshTokenResponse(as, client, await refresh(client, tokens.refresh_token!)),
    ),
  ).toEqual(NO_PROOF);
  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await refresh(client, tokens.refresh_token!, dpop),
  );
  expect(refreshed.token_type).toBe('dpop');
}

describe('dpop_bound_access_tokens at registration', () => {
  it('is echoed in the registration answer, and the client gets no token without a proof', async () => {
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: 'bound agent',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
          dpop_bound_access_tokens: true,
        },
        insecure,
      ),
    );
    expect(client.dpop_bound_access_tokens).toBe(true);
    await holdsToProofs(client);
  });

  it('is false when not asked for, and such a client may go without proofs', async () => {
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'bearer agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    expect(client.dpop_bound_access_tokens).toBe(false);
    const issued = await obtainCode(
      auth,
      { clientId: client.client_id },
      { scope: 'openid', account: ADMIN },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange(client, issued));
    expect(tokens.token_type).toBe('bearer');
  });

  it('refuses a value that is not a boolean with invalid_client_metadata', async () => {
    const res = await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], dpop_bound_access_tokens: 'yes' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});

describe('dpop_bound_access_tokens in a Client ID Metadata Document', () => {
  it('holds the client to proofs at the code exchange and at refresh', async () => {
    const path = `/apps/${randomBytes(6).toString('hex')}/client.json`;
    const clientId = docs.url(path, '127.0.0.1');
    docs.json(path, {
      client_id: clientId,
      client_name: 'bound document agent',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      dpop_bound_access_tokens: true,
    });
    await holdsToProofs({ client_id: clientId, token_endpoint_auth_method: 'none' });
  });
});
