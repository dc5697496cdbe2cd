/**
 * Client ID Metadata Documents end to end, through the edge, with the admin in a real browser
 *: a client whose client_id is an https URL (a real HTTPS server on loopback, with a test
 * CA the stack trusts through its test-only settings) signs in with plain HTTP calls, and the MCP
 * TypeScript client 2.x (`@modelcontextprotocol/client`, `auth()` with `clientMetadataUrl`), unmodified,
 * completes the flow and calls the API. Neither registers: the server fetches the document itself.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { pkce } from '../test-support/oauth-flow.js';
import { auth, type StoredOAuthClientInformation } from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import type { DocumentServer } from '../test-support/https-documents.js';
import { startDocumentStack, stopDocumentStack } from './support/document-stack.js';
import { approveInBrowser, loopbackListener, type LoopbackListener } from './support/browser.js';
import { edgeToken } from './support/edge-flows.js';
import { ClientAgent } from './support/mcp-agent.js';
import { E2E_ADMIN, type Stack } from './support/stack.js';
import { scrape, total } from '../test-support/metrics-scrape.js';
import { postFormFrom } from '../test-support/from-address.js';
import { SERVICES } from '../test-support/auth-server.js';
import { Redis } from 'ioredis';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { authorizeInBrowser, FormBrowser } from '../test-support/form-browser.js';

let stack: Stack;
let browser: Browser;
let docs: DocumentServer;
const redis = new Redis(SERVICES.redisUrl, { lazyConnect: true });

beforeAll(async () => {
  ({ docs, stack, browser } = await startDocumentStack({}, { withBrowser: true }));
}, 90_000);
afterAll(async () => {
  redis.disconnect();
  await stopDocumentStack({ docs, stack, browser });
});

/** Publishes a document at a fresh path; returns its URL, the client_id. */
const publish = (doc: Record<string, unknown>): string =>
  docs.publish(doc, { dir: 'agents', file: 'client-metadata.json', maxAge: 300 }).clientId;

const api = (path: string, token: string) =>
  fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });

/** Redeems a code of the public client `clientId` for a token bound to the API; the API takes it. */
async function redeemForCourses(clientId: string, code: string, redirectUri: string, verifier: string) {
  const res = await edgeToken(stack, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: clientId,
    resource: stack.baseUrl,
  });
  expect(res.status).toBe(200);
  expect((await api('/api/v1/courses', res.body.access_token!)).status).toBe(200);
}

describe('a metadata-document client in Chromium, through the edge', () => {
  it('signs in with a portless loopback redirect URI from its document and calls the API', async () => {
    const listener = await loopbackListener();
    try {
      const fetchedBefore = total(await scrape(stack.authUrl), 'auth_cimd_fetches_total', {
        status: 'fresh',
      });
      const clientId = publish({ client_name: 'e2e CIMD CLI', redirect_uris: ['http://127.0.0.1/callback'] });
      const { verifier, challenge } = pkce();
      const state = randomBytes(8).toString('hex');
      const params = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: listener.redirectUri, // the document's URI with the listener's port
        scope: 'openid courses:read',
        resource: stack.baseUrl,
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const { consent, callback } = await approveInBrowser(
        browser,
        `${stack.baseUrl}/oauth/authorize?${params.toString()}`,
        listener,
      );
      expect(consent).toContain('e2e CIMD CLI');
      expect(consent).toContain(`Published at ${new URL(clientId).host} (checked)`);
      expect(callback.searchParams.get('state')).toBe(state);
      expect(callback.searchParams.get('iss')).toBe(stack.baseUrl);
      // Operators see the fetch in the metrics, counted by outcome (never by URL).
      const fetched = (await scrape(stack.authUrl)).filter((s) => s.name === 'auth_cimd_fetches_total');
      expect(total(fetched, 'auth_cimd_fetches_total', { status: 'fresh' })).toBeGreaterThan(fetchedBefore);
      expect(fetched.map((s) => s.labels.status).sort()).toEqual(['failed', 'fresh', 'invalid', 'stale']);

      await redeemForCourses(clientId, callback.searchParams.get('code')!, listener.redirectUri, verifier);
    } finally {
      await listener.close();
    }
  }, 60_000);
});

/** An unmodified MCP client 2.x provider that names its metadata document instead of registering. */
class CimdAgent extends ClientAgent {
  registered = false;
  constructor(
    listener: LoopbackListener,
    readonly clientMetadataUrl: string,
  ) {
    super('e2e MCP 2.x agent', listener, { token_endpoint_auth_method: 'none' });
  }
  override saveClientInformation(info: StoredOAuthClientInformation) {
    this.registered ||= 'client_id_issued_at' in info;
    super.saveClientInformation(info);
  }
}

