/**
 * Client ID Metadata Documents through the real auth server: the metadata flag, a whole
 * flow with a URL client_id at every endpoint (authorize, login, consent, token, introspection,
 * refresh, revocation), the redirect policy (https callbacks only for an operator-allowed client_id,
 * else our error page with invalid_redirect_uri), the verified host on the consent page, and a
 * changed document asking the user again. The document is served by a real HTTPS server on loopback
 * with a test CA, which the server trusts through its test-only settings.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import {
  ADMIN,
  operatorCommandEnv,
  startAuthWithDocuments,
  type TestAuthServer,
} from '../../../test-support/auth-server.js';
import { authorizeInBrowser, formAction, FormBrowser } from '../../../test-support/form-browser.js';
import type { DocumentServer } from '../../../test-support/https-documents.js';
import { allowCimdClient } from '../src/cimd/cimd-operator.js';
import {
  authorizationUrl,
  codeExchange,
  get,
  introspect,
  newState,
  pkce,
  revoke,
  tokenRequest,
  type Tokens,
} from './oauth-http.js';

let docs: DocumentServer;
let auth: TestAuthServer;

beforeAll(async () => {
  ({ docs, auth } = await startAuthWithDocuments({
    CIMD_CACHE_MIN_SECONDS: '0',
    // Every test's documents are on one host (127.0.0.1), and the changing one is never cached.
    CIMD_FETCHES_PER_MINUTE_PER_HOST: '600',
  }));
});
afterAll(() => Promise.all([auth.stop(), docs.close()]));

/** A fresh client_id URL on the document server, serving `doc` (with `client_id` filled in). */
const publish = (doc: Record<string, unknown>): string => docs.publish(doc).clientId;

