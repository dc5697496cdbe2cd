/**
 * SSRF through client metadata: a URL in open registration is client input, and the server must
 * never fetch it. Every URL-valued member oidc-provider knows of points at a listener of ours; each
 * is either refused at registration or stored, and a whole flow (authorize, login, consent, token,
 * userinfo, refresh, revoke) with the client that registered it never makes the server call out.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { ADMIN, startTestAuthServer, type TestAuthServer } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';

const REDIRECT = 'http://127.0.0.1:40406/cb';
const insecure = { execute: [oidc.allowInsecureRequests] };
let auth: TestAuthServer;
let listener: Server;
let trap: string;
const calls: string[] = [];

beforeAll(async () => {
  listener = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end('{"keys":[]}');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  trap = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
  auth = await startTestAuthServer();
});
afterAll(async () => {
  await auth.stop();
  await new Promise((resolve) => listener.close(resolve));
});

/** Each URL-valued client metadata member, aimed at the listener (http and https spellings). */
const urlMembers = (): Record<string, unknown> => ({
  jwks_uri: `http://${trap}/jwks`,
  sector_identifier_uri: `https://${trap}/sector`,
  request_uris: [`http://${trap}/request`],
  logo_uri: `http://${trap}/logo`,
  client_uri: `http://${trap}/home`,
  policy_uri: `http://${trap}/policy`,
  tos_uri: `http://${trap}/tos`,
  initiate_login_uri: `https://${trap}/login`,
  post_logout_redirect_uris: [`http://${trap}/logout`],
  backchannel_logout_uri: `http://${trap}/bc`,
  frontchannel_logout_uri: `http://${trap}/fc`,
});

describe('client metadata URLs', () => {
  it.each(Object.entries(urlMembers()))(
    'never fetches %s, at registration or in a whole flow',
    async (member, value) => {
      const res = await fetch(`${auth.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], [member]: value }),
      });
      expect([201, 400]).toContain(res.status);
      if (res.status === 201) {
        const { client_id } = (await res.json()) as { client_id: string };
        const config = new oidc.Configuration(
          (
            await oidc.discovery(new URL(auth.issuer), client_id, undefined, oidc.None(), insecure)
          ).serverMetadata(),
          client_id,
          undefined,
          oidc.None(),
        );
        oidc.allowInsecureRequests(config);
        const verifier = oidc.randomPKCECodeVerifier();
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: 'openid email courses:read',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state: 'fixed-state',
        });
        const callback = await authorizeInBrowser(new FormBrowser(auth.issuer), url.href, ADMIN);
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: 'fixed-state',
        });
        await oidc.fetchUserInfo(config, tokens.access_token, oidc.skipSubjectCheck);
        const next = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        await oidc.tokenRevocation(config, next.refresh_token!);
      } else {
        expect(await res.json()).toMatchObject({ error: expect.stringMatching(/^invalid_/) });
      }
      await new Promise((resolve) => setTimeout(resolve, 200)); // a fetch started late still lands
      expect(calls).toEqual([]);
    },
  );
});
