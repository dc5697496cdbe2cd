/**
 * State lives in Redis and the signing keys in their file: a restarted auth server (a new provider,
 * new connections, the keys read back from disk) honours what the previous one issued.
 */
import { describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { insecure, signInAsAdmin } from '../../../test-support/openid-client.js';
import { authServerForFile, INTROSPECTOR } from '../../../test-support/auth-server.js';

const REDIRECT = 'http://127.0.0.1:61000/cb';

const auth = authServerForFile();

async function jwks(): Promise<unknown> {
  return (await fetch(`${auth.issuer}/api/oauth/jwks`)).json();
}

describe('an auth server restart', () => {
  it('keeps refresh tokens, consumed codes and signing keys', async () => {
    const issuer = new URL(auth.issuer);
    const { config, callback, verifier, tokens } = await signInAsAdmin(
      auth.issuer,
      REDIRECT,
      'openid profile posts:read',
    );
    const keysBefore = await jwks();
    const kidBefore =
      tokens.claims() &&
      (JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as { kid: string })
        .kid;

    await auth.restart();

    expect(await jwks()).toEqual(keysBefore);
    const after = await oidc.discovery(
      issuer,
      config.clientMetadata().client_id,
      undefined,
      oidc.None(),
      insecure,
    );
    const refreshed = await oidc.refreshTokenGrant(after, tokens.refresh_token!);
    expect(refreshed.access_token).toEqual(expect.any(String));
    const kidAfter = (
      JSON.parse(Buffer.from(refreshed.id_token!.split('.')[0]!, 'base64url').toString()) as { kid: string }
    ).kid;
    expect(kidAfter).toBe(kidBefore);
    expect(refreshed.claims()?.sub).toBe(tokens.claims()?.sub);

    // The code was consumed before the restart; redeeming it again still fails (and revokes the grant).
    const replay = await fetch(`${auth.issuer}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        client_id: config.clientMetadata().client_id,
        code_verifier: verifier,
      }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    const rs = await oidc.discovery(
      issuer,
      INTROSPECTOR.clientId,
      undefined,
      oidc.ClientSecretPost(INTROSPECTOR.clientSecret),
      insecure,
    );
    expect((await oidc.tokenIntrospection(rs, refreshed.access_token)).active).toBe(false);
  });
});