function authorizeUrl(clientId: string, redirectUri: string) {
  const { verifier, challenge } = pkce();
  const state = newState();
  const url = authorizationUrl(auth, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'openid email courses:read',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return { url, verifier, state };
}

describe('Client ID Metadata Documents', () => {
  it('are advertised in the authorization server metadata', async () => {
    const res = await get(`${auth.issuer}/.well-known/oauth-authorization-server`);
    expect(res.body).toMatchObject({ client_id_metadata_document_supported: true });
  });

  it('give a client that completes the whole flow at every endpoint, on any loopback port', async () => {
    const clientId = publish({ client_name: 'Notes agent', redirect_uris: ['http://localhost/callback'] });
    const redirectUri = 'http://localhost:38111/callback'; // portless in the document: any port
    const { url, verifier, state } = authorizeUrl(clientId, redirectUri);
    const browser = new FormBrowser(auth.issuer);
    let page = await browser.follow(url);
    page = await browser.submit(page, '/login', { email: ADMIN.email, password: ADMIN.password });
    expect(page.body).toContain('Notes agent');
    expect(page.body).toMatch(/Published at <bdi>127\.0\.0\.1:\d+<\/bdi> \(checked\)/);
    expect(page.body).toContain('kind-metadata-document');
    page = await browser.submit(page, '/confirm');
    const callback = new URL(page.location!);
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(auth.issuer);

    const client = { clientId };
    const exchange = codeExchange(client, {
      code: callback.searchParams.get('code')!,
      verifier,
      redirectUri,
    });
    const res = await tokenRequest(auth, exchange);
    expect(res.status).toBe(200);
    const tokens = res.body as unknown as Tokens;
    expect((await introspect(auth, tokens.access_token)).body).toMatchObject({
      active: true,
      client_id: clientId,
    });
    const refreshed = await tokenRequest(auth, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const next = refreshed.body as unknown as Tokens;
    expect((await revoke(auth, { token: next.refresh_token, client_id: clientId })).status).toBe(200);
    expect((await introspect(auth, next.access_token)).body).toEqual({ active: false });
  });

  it('stops on our error page with invalid_redirect_uri for an https callback nobody allowed', async () => {
    const clientId = publish({
      client_name: 'Web notes',
      redirect_uris: ['https://notes.example/cb', 'http://127.0.0.1/cb'],
    });
    const res = await get(authorizeUrl(clientId, 'https://notes.example/cb').url, { accept: 'text/html' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('invalid_redirect_uri');
    const onlyHttps = publish({ redirect_uris: ['https://notes.example/cb'] });
    const refused = await get(authorizeUrl(onlyHttps, 'https://notes.example/cb').url, {
      accept: 'text/html',
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('location')).toBeNull();
    expect(refused.text).toContain('invalid_redirect_uri');
  });

  it('accepts an https callback once an operator allowed the client_id', async () => {
    const clientId = publish({ client_name: 'Web notes', redirect_uris: ['https://notes.example/cb'] });
    await allowCimdClient(auth.running.redis, auth.config.REDIS_KEY_PREFIX, clientId);
    const { url, state } = authorizeUrl(clientId, 'https://notes.example/cb');
    const callback = await authorizeInBrowser(new FormBrowser(auth.issuer), url, ADMIN);
    expect(callback.origin + callback.pathname).toBe('https://notes.example/cb');
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('code')).toBeTruthy();
  });

  it('asks for consent again when the document changes its name or redirect URIs', async () => {
    const path = `/apps/${randomBytes(6).toString('hex')}/client.json`;
    const clientId = docs.url(path, '127.0.0.1');
    const serve = (name: string, uris: string[]) =>
      docs.json(
        path,
        { client_id: clientId, client_name: name, redirect_uris: uris },
        { 'cache-control': 'max-age=0' },
      );
    serve('Web notes', ['https://notes.example/cb']);
    await allowCimdClient(auth.running.redis, auth.config.REDIS_KEY_PREFIX, clientId);
    const browser = new FormBrowser(auth.issuer);
    const consentShown = async (by = browser) => {
      let page = await by.follow(authorizeUrl(clientId, 'https://notes.example/cb').url);
      if (formAction(page.body, '/login')) page = await by.submit(page, '/login', ADMIN);
      const shown = !!formAction(page.body, '/confirm');
      if (shown) page = await by.submit(page, '/confirm');
      expect(new URL(page.location!).searchParams.get('code')).toBeTruthy();
      return shown;
    };
    expect(await consentShown()).toBe(true);
    expect(await consentShown()).toBe(false); // remembered for the same document
    serve('Web notes (new owner)', ['https://notes.example/cb']);
    expect(await consentShown()).toBe(true);
    expect(await consentShown()).toBe(false);
    serve('Web notes (new owner)', ['https://notes.example/cb', 'https://notes.example/other']);
    expect(await consentShown()).toBe(true);
    // Signing in again elsewhere finds the account's grant (step-up), still tied to the document.
    expect(await consentShown(new FormBrowser(auth.issuer))).toBe(false);
    serve('Web notes (third owner)', ['https://notes.example/cb']);
    expect(await consentShown(new FormBrowser(auth.issuer))).toBe(true);
  });

  it('is allowed https callbacks, listed with its fetch status and disallowed by the operator command', async () => {
    const clientId = publish({ client_name: 'Web notes', redirect_uris: ['https://notes.example/cb'] });
    const refusedFirst = await get(authorizeUrl(clientId, 'https://notes.example/cb').url, {
      accept: 'text/html',
    });
    expect(refusedFirst.text).toContain('invalid_redirect_uri');
    expect(schoolAuth('clients', 'allow-cimd', clientId)).toEqual({
      client_id: clientId,
      https_redirects_allowed: true,
    });
    const { url } = authorizeUrl(clientId, 'https://notes.example/cb');
    const callback = await authorizeInBrowser(new FormBrowser(auth.issuer), url, ADMIN);
    expect(callback.origin + callback.pathname).toBe('https://notes.example/cb');
    const listed = schoolAuth('clients', 'cimd') as { client_id: string }[];
    expect(listed.find((c) => c.client_id === clientId)).toMatchObject({
      status: 'fresh',
      https_redirects_allowed: true,
      fetched_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      fresh_ends_at: expect.stringMatching(/Z$/),
      stale_ends_at: expect.stringMatching(/Z$/),
    });
    expect(schoolAuth('clients', 'disallow-cimd', clientId)).toEqual({
      client_id: clientId,
      https_redirects_allowed: false,
    });
    const refused = await get(authorizeUrl(clientId, 'https://notes.example/cb').url, {
      accept: 'text/html',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('invalid_redirect_uri');
  }, 90_000); // three runs of the command, each opening Redis and MongoDB
});

/** Runs `school-auth` against this test's server storage; returns its JSON output. */
function schoolAuth(...args: string[]): unknown {
  const run = spawnSync(process.execPath, [resolve(import.meta.dirname, '../dist/cli/main.js'), ...args], {
    env: { ...process.env, ...operatorCommandEnv(auth.config) },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`school-auth ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}