describe('the MCP TypeScript client 2.x with clientMetadataUrl, unmodified', () => {
  it('uses the document URL as its client_id, never registers, and ends with a token the API accepts', async () => {
    const listener = await loopbackListener();
    try {
      const clientId = publish({
        client_name: 'e2e MCP 2.x agent',
        redirect_uris: [listener.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      const agent = new CimdAgent(listener, clientId);
      const serverUrl = `${stack.baseUrl}/api/v1/courses`;
      expect(await auth(agent, { serverUrl })).toBe('REDIRECT');
      expect(agent.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
      expect(agent.registered).toBe(false);

      const { callback } = await approveInBrowser(browser, agent.authorizationUrl!.href, listener);
      const code = callback.searchParams.get('code')!;
      const iss = callback.searchParams.get('iss')!;
      expect(await auth(agent, { serverUrl, authorizationCode: code, iss })).toBe('AUTHORIZED');
      const tokens = agent.tokens()!;
      expect((await api('/api/v1/school', tokens.access_token)).status).toBe(200);
      expect(tokens.refresh_token).toEqual(expect.any(String));
    } finally {
      await listener.close();
    }
  }, 60_000);
});

describe('first fetches of documents, through the edge', () => {
  const junk = () => docs.url(`/junk/${randomBytes(6).toString('hex')}/client.json`, '127.0.0.1');
  const tokenFrom = (from: string, clientId: string) =>
    postFormFrom(stack.edgeUrl, from, '/api/oauth/token', {
      client_id: clientId,
      grant_type: 'authorization_code',
      code: 'not-a-code',
      redirect_uri: 'http://127.0.0.1/callback',
      code_verifier: 'x'.repeat(43),
    });

  /** Posts a made-up id from each of `n` requests from `from`; returns the ids and the answers. */
  const junkFrom = async (from: string, n: number) => {
    const ids = Array.from({ length: n }, junk);
    const answers = await Promise.all(ids.map((id) => tokenFrom(from, id)));
    return { ids, answers, fetched: ids.filter((id) => docs.hits.has(new URL(id).pathname)) };
  };

  it("are paid by their sender: made-up ids stop at its share of the host's budget, fetch nothing more, and keep nothing", async () => {
    const { ids, answers, fetched } = await junkFrom('127.0.0.7', 14);
    const limited = answers.filter((a) => a.status === 429);
    // CIMD_FETCHES_PER_MINUTE_PER_HOST is 30: one sender may spend a tenth of it.
    expect(limited).toHaveLength(11);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]!.body.error).toBe('too_many_requests');
    expect(fetched).toHaveLength(3);
    // Failed fetches are kept for the operator briefly; refused ones leave nothing.
    const prefix = `${stack.env.REDIS_KEY_PREFIX}cimd:`;
    for (const id of ids) {
      const life = await redis.pttl(`${prefix}${id}`);
      if (fetched.includes(id)) expect(life).toBeLessThanOrEqual(600_000);
      else expect(life).toBe(-2);
    }
    // Another sender's real client is not held back by it.
    const clientId = publish({ client_name: 'e2e budget', redirect_uris: ['http://127.0.0.1/callback'] });
    const real = await tokenFrom('127.0.0.8', clientId);
    expect(real.status).toBe(400);
    expect(real.body.error).toBe('invalid_grant');
  });

  it("cannot be spent by a few senders for the host's new clients: each gets its share, a fourth gets through", async () => {
    const senders = ['127.0.0.2', '127.0.0.3', '127.0.0.4'];
    const floods = await Promise.all(senders.map((from) => junkFrom(from, 10)));
    for (const { answers, fetched } of floods) {
      expect(fetched).toHaveLength(3);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
    }
    const clientId = publish({ client_name: 'e2e fair share', redirect_uris: ['http://127.0.0.1/callback'] });
    const first = await tokenFrom('127.0.0.5', clientId);
    expect(first.status).toBe(400);
    expect(first.body.error).toBe('invalid_grant'); // its document was fetched and taken
    expect(docs.hits.get(new URL(clientId).pathname)).toBe(1);
  });
});

describe("a metadata document shaped like ChatGPT's, through the edge", () => {
  it('is a public client with none (private_key_jwt offered with none), its https callback allowed by the operator', async () => {
    const callback = 'https://chatgpt.example/connector_platform_oauth_redirect';
    const { clientId } = docs.publish(
      {
        client_name: 'ChatGPT',
        client_uri: 'https://chatgpt.example',
        logo_uri: 'https://chatgpt.example/logo.png',
        redirect_uris: [callback],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_methods_supported: ['private_key_jwt', 'none'],
        jwks_uri: 'https://chatgpt.example/.well-known/jwks.json',
        scope: 'openid courses:read',
      },
      { dir: 'oauth', maxAge: 300 },
    );
    const allowed = spawnSync(
      process.execPath,
      ['packages/auth-server/dist/cli/main.js', 'clients', 'allow-cimd', clientId],
      {
        cwd: resolve(import.meta.dirname, '..'),
        env: { ...process.env, ...stack.env, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      },
    );
    expect(allowed.status).toBe(0);
    const { verifier, challenge } = pkce();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback,
      scope: 'openid courses:read',
      resource: stack.baseUrl,
      state: 'chatgpt-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    // The form browser stops at the redirect to the app: nothing here connects to the callback's host.
    const back = await authorizeInBrowser(
      new FormBrowser(stack.baseUrl),
      `${stack.baseUrl}/oauth/authorize?${params.toString()}`,
      E2E_ADMIN,
    );
    expect(`${back.origin}${back.pathname}`).toBe(callback);
    await redeemForCourses(clientId, back.searchParams.get('code')!, callback, verifier);
    expect(docs.hits.get('/.well-known/jwks.json')).toBeUndefined();
  });

  it('is refused, naming what this server takes, when it offers only methods this server does not take', async () => {
    const clientId = publish({
      client_name: 'Keys only',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_methods_supported: ['private_key_jwt', 'tls_client_auth'],
    });
    const res = await postFormFrom(stack.edgeUrl, '127.0.0.9', '/api/oauth/token', {
      client_id: clientId,
      grant_type: 'authorization_code',
      code: 'x',
      code_verifier: 'x'.repeat(43),
      redirect_uri: 'http://127.0.0.1/callback',
    });
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toMatch(
      /private_key_jwt, tls_client_auth; this server takes only none/,
    );
  });
});
