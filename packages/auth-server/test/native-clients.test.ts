/**
 * Named native clients for apps that cannot register themselves (Cursor takes a fixed client id and
 * redirects to http://localhost:8787/callback): `school-auth clients create-native`, run as a real
 * process, makes a public client with exactly that loopback redirect URI; openid-client runs the code
 * flow with PKCE and a refresh with its id; the consent page shows its name as an operator's app;
 * `clients list` lists it, the lifecycle sweep leaves it, `clients delete` ends it. Open registration
 * is untouched (registration.test.ts).
 */
import { describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { ADMIN, authServerForFile, runSchoolAuth } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';
import { insecure } from '../../../test-support/openid-client.js';
import { sweepClients } from '../src/provider/client-sweep.js';
import { isActive, registerClient } from './oauth-http.js';

const CURSOR_CALLBACK = 'http://localhost:8787/callback';

const auth = authServerForFile();

const run = (...args: string[]) => runSchoolAuth(auth.config, args);

/** Creates a native client through the command; its printed answer. */
function createNative(name: string, redirectUri: string): Record<string, unknown> {
  const done = run('clients', 'create-native', '--name', name, '--redirect-uri', redirectUri);
  expect({ status: done.status, stderr: done.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(done.stdout) as Record<string, unknown>;
}

/** openid-client's configuration for the public client `clientId`, from the server's discovery. */
const configFor = (clientId: string) =>
  oidc.discovery(
    new URL(auth.issuer),
    clientId,
    { token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );

describe('school-auth clients create-native', () => {
  it('makes a public loopback client that openid-client signs in with (code + PKCE) and refreshes', async () => {
    const created = createNative('Cursor', CURSOR_CALLBACK);
    expect(created).toEqual({
      client_id: expect.stringMatching(/^app-[\w-]+$/),
      client_name: 'Cursor',
      client_role: 'native',
      redirect_uris: [CURSOR_CALLBACK],
      token_endpoint_auth_method: 'none',
    });
    expect(created).not.toHaveProperty('client_secret');
    const clientId = created.client_id as string;

    const config = await configFor(clientId);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CURSOR_CALLBACK,
      scope: 'openid courses:read',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const browser = new FormBrowser(auth.issuer);
    const consent = await browser.submit(await browser.follow(url.href), '/login', ADMIN);
    expect(consent.body).toContain('Cursor');
    expect(consent.body).toContain('kind-integration');
    expect(consent.body).not.toContain('self-declared');
    const callback = await authorizeInBrowser(browser, url.href, ADMIN);
    expect(`${callback.origin}${callback.pathname}`).toBe(CURSOR_CALLBACK);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.scope).toBe('openid courses:read');
    expect(await isActive(auth, tokens.access_token)).toBe(true);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token); // a public client's token rotates
    expect(await isActive(auth, refreshed.access_token)).toBe(true);
  });

  it('refuses an authorization request without PKCE', async () => {
    const clientId = createNative('No PKCE', CURSOR_CALLBACK).client_id as string;
    const config = await configFor(clientId);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: CURSOR_CALLBACK,
      scope: 'openid',
      state: oidc.randomState(),
    });
    const res = await fetch(url.href, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(CURSOR_CALLBACK);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses a redirect URI that is not loopback, in one sentence, storing nothing', () => {
    const before = run('clients', 'list', '--json').stdout;
    const done = run('clients', 'create-native', '--name', 'Web', '--redirect-uri', 'https://app.example/cb');
    expect(done.status).toBe(1);
    expect(done.stderr.trim().split('\n')).toEqual([expect.stringMatching(/not a loopback URI/)]);
    expect(run('clients', 'list', '--json').stdout).toBe(before);
  });

  it('is listed, never swept as unused, and deleted by the operator', async () => {
    const clientId = createNative('Cursor (listed)', CURSOR_CALLBACK).client_id as string;
    const unused = await registerClient(auth); // the control: an open registration never used
    const listed = run('clients', 'list', '--json')
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listed).toContainEqual(
      expect.objectContaining({
        client_id: clientId,
        client_name: 'Cursor (listed)',
        kind: 'integration',
        redirect_uris: [CURSOR_CALLBACK],
      }),
    );

    // Two days on, both never used: the open registration goes, the native client stays.
    const later = Date.now() + 2 * 86_400_000;
    const swept = await sweepClients(
      auth.running.clients,
      { unusedSeconds: 86_400, idleSeconds: 86_400 },
      later,
    );
    const removed = swept.removed.map((r) => r.clientId);
    expect(removed).toContain(unused.clientId);
    expect(removed).not.toContain(clientId);
    expect(await auth.running.provider.Client.find(clientId)).toBeDefined();

    const deleted = run('clients', 'delete', clientId);
    expect({ status: deleted.status, out: JSON.parse(deleted.stdout) as unknown }).toEqual({
      status: 0,
      out: { client_id: clientId, deleted: true },
    });
    expect(run('clients', 'list', '--json').stdout).not.toContain(clientId);
  });
});
