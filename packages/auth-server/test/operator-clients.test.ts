/**
 * Clients only operators create: a registered integration with a fixed HTTPS callback (refused to
 * open registration) and an introspecting service; listing and deleting them.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  createIntegration,
  createIntrospector,
  deleteClient,
  listOperatorClients,
} from '../src/provider/operator-clients.js';
import { ADMIN, authServerForFile } from '../../../test-support/auth-server.js';
import { authorizeInBrowser, FormBrowser } from '../../../test-support/form-browser.js';

const CALLBACK = 'https://partner.example/oauth/callback';

const auth = authServerForFile();

const form = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body),
});

describe('operator-created clients', () => {
  it('refuses an integration whose redirect URI is not https', async () => {
    await expect(
      createIntegration(auth.running.provider, 'Bad', ['http://partner.example/cb']),
    ).rejects.toThrow(/must use https/);
    await expect(createIntegration(auth.running.provider, 'None', [])).rejects.toThrow(/at least one/);
  });

  it.each(['School\u202Econsole', 'School\u200Bconsole', 'School console\u0007'])(
    'refuses a name the display rule refuses (%j), for both kinds',
    async (name) => {
      await expect(createIntegration(auth.running.provider, name, [CALLBACK])).rejects.toThrow(/client_name/);
      await expect(createIntrospector(auth.running.provider, name)).rejects.toThrow(/client_name/);
    },
  );

  it('runs the code flow of a registered integration to its fixed HTTPS callback, as a named (not self-declared) app', async () => {
    const integration = await createIntegration(auth.running.provider, 'Partner CRM', [CALLBACK]);
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: integration.client_id,
      redirect_uri: CALLBACK,
      scope: 'students:read',
      state: 'int',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const browser = new FormBrowser(auth.issuer);
    const consent = await browser.submit(
      await browser.follow(`${auth.issuer}/oauth/authorize?${q.toString()}`),
      '/login',
      ADMIN,
    );
    expect(consent.body).toContain('Partner CRM');
    expect(consent.body).not.toContain('self-declared');
    const callback = await authorizeInBrowser(
      browser,
      `${auth.issuer}/oauth/authorize?${q.toString()}`,
      ADMIN,
    );
    expect(`${callback.origin}${callback.pathname}`).toBe(CALLBACK);

    const res = await fetch(
      `${auth.issuer}/api/oauth/token`,
      form({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        client_id: integration.client_id,
        client_secret: integration.client_secret,
        code_verifier: verifier,
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'Bearer', scope: 'students:read' });
  });

  it('lets an introspecting service introspect any token, lists both kinds, and deletes them', async () => {
    const svc = await createIntrospector(auth.running.provider, 'Reporting service');
    const app = await (
      await fetch(`${auth.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
      })
    ).json();
    const unknown = await fetch(
      `${auth.issuer}/api/oauth/introspect`,
      form({ token: 'not-a-token', client_id: svc.client_id, client_secret: svc.client_secret }),
    );
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toEqual({ active: false });

    const listed = await listOperatorClients(auth.running.redis, auth.config.REDIS_KEY_PREFIX);
    expect(listed.map((c) => c.client_role).sort()).toEqual(['integration', 'introspector']);
    expect(listed.map((c) => c.client_id)).not.toContain((app as { client_id: string }).client_id);

    expect(await deleteClient(auth.running.clients, svc.client_id)).toBe(true);
    expect(await deleteClient(auth.running.clients, svc.client_id)).toBe(false);
    const gone = await fetch(
      `${auth.issuer}/api/oauth/introspect`,
      form({ token: 'x', client_id: svc.client_id, client_secret: svc.client_secret }),
    );
    expect(gone.status).toBe(401);
    expect(await gone.json()).toMatchObject({ error: 'invalid_client' });
  });
});
