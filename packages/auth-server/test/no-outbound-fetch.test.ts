/**
 * SSRF through client metadata: a URL in open registration is client input, and the server must
 * never fetch it. Every URL-valued member oidc-provider knows of points at a listener of ours that
 * counts accepted TCP connections (a connection dropped before any HTTP counts too). The members
 * this server would have to follow are refused at registration; the others are stored, and a whole
 * flow (authorize, login, consent, token, userinfo, refresh, revoke) with the client that registered
 * them never makes the server connect out. A client stored behind the server's back with such members
 * is loaded without a connection as well (oidc-provider's own fetch is off).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import * as oidc from 'openid-client';
import { authorizationRequest, insecure } from '../../../test-support/openid-client.js';
import {
  ADMIN,
  SERVICES,
  startTestAuthServer,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';
import { OAUTH_ROUTES } from '@school/shared';
import { modelKey } from '../src/storage/redis-keys.js';

const REDIRECT = 'http://127.0.0.1:40406/cb';
let auth: TestAuthServer;
let listener: Server;
let trap: string;
let connections = 0;
let redis: Redis;

beforeAll(async () => {
  // A plain TCP listener: it counts every connection the server opens, whatever it then sends.
  listener = createServer((socket) => {
    connections += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"keys":[]}');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  trap = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
  auth = await startTestAuthServer();
  redis = new Redis(SERVICES.redisUrl);
});
afterAll(async () => {
  await auth.stop();
  redis.disconnect();
  await new Promise((resolve) => listener.close(resolve));
});

/** The members this server would have to follow: refused at registration. */
const REFUSED = ['jwks_uri', 'sector_identifier_uri', 'initiate_login_uri'];
/** Members of features that are off: oidc-provider drops them, so they are neither stored nor followed. */
const DROPPED = ['request_uris', 'backchannel_logout_uri', 'frontchannel_logout_uri'];
/** A fetch started late still lands within this. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

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
      expect(res.status).toBe(REFUSED.includes(member) || member === 'post_logout_redirect_uris' ? 400 : 201);
      if (res.status === 201) {
        const registered = (await res.json()) as Record<string, unknown> & { client_id: string };
        const { client_id } = registered;
        expect(registered[member] === undefined).toBe(DROPPED.includes(member));
        const config = new oidc.Configuration(
          (
            await oidc.discovery(new URL(auth.issuer), client_id, undefined, oidc.None(), insecure)
          ).serverMetadata(),
          client_id,
          undefined,
          oidc.None(),
        );
        oidc.allowInsecureRequests(config);
        const { url, verifier } = await authorizationRequest(config, {
          redirect_uri: REDIRECT,
          scope: 'openid email courses:read',
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
        const body = (await res.json()) as { error: string; error_description: string };
        expect(body.error).toBe('invalid_client_metadata');
        expect(body.error_description).toContain(member);
      }
      await settle();
      expect(connections).toBe(0);
    },
  );

  it('loads a client stored with every such member, at every endpoint, without connecting out', async () => {
    const clientId = `stored-behind-the-back-${Date.now()}`;
    const metadata = {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      ...urlMembers(),
    };
    await redis.set(modelKey(auth.config.REDIS_KEY_PREFIX, 'Client', clientId), JSON.stringify(metadata));
    const authorize = new URL(`${auth.issuer}${OAUTH_ROUTES.authorization}`);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const page = await fetch(authorize, { redirect: 'manual' });
    expect(page.status).toBeLessThan(500);
    for (const path of [OAUTH_ROUTES.token, OAUTH_ROUTES.revocation]) {
      const res = await fetch(`${auth.issuer}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: clientId,
          grant_type: 'refresh_token',
          refresh_token: 'x'.repeat(43),
          token: 'x'.repeat(43),
        }),
      });
      expect(res.status).toBeLessThan(500);
    }
    await settle();
    expect(connections).toBe(0);
  });
});
